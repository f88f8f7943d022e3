// Command benchratio reads `go test -bench` output on standard input and
// prints, first, the benchmarks on the service model (BenchmarkModel...,
// model.go): each strategy's numbers stored a second and per write unit,
// ratio to its recipe, share of its own ceiling, errors and latency beside
// its recipe's, each as the median and the range of its windows (bucket
// depths and seeds); then, for every other
// benchmark that has a /baseline and a /dynamoseq sub-benchmark (on DynamoDB
// Local), each metric of both side by side with their ratio (dynamoseq /
// baseline). With -count above 1 it uses the median of the runs. `make
// bench` pipes the benchmarks through it.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// A benchmark result line: name-GOMAXPROCS, iterations, then value/unit pairs.
var line = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

type samples map[string][]float64 // unit -> values, one per run

func main() {
	results, order, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchratio:", err)
		os.Exit(1)
	}
	report(os.Stdout, results, order)
}

func parse(r io.Reader) (map[string]samples, []string, error) {
	results := map[string]samples{}
	var order []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := line.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		name, fields := m[1], strings.Fields(m[2])
		if results[name] == nil {
			results[name] = samples{}
			order = append(order, name)
		}
		for i := 0; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				continue
			}
			results[name][fields[i+1]] = append(results[name][fields[i+1]], v)
		}
	}
	return results, order, sc.Err()
}

func report(w io.Writer, results map[string]samples, order []string) {
	if reportModel(w, results, order) {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "On DynamoDB Local:")
	}
	order = slices.DeleteFunc(slices.Clone(order), isModel)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "benchmark\tmetric\tbaseline\tdynamoseq\tdynamoseq/baseline\t")
	var unpaired []string
	for _, name := range order {
		prefix, ok := strings.CutSuffix(name, "/dynamoseq")
		if !ok {
			if !strings.HasSuffix(name, "/baseline") {
				unpaired = append(unpaired, name)
			}
			continue
		}
		base, ok := results[prefix+"/baseline"]
		if !ok {
			unpaired = append(unpaired, name)
			continue
		}
		lib := results[name]
		for _, unit := range units(lib) {
			printRatio(tw, prefix, unit, base[unit], lib[unit])
		}
		// References that are not a baseline: dynamoseq in another shape
		// (BenchmarkProcessesOneName), compared on throughput only.
		for _, ref := range references {
			if r, ok := results[prefix+"/"+ref]; ok {
				printRatio(tw, prefix+" (vs "+ref+")", "appends/s", r["appends/s"], lib["appends/s"])
			}
		}
	}
	tw.Flush()
	if len(unpaired) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "benchmark (no baseline pair)\tmetric\tmedian\t")
	for _, name := range unpaired {
		for _, unit := range units(results[name]) {
			fmt.Fprintf(tw, "%s\t%s\t%s\t\n", name, unit, format(median(results[name][unit]), len(results[name][unit])))
		}
	}
	tw.Flush()
}

// references are the sub-benchmarks that runs of /dynamoseq are also
// compared with, when present; they are listed with the unpaired ones too.
var references = []string{"oneprocess", "onewriter"}

// printRatio prints one metric of a baseline and of dynamoseq, and their
// ratio.
func printRatio(tw io.Writer, name, unit string, base, lib []float64) {
	b, l := median(base), median(lib)
	ratio := "-"
	if b != 0 {
		ratio = fmt.Sprintf("%.3f", l/b)
	} else if l == 0 {
		ratio = "1.000"
	}
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", name, unit, format(b, len(base)), format(l, len(lib)), ratio)
}

func units(s samples) []string {
	var us []string
	for u := range s {
		us = append(us, u)
	}
	// ns/op first, then the rest by name.
	slices.SortFunc(us, func(a, b string) int {
		if a == "ns/op" || b == "ns/op" {
			return boolCmp(b == "ns/op", a == "ns/op")
		}
		return strings.Compare(a, b)
	})
	return us
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func format(v float64, n int) string {
	if n == 0 {
		return "-"
	}
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}
