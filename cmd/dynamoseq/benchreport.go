package main

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"
)

// figures sums up one side of a bench run.
type figures struct {
	Calls     uint64  `json:"calls"`
	Errors    uint64  `json:"errors"`
	PerSecond float64 `json:"per_second"`
	P50       string  `json:"p50"`
	P99       string  `json:"p99"`
	P999      string  `json:"p99_9"`
	// FirstError is the message of the first error, if any.
	FirstError string `json:"first_error,omitempty"`
}

// histogramRow is one line of the latency histogram: the calls that took
// less than UpTo (and at least the row before's UpTo).
type histogramRow struct {
	UpTo  string `json:"up_to"`
	Calls uint64 `json:"calls"`
}

// benchResult is bench's answer.
type benchResult struct {
	Table       string         `json:"table"`
	Kind        string         `json:"kind"`
	Sequence    string         `json:"sequence"`
	Concurrency int            `json:"concurrency"`
	Seconds     float64        `json:"seconds"`
	Rounds      int            `json:"rounds"`
	Dynamoseq   figures        `json:"dynamoseq"`
	Baseline    *figures       `json:"raw_sdk,omitempty"`
	Histogram   []histogramRow `json:"histogram"`
	// Stats is the strategy's Stats(), for the whole run (warm-up
	// included), when it keeps them.
	Stats any `json:"stats,omitempty"`
}

func (h *histogram) figures(d time.Duration) figures {
	first := ""
	if h.first != nil {
		first = h.first.Error()
	}
	return figures{
		FirstError: first,
		Calls:      h.total,
		Errors:     h.errors,
		PerSecond:  float64(h.total) / d.Seconds(),
		P50:        round(h.quantile(0.5)).String(),
		P99:        round(h.quantile(0.99)).String(),
		P999:       round(h.quantile(0.999)).String(),
	}
}

// round keeps three significant digits of d.
func round(d time.Duration) time.Duration {
	for unit := time.Duration(1); unit < time.Hour; unit *= 10 {
		if d < 1000*unit {
			return d.Round(unit)
		}
	}
	return d
}

// histogramBounds are the upper bounds of the rows of the printed histogram.
var histogramBounds = []time.Duration{
	time.Microsecond, 10 * time.Microsecond, 100 * time.Microsecond, 250 * time.Microsecond, 500 * time.Microsecond,
	time.Millisecond, 2500 * time.Microsecond, 5 * time.Millisecond, 10 * time.Millisecond, 25 * time.Millisecond,
	50 * time.Millisecond, 100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond, time.Second,
	10 * time.Second, time.Hour * 1000,
}

// rows folds the fine buckets into the printed rows, from the first row
// with calls to the last.
func (h *histogram) rows() []histogramRow {
	rows := make([]histogramRow, len(histogramBounds))
	for i, bound := range histogramBounds {
		rows[i].UpTo = bound.String()
	}
	rows[len(rows)-1].UpTo = "longer"
	for i, n := range h.counts {
		if n == 0 {
			continue
		}
		r := 0
		for r < len(rows)-1 && lowerBound(i) >= histogramBounds[r] {
			r++
		}
		rows[r].Calls += n
	}
	first, last := 0, len(rows)-1
	for first < last && rows[first].Calls == 0 {
		first++
	}
	for last > first && rows[last].Calls == 0 {
		last--
	}
	return rows[first : last+1]
}

func (r *benchResult) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s on table %s, sequence %q, %d goroutines, %v per side in %d round(s)\n\n",
		r.Kind, r.Table, r.Sequence, r.Concurrency, time.Duration(r.Seconds*float64(time.Second)), r.Rounds)
	b.WriteString("latency of dynamoseq:\n")
	var most uint64
	for _, row := range r.Histogram {
		most = max(most, row.Calls)
	}
	for _, row := range r.Histogram {
		bar := 0
		if most > 0 {
			bar = int(row.Calls * 50 / most)
		}
		fmt.Fprintf(&b, "  < %-7s %10d %s\n", row.UpTo, row.Calls, strings.Repeat("#", bar))
	}
	b.WriteString("\n")
	line := func(label string, lib, raw string) {
		fmt.Fprintf(&b, "%-12s %14s %14s\n", label, lib, raw)
	}
	d, s := r.Dynamoseq, figures{}
	if r.Baseline != nil {
		s = *r.Baseline
	}
	line("", "dynamoseq", "raw SDK")
	line("numbers/s", fmt.Sprintf("%.0f", d.PerSecond), fmt.Sprintf("%.0f", s.PerSecond))
	line("p50", d.P50, s.P50)
	line("p99", d.P99, s.P99)
	line("p99.9", d.P999, s.P999)
	line("errors", fmt.Sprint(d.Errors), fmt.Sprint(s.Errors))
	for _, f := range []struct{ who, err string }{{"dynamoseq", d.FirstError}, {"raw SDK", s.FirstError}} {
		if f.err != "" {
			fmt.Fprintf(&b, "first error of %s: %s\n", f.who, f.err)
		}
	}
	if r.Stats != nil {
		fmt.Fprintf(&b, "\nthe library's Stats() for the whole run, warm-up included (Errors includes the calls\ncut off when a round ended):\n")
		for _, line := range statsLines("", reflect.ValueOf(r.Stats)) {
			fmt.Fprintf(&b, "  %s\n", line)
		}
	}
	if r.Baseline != nil && s.PerSecond > 0 {
		fmt.Fprintf(&b, "\ndynamoseq hands out %.2fx the numbers a second of the raw SDK call.\n", d.PerSecond/s.PerSecond)
	}
	return b.String()
}

// statsLines writes the non-zero fields of a Stats struct, one a line, the
// fields of an inner struct under its name ("Inner.Field 3"),
// those of an embedded one as its own.
func statsLines(prefix string, v reflect.Value) []string {
	var lines []string
	for i := range v.NumField() {
		f, name := v.Field(i), prefix+v.Type().Field(i).Name
		switch {
		case v.Type().Field(i).Anonymous:
			lines = append(lines, statsLines(prefix, f)...)
		case f.Kind() == reflect.Struct:
			lines = append(lines, statsLines(name+".", f)...)
		case f.IsZero():
		case f.Type() == reflect.TypeFor[time.Duration]():
			lines = append(lines, fmt.Sprintf("%-16s %v", name, round(time.Duration(f.Int()))))
		default:
			lines = append(lines, fmt.Sprintf("%-16s %v", name, f.Interface()))
		}
	}
	return lines
}

// progress shows a live line on stderr, when it is a terminal, with the
// rate, p50 and p99 of the last half second and the errors so far. It
// returns the function that stops it and clears the line.
func (e *env) progress(label string, workers []*worker) (stop func()) {
	if !isTerminal(e.stderr) {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		const every = 500 * time.Millisecond
		tick := time.NewTicker(every)
		defer tick.Stop()
		prev := &histogram{}
		for {
			select {
			case <-done:
				fmt.Fprint(e.stderr, "\r\033[K")
				return
			case <-tick.C:
			}
			now := snapshot(workers)
			w := now.minus(prev)
			prev = now
			fmt.Fprintf(e.stderr, "\r\033[K%s  %9.0f/s  p50 %-8v p99 %-8v errors %d",
				label, float64(w.total)/every.Seconds(), round(w.quantile(0.5)), round(w.quantile(0.99)), now.errors)
		}
	}()
	return func() { close(done); wg.Wait() }
}

// snapshot sums the workers' figures so far.
func snapshot(workers []*worker) *histogram {
	sum := &histogram{}
	for _, w := range workers {
		w.mu.Lock()
		sum.merge(&w.h)
		w.mu.Unlock()
	}
	return sum
}
