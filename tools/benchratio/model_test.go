package main

import (
	"strings"
	"testing"
)

const modelOut = `BenchmarkModel/counter/ondemand/writers=16/baseline-2 	 1	 3314917 ns/op	 300.0 capacity-wu/s	 100.6 ceiling-%	 300.0 ceiling-ops/s	 0 conflicts/op	 0 errors	 0 errors-%	 301.7 ops/s	 27.26 p50-ms	 939.5 p99-ms	 0.02210 throttled/op	 1.000 wu/number
BenchmarkModel/counter/ondemand/writers=16/dynamoseq-2 	 1	 3340757 ns/op	 300.0 capacity-wu/s	 99.78 ceiling-%	 300.0 ceiling-ops/s	 0 conflicts/op	 3 errors	 1 errors-%	 150.85 ops/s	 27.26 p50-ms	 1342 p99-ms	 0.02116 throttled/op	 1.000 wu/number
BenchmarkModel/counter/ondemand/writers=1/baseline-2 	 1	 3314917 ns/op	 40.0 ops/s	 12.0 ceiling-%
BenchmarkModel/counter/ondemand/writers=1/dynamoseq-2 	 1	 3314917 ns/op	 20.0 ops/s	 6.0 ceiling-%
BenchmarkModelProcesses/latest/provisioned/processes=4x4/baseline-2 	 1	 1 ns/op	 10.0 ops/s
BenchmarkModelProcesses/latest/provisioned/processes=4x4/dynamoseq-2 	 1	 1 ns/op	 25.0 ops/s
BenchmarkCounterNext/goroutines=1/baseline-2 	 100	 1000 ns/op
BenchmarkCounterNext/goroutines=1/dynamoseq-2 	 100	 1100 ns/op
`

// The model set comes first, each strategy's row beside its recipe's with
// the ratio and the share of the ceiling; the sweep apart; the DynamoDB
// Local set after it as before, without the model's rows.
func TestReportModelFirst(t *testing.T) {
	results, order, err := parse(strings.NewReader(modelOut))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	report(&b, results, order)
	out := b.String()
	for _, want := range []string{
		"300 write units a second",
		"writers=16  dynamoseq", "0.50x", "100%", "3.00",
		"processes=4x4  dynamoseq", "2.50x",
		"Writers sweep", "writers=1  dynamoseq",
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
