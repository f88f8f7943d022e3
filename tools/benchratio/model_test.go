package main

import (
	"strings"
	"testing"
)

const modelOut = `BenchmarkModel/counter/ondemand/writers=16/burst=20ms/seed=1/baseline-2 	 1	 3314917 ns/op	 1000 capacity-wu/s	 100.6 ceiling-%	 1000 ceiling-ops/s	 0 conflicts/op	 0 errors	 0 errors-%	 1000 ops/s	 1.000 numbers/wu	 27.26 p50-ms	 939.5 p99-ms	 0.02210 throttled/op	 1.000 wu/number
BenchmarkModel/counter/ondemand/writers=16/burst=20ms/seed=1/dynamoseq-2 	 1	 3340757 ns/op	 1000 capacity-wu/s	 10.00 ceiling-%	 20000 ceiling-ops/s	 0 conflicts/op	 3 errors	 1 errors-%	 2000 ops/s	 20.00 numbers/wu	 27.26 p50-ms	 1342 p99-ms	 0.02116 throttled/op	 0.05 wu/number
BenchmarkModel/counter/ondemand/writers=16/burst=1s/seed=1/baseline-2 	 1	 3314917 ns/op	 1000 capacity-wu/s	 100.6 ceiling-%	 1000 ceiling-ops/s	 1000 ops/s	 1.000 numbers/wu	 2 errors
BenchmarkModel/counter/ondemand/writers=16/burst=1s/seed=1/dynamoseq-2 	 1	 3340757 ns/op	 1000 capacity-wu/s	 12.00 ceiling-%	 20000 ceiling-ops/s	 3000 ops/s	 20.00 numbers/wu	 4 errors
BenchmarkModel/counter/ondemand/writers=1/burst=20ms/seed=1/baseline-2 	 1	 3314917 ns/op	 40.0 ops/s	 12.0 ceiling-%
BenchmarkModel/counter/ondemand/writers=1/burst=20ms/seed=1/dynamoseq-2 	 1	 3314917 ns/op	 20.0 ops/s	 6.0 ceiling-%
BenchmarkModelProcesses/latest/provisioned/processes=4x4/burst=20ms/seed=1/baseline-2 	 1	 1 ns/op	 10.0 ops/s
BenchmarkModelProcesses/latest/provisioned/processes=4x4/burst=20ms/seed=1/dynamoseq-2 	 1	 1 ns/op	 25.0 ops/s
BenchmarkModelProcesses/counter/ondemand/processes=4x4/burst=20ms/seed=1/baseline-2 	 1	 1 ns/op	 10.0 ops/s	 100 p99-ms
BenchmarkModelProcesses/counter/ondemand/processes=4x4/burst=20ms/seed=1/dynamoseq-2 	 1	 1 ns/op	 25.0 ops/s	 3964 p99-ms
BenchmarkCounterNext/goroutines=1/baseline-2 	 100	 1000 ns/op
BenchmarkCounterNext/goroutines=1/dynamoseq-2 	 100	 1100 ns/op
`

// The model set comes first, each strategy's row beside its recipe's,
// every figure the median and the range of its windows (bucket depths and
// seeds), the ratio window by window; the sweep apart; then the numbers a
// second by depth; the DynamoDB Local set after it as before, without the
// model's rows.
func TestReportModelFirst(t *testing.T) {
	results, order, err := parse(strings.NewReader(modelOut))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	report(&b, results, order)
	out := b.String()
	for _, want := range []string{
		"1000 write units a second", "bucket depths 20ms, 1s",
		"writers=16  dynamoseq  2500 (2000-3000)", "20.00", "2.50x (2.00-3.00x)", "11.00% (10.00-12.00%)", "7",
		"processes=4x4  dynamoseq", "2.50x",
		"Writers sweep", "writers=1  dynamoseq",
		"at each bucket depth", "2000  3000",
		"from 16 goroutines in one process: counter ondemand 2.95x", // 3964 / 1342, the one window of 16 goroutines with a p99
		"On DynamoDB Local:", "BenchmarkCounterNext/goroutines=1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report has no %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "Writers sweep") > strings.Index(out, "On DynamoDB Local:") {
		t.Errorf("the model set is not first:\n%s", out)
	}
	local := out[strings.Index(out, "On DynamoDB Local:"):]
	if strings.Contains(local, "BenchmarkModel") {
		t.Errorf("the model's rows are in the DynamoDB Local set:\n%s", local)
	}
}

// Output without bucket depths and seeds (before they were in the names)
// reads as one window per row.
func TestReportModelOneWindow(t *testing.T) {
	in := "BenchmarkModel/sortkey/ondemand/writers=16/baseline-2 \t 1\t 1 ns/op\t 40 ops/s\n" +
		"BenchmarkModel/sortkey/ondemand/writers=16/dynamoseq-2 \t 1\t 1 ns/op\t 130 ops/s\n"
	results, order, err := parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	report(&b, results, order)
	if out := strings.Join(strings.Fields(b.String()), " "); !strings.Contains(out, "writers=16 dynamoseq 130 - 3.25x") {
		t.Errorf("report of one window per row: want 130 numbers a second, 3.25x; got\n%s", out)
	}
}

// The rows of BenchmarkModelShapes are printed apart, with their own
// metrics, and not among the one-name rows.
func TestReportModelShapes(t *testing.T) {
	in := modelOut +
		"BenchmarkModelShapes/sortkey/ondemand/outage=3s/burst=20ms/seed=1/baseline-2 \t 1\t 1 ns/op\t 0 ops/s\t 40 outage-req/s\t 900 recover-ms\n" +
		"BenchmarkModelShapes/sortkey/ondemand/outage=3s/burst=20ms/seed=1/dynamoseq-2 \t 1\t 1 ns/op\t 100 ops/s\t 2.5 outage-req/s\t 300 recover-ms\n"
	results, order, err := parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	report(&b, results, order)
	out := b.String()
	shapes := strings.Index(out, "Shapes (")
	if shapes < 0 {
		t.Fatalf("the report has no shapes table:\n%s", out)
	}
	if got := strings.Join(strings.Fields(out[shapes:]), " "); !strings.Contains(got, "outage=3s dynamoseq - - - 2.50 - - 300") {
		t.Errorf("shapes table: want the library's 2.50 requests a second and 300 ms; got\n%s", out[shapes:])
	}
	if strings.Count(out, "outage=3s") != 2 {
		t.Errorf("the outage row is printed outside the shapes table:\n%s", out)
	}
}
