package dynamoseq_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

func init() {
	helpers["bench-one-name"] = benchOneNameProcess
}

// Shape of BenchmarkProcessesOneName: processes x goroutines on one name.
const benchProcesses, benchGoroutines = 4, 4

// BenchmarkProcessesOneName starts 4 OS processes of 4 goroutines each that
// append to one name, as the instances of a service do, for SortKey and for
// Latest, against one DynamoDB Local, each beside:
//   - baseline: the naive recipe in the same shape (naiveAppend, rawLatest);
//   - oneprocess: the same 16 writers inside one process;
//   - onewriter: one of the 4 processes (4 writers) alone, the most that
//     processes that write one at a time can reach together.
//
// The processes start and warm up first and then run from a common starting
// line, so that their start-up is not timed. Each sub-benchmark reports
// appends/s, the p50, p99 and maximum latency of one append in
// milliseconds, and the DynamoDB requests (trips/op) and lost races
// (races/op: failed conditions and cancelled transactions; conflicts/op:
// those with a transaction in flight) per append; and, to tell where the
// time goes, the mean number of items a successful write stored (batch),
// the Queries per append, and the share of each process's time with a
// write in flight (inflight), with a write that lost (inlost) and with a
// Query in flight (inquery); the rest is spent waiting: turns, backoff,
// idle.
func BenchmarkProcessesOneName(b *testing.B) {
	client := dbtest.Client(b)
	table := dbtest.SortKeyTable(b, client, types.ScalarAttributeTypeN)
	run := 0
	for _, kind := range []string{"sortkey", "latest"} {
		for _, mode := range []string{"baseline", "dynamoseq", "oneprocess", "onewriter"} {
			b.Run(kind+"/"+mode, func(b *testing.B) {
				run++
				processes, goroutines, as := benchProcesses, benchGoroutines, mode
				switch mode {
				case "oneprocess": // the same 16 writers inside one process
					processes, goroutines, as = 1, benchProcesses*benchGoroutines, "dynamoseq"
				case "onewriter": // one of the 4 processes, alone
					processes, as = 1, "dynamoseq"
				}
				each := max(1, (b.N+processes*goroutines-1)/(processes*goroutines))
				p := dbtest.StartProcesses(b, processes, "bench-one-name",
					"TABLE="+table, "NAME="+fmt.Sprintf("%s-%s-%d", kind, mode, run), "KIND="+kind, "MODE="+as,
					"GOROUTINES="+strconv.Itoa(goroutines), "EACH="+strconv.Itoa(each))
				b.ResetTimer()
				p.Go()
				outs := p.Wait()
				b.StopTimer()
				reportProcesses(b, outs)
			})
		}
	}
}

// reportProcesses reads what the processes of BenchmarkProcessesOneName
// printed and reports the figures.
func reportProcesses(b *testing.B, outs [][]byte) {
	var lat []time.Duration
	var first, last int64
	var trips, races, conflicts int64
	for _, l := range outputLines(outs, "lat ") {
		us, err := strconv.ParseInt(l, 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Duration(us)*time.Microsecond)
	}
	for _, l := range outputLines(outs, "span ") {
		var s, e int64
		if _, err := fmt.Sscan(l, &s, &e); err != nil {
			b.Fatal(err)
		}
		if first == 0 || s < first {
			first = s
		}
		last = max(last, e)
	}
	for _, l := range outputLines(outs, "calls ") {
		var t, r, c int64
		if _, err := fmt.Sscan(l, &t, &r, &c); err != nil {
			b.Fatal(err)
		}
		trips, races, conflicts = trips+t, races+r, conflicts+c
	}
	var writes, stored, queries, writeNanos, lostNanos, queryNanos, spanNanos int64
	for _, l := range outputLines(outs, "writes ") {
		var w, s, q, wn, ln, qn, sn int64
		if _, err := fmt.Sscan(l, &w, &s, &q, &wn, &ln, &qn, &sn); err != nil {
			b.Fatal(err)
		}
		writes, stored, queries, spanNanos = writes+w, stored+s, queries+q, spanNanos+sn
		writeNanos, lostNanos, queryNanos = writeNanos+wn, lostNanos+ln, queryNanos+qn
	}
	if len(lat) == 0 || writes == 0 || spanNanos == 0 {
		b.Fatal("no append succeeded")
	}
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	n := float64(len(lat))
	b.ReportMetric(n/time.Duration(last-first).Seconds(), "appends/s")
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
	b.ReportMetric(float64(trips)/n, "trips/op")
	b.ReportMetric(float64(races)/n, "races/op")
	b.ReportMetric(float64(conflicts)/n, "conflicts/op")
	b.ReportMetric(float64(stored)/float64(writes), "batch")
	b.ReportMetric(float64(queries)/n, "queries/op")
	b.ReportMetric(float64(writeNanos)/float64(spanNanos), "inflight")
	b.ReportMetric(float64(lostNanos)/float64(spanNanos), "inlost")
	b.ReportMetric(float64(queryNanos)/float64(spanNanos), "inquery")
}

// benchOneNameProcess is one process of BenchmarkProcessesOneName.
func benchOneNameProcess(t *testing.T) {
	counting := &callCounter{Client: dbtest.Client(t)}
	table, name, kind, mode := os.Getenv("TABLE"), os.Getenv("NAME"), os.Getenv("KIND"), os.Getenv("MODE")
	goroutines, _ := strconv.Atoi(os.Getenv("GOROUTINES"))
	each, _ := strconv.Atoi(os.Getenv("EACH"))
	appendTo := benchAppender(t, counting, table, kind, mode, goroutines)
	ctx := context.Background()
	warm := fmt.Sprintf("warm-%d", os.Getpid())
	for range 20 { // a warm connection, and a warm JIT in the server
		if err := appendTo(ctx, 0, warm); err != nil {
			t.Fatal(err)
		}
	}
	counting.reset()
	dbtest.AwaitGo()
	start := time.Now()
	got := fanOut(t, goroutines, each, func(g, i int) (string, error) {
		t0 := time.Now()
		err := appendTo(ctx, g, name)
		return fmt.Sprintf("lat %d", time.Since(t0).Microseconds()), err
	})
	end := time.Now()
	printLines(got)
	fmt.Printf("span %d %d\n", start.UnixNano(), end.UnixNano())
	stored := counting.stored.Load()
	if kind == "latest" {
		stored -= counting.writes.Load() // each transaction also puts 'latest'
	}
	fmt.Printf("calls %d %d %d\n", counting.total(), counting.races.Load(), counting.conflicts.Load())
	fmt.Printf("writes %d %d %d %d %d %d %d\n", counting.writes.Load(), stored, counting.queries.Load(),
		counting.writeNanos.Load(), counting.lostNanos.Load(), counting.queryNanos.Load(), int64(end.Sub(start)))
}

// lostRace reports whether err is a write refused because another writer
// got there first.
func lostRace(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	var tce *types.TransactionCanceledException
	return errors.As(err, &ccf) || errors.As(err, &tce)
}

// conflicted reports whether err is a write refused because of a
// transaction in flight, which returns no item.
func conflicted(err error) bool {
	var tc *types.TransactionConflictException
	var tce *types.TransactionCanceledException
	if errors.As(err, &tc) {
		return true
	}
	if errors.As(err, &tce) {
		for _, r := range tce.CancellationReasons {
			if r.Code != nil && *r.Code == "TransactionConflict" {
				return true
			}
		}
	}
	return false
}
