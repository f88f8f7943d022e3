package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// modelPrefix starts the names of the benchmarks on the service model
// (BenchmarkModel, BenchmarkModelProcesses):
// <kind>/<form>/<shape>/burst=<depth>/seed=<n>/<side>, one sub-benchmark
// per window (bucket depth and seed); older output without the depth and
// the seed, <kind>/<form>/<shape>/<side>, is read as one window.
const modelPrefix = "BenchmarkModel"

func isModel(name string) bool { return strings.HasPrefix(name, modelPrefix) }

// modelWindow is one window of a row: its bucket depth and seed, the
// recipe's figures (baseline) and the library's (dynamoseq).
type modelWindow struct {
	burst, seed string
	base, lib   samples
}

// modelRow is one strategy in one shape on the model, with every window
// it ran.
type modelRow struct {
	kind, form, shape string
	windows           []modelWindow
}

// modelRows returns the model's rows in the order their first library
// window came; a window without both sides is left out.
func modelRows(results map[string]samples, order []string) []*modelRow {
	var rows []*modelRow
	byName := map[string]*modelRow{}
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
		var w modelWindow
		switch len(parts) {
		case 4:
		case 6:
			w.burst, _ = strings.CutPrefix(parts[4], "burst=")
			w.seed, _ = strings.CutPrefix(parts[5], "seed=")
		default:
			continue
		}
		w.base, w.lib = base, results[name]
		row := strings.Join(parts[:4], "/")
		if byName[row] == nil {
			byName[row] = &modelRow{kind: parts[1], form: parts[2], shape: parts[3]}
			rows = append(rows, byName[row])
		}
		byName[row].windows = append(byName[row].windows, w)
	}
	return rows
}

// sweep says whether a row is a row of the writers sweep below 16.
func (r *modelRow) sweep() bool {
	return strings.HasPrefix(r.shape, "writers=") && r.shape != "writers=16"
}

// shaped says whether a row is one of BenchmarkModelShapes' (a table
// ceiling, an outage), not of one hot name at constant capacity.
func (r *modelRow) shaped() bool {
	return !strings.HasPrefix(r.shape, "writers=") && !strings.HasPrefix(r.shape, "processes=")
}

// shapeUnits are the metrics of BenchmarkModelShapes' rows, in the order
// they are printed.
var shapeUnits = []string{"ceiling-%", "name-min", "name-max", "outage-req/s", "outage-stored", "outage-wu", "recover-ms", "after-ops/s", "after-%", "step1-%", "step2-%", "step3-%", "p99-ms"}

// values returns a metric of one side (baseline or dynamoseq) over the
// row's windows (of depth burst only, unless burst is ""), the median of
// each window's runs.
func (r *modelRow) values(side, unit, burst string) []float64 {
	var vs []float64
	for _, w := range r.windows {
		if burst != "" && w.burst != burst {
			continue
		}
		s := w.lib
		if side == "baseline" {
			s = w.base
		}
		if v, ok := s[unit]; ok {
			vs = append(vs, median(v))
		}
	}
	return vs
}

// ratios returns ops/s of the library / ops/s of the recipe, window by
// window (each against the recipe's window on the same depth and seed).
func (r *modelRow) ratios() []float64 {
	var rs []float64
	for _, w := range r.windows {
		if b := median(w.base["ops/s"]); b > 0 {
			rs = append(rs, median(w.lib["ops/s"])/b)
		}
	}
	return rs
}

// bursts returns the bucket depths of the row's windows, in order.
func (r *modelRow) bursts() []string {
	var bs []string
	for _, w := range r.windows {
		if !slices.Contains(bs, w.burst) {
			bs = append(bs, w.burst)
		}
	}
	return bs
}

// spread formats the median of vs and, when they differ, their range:
// "133 (98-150)"; "-" when there is none. suffix follows each figure.
func spread(vs []float64, suffix string) string {
	if len(vs) == 0 {
		return "-"
	}
	lo, hi := slices.Min(vs), slices.Max(vs)
	m := format(median(vs), 1) + suffix
	if format(lo, 1) == format(hi, 1) {
		return m
	}
	return fmt.Sprintf("%s (%s-%s%s)", m, format(lo, 1), format(hi, 1), suffix)
}

// sum adds up vs.
func sum(vs []float64) float64 {
	t := 0.0
	for _, v := range vs {
		t += v
	}
	return t
}

// modelHeader is the header of the model's tables.
const modelHeader = "strategy\tthrottle\tshape\tside\tnumbers/s\tnumbers per write unit\tx recipe\tof its ceiling\tp99 ms\terrors\tthrottled/op\tconflicts/op\t"

// reportModel prints the model set: the 16 writers on one hot name (one
// process and 4 processes), then the writers sweep, each strategy beside
// its recipe, each figure the median and the range of the row's windows;
// then the 16-writer rows' numbers a second at each bucket depth. It
// returns false when there is none.
func reportModel(w io.Writer, results map[string]samples, order []string) bool {
	rows := modelRows(results, order)
	if len(rows) == 0 {
		return false
	}
	first := rows[0].windows[0].lib
	depths := "bucket depths " + strings.Join(rows[0].bursts(), ", ")
	if rows[0].bursts()[0] == "" {
		depths = "the model's bucket depth"
	}
	fmt.Fprintf(w, "On the service model: one hot name, %.0f write units a second per partition key value; %s.\n",
		median(first["capacity-wu/s"]), depths)
	fmt.Fprintln(w, "Each figure: the median of the row's windows (every bucket depth and seed), and their range.")
	fmt.Fprintln(w, "numbers/s: numbers stored a second; numbers per write unit: numbers stored / write units charged on the hot partition;")
	fmt.Fprintln(w, "x recipe: numbers/s of dynamoseq / numbers/s of the recipe, window by window; of its ceiling: numbers/s /")
	fmt.Fprintln(w, "(the partition's write units a second x numbers per write unit); errors: calls that failed, all windows; p99 of the calls that succeeded.")
	fmt.Fprintln(w)
	printModelTable(w, rows, false)
	printTails(w, rows)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Writers sweep (one process; 16 writers above):")
	printModelTable(w, rows, true)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Numbers stored a second at each bucket depth (16 writers; median of the seeds, and their range):")
	printDepthTable(w, rows)
	printShapes(w, rows)
	return true
}

// printShapes prints the metrics of the rows of BenchmarkModelShapes, if
// any: ceiling-% is there of the table's ceiling for a table row.
func printShapes(w io.Writer, rows []*modelRow) {
	var shaped []*modelRow
	for _, r := range rows {
		if r.shaped() {
			shaped = append(shaped, r)
		}
	}
	if len(shaped) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Shapes (table=: names under a table's ceiling, ceiling-% of the table's, name-min/max: numbers one name stored in a 2 s part;")
	fmt.Fprintln(w, "outage=: capacity cut to nothing; requests a second on the name, numbers stored during it and write units admitted in it, ms to the next number after, numbers a second and % of the ceiling from 1 s after;")
	fmt.Fprintln(w, "steps=: capacity stepping up; % of each step's ceiling from 2 s after the step; p99-ms of the calls that succeeded):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "strategy\tthrottle\tshape\tside\t%s\t\n", strings.Join(shapeUnits, "\t"))
	for _, r := range shaped {
		for _, side := range []string{"baseline", "dynamoseq"} {
			name := "recipe"
			if side == "dynamoseq" {
				name = side
			}
			cells := []string{r.kind, r.form, r.shape, name}
			for _, u := range shapeUnits {
				cells = append(cells, spread(r.values(side, u, ""), ""))
			}
			fmt.Fprintf(tw, "%s\t\n", strings.Join(cells, "\t"))
		}
	}
	tw.Flush()
}

// printModelTable prints the rows of the sweep, or the others.
func printModelTable(w io.Writer, rows []*modelRow, sweep bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, modelHeader)
	for _, r := range rows {
		if r.sweep() != sweep || r.shaped() {
			continue
		}
		for _, side := range []string{"baseline", "dynamoseq"} {
			name, ratio := "recipe", ""
			if side == "dynamoseq" {
				name, ratio = side, spread(r.ratios(), "x")
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f\t%s\t%s\t\n",
				r.kind, r.form, r.shape, name,
				spread(r.values(side, "ops/s", ""), ""), spread(r.values(side, "numbers/wu", ""), ""), ratio,
				spread(r.values(side, "ceiling-%", ""), "%"), spread(r.values(side, "p99-ms", ""), ""),
				sum(r.values(side, "errors", "")),
				spread(r.values(side, "throttled/op", ""), ""), spread(r.values(side, "conflicts/op", ""), ""))
		}
	}
	tw.Flush()
}

// printDepthTable prints the numbers a second of the rows that are not the
// sweep's, one column per bucket depth.
func printDepthTable(w io.Writer, rows []*modelRow) {
	bursts := rows[0].bursts()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "strategy\tthrottle\tshape\tside\t%s\t\n", strings.Join(bursts, "\t"))
	for _, r := range rows {
		if r.sweep() || r.shaped() {
			continue
		}
		for _, side := range []string{"baseline", "dynamoseq"} {
			name := "recipe"
			if side == "dynamoseq" {
				name = side
			}
			cells := []string{r.kind, r.form, r.shape, name}
			for _, b := range bursts {
				cells = append(cells, spread(r.values(side, "ops/s", b), ""))
			}
			fmt.Fprintf(tw, "%s\t\n", strings.Join(cells, "\t"))
		}
	}
	tw.Flush()
}

// printTails prints, for each strategy and form run both ways, the
// library's p99 from 4 processes x 4 goroutines over its p99 from 16
// goroutines in one process (medians of their windows).
func printTails(w io.Writer, rows []*modelRow) {
	one := map[string]*modelRow{}
	for _, r := range rows {
		if r.shape == "writers=16" {
			one[r.kind+"/"+r.form] = r
		}
	}
	var lines []string
	for _, r := range rows {
		o := one[r.kind+"/"+r.form]
		if !strings.HasPrefix(r.shape, "processes=") || o == nil {
			continue
		}
		a, b := r.values("dynamoseq", "p99-ms", ""), o.values("dynamoseq", "p99-ms", "")
		if len(a) == 0 || len(b) == 0 || median(b) == 0 {
			continue
		}
		lines = append(lines, fmt.Sprintf("%s %s %.2fx", r.kind, r.form, median(a)/median(b)))
	}
	if len(lines) > 0 {
		fmt.Fprintf(w, "p99 of dynamoseq from 4 processes x 4 / from 16 goroutines in one process: %s.\n", strings.Join(lines, ", "))
	}
}
