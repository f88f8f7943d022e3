package dynamoseq_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

func init() {
	helpers["model-one-name"] = modelOneNameProcess
}

// BenchmarkModelProcesses is BenchmarkModel's 16 writers of SortKey and
// Latest as 4 OS processes x 4 goroutines on one name, as the instances of
// a service are, in both throttle forms, beside the recipe in the same
// shape: BenchmarkProcessesOneName's machinery (the test binary started
// again, a common starting line after each process warmed up) pointed at
// the model's endpoint, so that all the processes share its partitions.
// Names: BenchmarkModelProcesses/<kind>/<form>/processes=4x4/{baseline,dynamoseq}.
// The processes run the ramp and the window of BenchmarkModel's 16-writer
// rows from the moment they are let go; the model's figures are taken by this process at
// the window's ends. The metrics are BenchmarkModel's.
func BenchmarkModelProcesses(b *testing.B) {
	mb := newModelBench(b)
	mb.window *= mainWindowFactor
	for _, kind := range []string{"sortkey", "latest"} {
		for _, form := range []dynamoseqtest.ThrottleForm{dynamoseqtest.ThrottleOnDemand, dynamoseqtest.ThrottleProvisioned} {
			for _, mode := range []string{"baseline", "dynamoseq"} {
				shape := fmt.Sprintf("processes=%dx%d", benchProcesses, benchGoroutines)
				b.Run(kind+"/"+formName(form)+"/"+shape+"/"+mode, func(b *testing.B) {
					mb.report(b, medianWindow(mb.seeds, func(seed uint64) window {
						return mb.runProcesses(b, kind, mode, form, seed)
					}))
				})
			}
		}
	}
}

// runProcesses runs one sub-benchmark of BenchmarkModelProcesses.
func (mb modelBench) runProcesses(b *testing.B, kind, mode string, form dynamoseqtest.ThrottleForm, seed uint64) window {
	srv := mb.start(b, form, seed)
	table := srv.NewTable(b, sortKeyTableDef("bench"))
	const hot = "hot"
	p := dbtest.StartProcesses(b, benchProcesses, "model-one-name",
		dbtest.EndpointEnv+"="+srv.Endpoint(), // the model's, not DynamoDB Local's: the last value wins
		"TABLE="+table, "NAME="+hot, "KIND="+kind, "MODE="+mode,
		"GOROUTINES="+strconv.Itoa(benchGoroutines), "RAMP="+mb.ramp.String(), "WINDOW="+mb.window.String())
	mb.drain(b, srv.Client(), table, hot, true)
	b.ResetTimer()
	p.Go()
	time.Sleep(mb.ramp)
	before := srv.ModelStats()
	time.Sleep(mb.window)
	after := srv.ModelStats()
	outs := p.Wait()
	b.StopTimer()
	return window{t: processesTally(b, outs), p: delta(after, before, table, "S:"+hot)}
}

// modelOneNameProcess is one process of BenchmarkModelProcesses: it warms
// up on names of its own, waits at the starting line, runs its goroutines
// on the name for the ramp and the window, and prints its tally.
func modelOneNameProcess(t *testing.T) {
	ramp, err := time.ParseDuration(os.Getenv("RAMP"))
	if err != nil {
		t.Fatal(err)
	}
	window, err := time.ParseDuration(os.Getenv("WINDOW"))
	if err != nil {
		t.Fatal(err)
	}
	goroutines, err := strconv.Atoi(os.Getenv("GOROUTINES"))
	if err != nil {
		t.Fatal(err)
	}
	table, name := os.Getenv("TABLE"), os.Getenv("NAME")
	call := benchAppender(t, dbtest.Client(t), table, os.Getenv("KIND"), os.Getenv("MODE"), goroutines)
	warmUp(t, goroutines, fmt.Sprintf("warm-%d-", os.Getpid()), call)
	dbtest.AwaitGo()
	mb := modelBench{ramp: ramp, window: window}
	tl := mb.runWindow(goroutines, func(ctx context.Context, g int) error { return call(ctx, g, name) }, func() {}, func() {})
	fmt.Printf("tally %d %d %d\n", tl.ok, tl.failed, tl.all)
	for i, n := range tl.lat.counts {
		if n > 0 {
			fmt.Printf("hist %d %d\n", i, n)
		}
	}
	for msg, n := range tl.errs {
		fmt.Printf("err %d %s\n", n, strings.ReplaceAll(msg, "\n", " "))
	}
}

// processesTally adds up what the processes of BenchmarkModelProcesses
// printed.
func processesTally(b *testing.B, outs [][]byte) tally {
	var t tally
	for _, l := range outputLines(outs, "tally ") {
		var o tally
		if _, err := fmt.Sscan(l, &o.ok, &o.failed, &o.all); err != nil {
			b.Fatal(err)
		}
		t.merge(&o)
	}
	for _, l := range outputLines(outs, "hist ") {
		var i int
		var n int64
		if _, err := fmt.Sscan(l, &i, &n); err != nil {
			b.Fatal(err)
		}
		t.lat.counts[i] += n
	}
	for _, l := range outputLines(outs, "err ") {
		n, msg, _ := strings.Cut(l, " ")
		count, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		if t.errs == nil {
			t.errs = map[string]int64{}
		}
		t.errs[msg] += count
	}
	return t
}
