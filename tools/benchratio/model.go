package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// modelPrefix starts the names of the benchmarks on the service model
// (BenchmarkModel, BenchmarkModelProcesses): <kind>/<form>/<shape>/<side>.
const modelPrefix = "BenchmarkModel"

func isModel(name string) bool { return strings.HasPrefix(name, modelPrefix) }

// modelPair is one strategy in one shape on the model: its recipe
// (baseline) and the library (dynamoseq).
type modelPair struct {
	kind, form, shape string
	base, lib         samples
}

// modelPairs returns the model's pairs in the order their library rows
// came; a pair without both sides is left out.
func modelPairs(results map[string]samples, order []string) []modelPair {
	var pairs []modelPair
	for _, name := range order {
		prefix, ok := strings.CutSuffix(name, "/dynamoseq")
		if !ok || !isModel(name) {
			continue
		}
		base, ok := results[prefix+"/baseline"]
		if !ok {
			continue
		}
		parts := strings.Split(prefix, "/")
		if len(parts) != 4 {
			continue
		}
		pairs = append(pairs, modelPair{kind: parts[1], form: parts[2], shape: parts[3], base: base, lib: results[name]})
	}
	return pairs
}

// sweep says whether a pair is a row of the writers sweep below 16.
func (p modelPair) sweep() bool {
	return strings.HasPrefix(p.shape, "writers=") && p.shape != "writers=16"
}

// reportModel prints the model set: the 16 writers on one hot name (one
// process and 4 processes), then the writers sweep, each strategy beside
// its recipe and its ceiling. It returns false when there is none.
func reportModel(w io.Writer, results map[string]samples, order []string) bool {
	pairs := modelPairs(results, order)
	if len(pairs) == 0 {
		return false
	}
	capacity := median(pairs[0].lib["capacity-wu/s"])
	fmt.Fprintf(w, "On the service model: one hot name, %.0f write units a second per partition key value; medians of %d run(s).\n",
		capacity, len(pairs[0].lib["ops/s"]))
	fmt.Fprintln(w, "ceiling: the partition's write units a second / the write units charged per number; share: ops/s of the ceiling;")
	fmt.Fprintln(w, "x recipe: ops/s of dynamoseq / ops/s of the recipe; errors: calls that failed (share of calls); p50/p99 of the calls that succeeded.")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\tthrottle\tshape\tside\tops/s\tceiling\tshare\tx recipe\twu/number\tp50 ms\tp99 ms\terrors\terrors %\tthrottled/op\tconflicts/op\t")
	for _, p := range pairs {
		if !p.sweep() {
			printModelPair(tw, p)
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Writers sweep (one process; 16 writers above):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\tthrottle\tshape\tside\tops/s\tceiling\tshare\tx recipe\twu/number\tp50 ms\tp99 ms\terrors\terrors %\tthrottled/op\tconflicts/op\t")
	for _, p := range pairs {
		if p.sweep() {
			printModelPair(tw, p)
		}
	}
	tw.Flush()
	return true
}

// printModelPair prints the recipe's row and the library's.
func printModelPair(tw io.Writer, p modelPair) {
	ratio := "-"
	if b := median(p.base["ops/s"]); b > 0 {
		ratio = fmt.Sprintf("%.2fx", median(p.lib["ops/s"])/b)
	}
	for _, side := range []struct {
		name, ratio string
		s           samples
	}{{"recipe", "", p.base}, {"dynamoseq", ratio, p.lib}} {
		s := side.s
		share := "-"
		if v, ok := s["ceiling-%"]; ok {
			share = fmt.Sprintf("%.0f%%", median(v))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n",
			p.kind, p.form, p.shape, side.name,
			metric(s, "ops/s"), metric(s, "ceiling-ops/s"), share, side.ratio, metric(s, "wu/number"),
			metric(s, "p50-ms"), metric(s, "p99-ms"), metric(s, "errors"), metric(s, "errors-%"),
			metric(s, "throttled/op"), metric(s, "conflicts/op"))
	}
}

// metric formats the median of a metric, "-" when it was not reported.
func metric(s samples, unit string) string {
	return format(median(s[unit]), len(s[unit]))
}
