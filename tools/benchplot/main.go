// Command benchplot draws the charts of docs/performance.md from the output
// of `make bench` (go test -bench text, as bench.out holds it): for each
// strategy on the service model, the numbers stored a second against the
// writers on one hot name, the library's beside its recipe's, and the
// latency percentiles (p50, p99) of both; and, for the 16-writer rows (one
// process, and 4 processes x 4), the numbers stored a second and the
// numbers stored per write unit, recipe beside library. Each point or bar
// is the median of a row's windows (every bucket depth and seed the bench
// ran, and every run of -count), with a whisker from their least to their
// most. Legends sit to the right of the data.
//
// It is a module of its own so that its plotting library never enters the
// library's go.mod; it reads the text and imports nothing of dynamoseq.
//
//	go run . -in ../../bench.out -out ../../docs/performance
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

func main() {
	in := flag.String("in", "bench.out", "the output of make bench (go test -bench text)")
	out := flag.String("out", "docs/performance", "the folder the charts are written to")
	ext := flag.String("ext", "svg", "the charts' format, by its extension: svg, png, pdf")
	flag.Parse()
	f, err := os.Open(*in)
	if err != nil {
		fail(err)
	}
	results, err := parse(f)
	f.Close()
	if err != nil {
		fail(err)
	}
	if len(results) == 0 {
		fail(fmt.Errorf("%s holds no BenchmarkModel results", *in))
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	files, err := drawAll(results, *out, "."+*ext)
	if err != nil {
		fail(err)
	}
	for _, f := range files {
		fmt.Println(filepath.ToSlash(f))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchplot:", err)
	os.Exit(1)
}

// key names one row on the model:
// BenchmarkModel[Processes]/<kind>/<form>/<shape>[/burst=<depth>/seed=<n>]/<side>;
// the windows of a row (its depths and seeds) share a key.
type key struct {
	kind, form, shape, side string
}

// result holds a row's metrics, every window's and run's value of each.
type result map[string][]float64

// line matches a result line: name-GOMAXPROCS, iterations, value/unit pairs.
var line = regexp.MustCompile(`^(BenchmarkModel\S*?)(?:-\d+)?\s+\d+\s+(.*)$`)

// parse reads the model's results from go test -bench output.
func parse(r io.Reader) (map[key]result, error) {
	results := map[key]result{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := line.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		parts := strings.Split(m[1], "/")
		if len(parts) != 5 && len(parts) != 7 {
			continue
		}
		k := key{parts[1], parts[2], parts[3], parts[len(parts)-1]}
		if results[k] == nil {
			results[k] = result{}
		}
		fields := strings.Fields(m[2])
		for i := 0; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				continue
			}
			results[k][fields[i+1]] = append(results[k][fields[i+1]], v)
		}
	}
	return results, sc.Err()
}

// spread is the least and the most of a metric's values above 0 (a log
// axis has no 0: a window that stored nothing shows in benchratio's
// table, not on a chart); 0, 0 when there is none.
func (r result) spread(unit string) (lo, hi float64) {
	vs := slices.DeleteFunc(slices.Clone(r[unit]), func(v float64) bool { return !(v > 0) })
	if len(vs) == 0 {
		return 0, 0
	}
	return slices.Min(vs), slices.Max(vs)
}

// median of a metric's values, and whether it was reported at all.
func (r result) median(unit string) (float64, bool) {
	vs := slices.Clone(r[unit])
	if len(vs) == 0 {
		return 0, false
	}
	slices.Sort(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2], true
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2, true
}
