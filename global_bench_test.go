package dynamoseq_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// BenchmarkCounterNextMRECInterleaved alternates, call by call, the raw
// UpdateItem ADD and a Region-sliced Counter.Next (Region 1 of 2, whose
// update is SET if_not_exists plus the stride), as
// BenchmarkCounterNextInterleaved does for the plain Counter: slicing
// should cost nothing measurable. It reports each one's mean time per call
// and their ratio.
func BenchmarkCounterNextMRECInterleaved(b *testing.B) {
	client := dbtest.Client(b)
	table := dbtest.CounterTable(b, client)
	c, err := dynamoseq.NewCounter(client, table, inRegion([]string{"us-east-1", "eu-west-1"}, 0))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	raw := rawCounterNext(client, table)
	for i := range 3000 { // see BenchmarkCounterNext
		if _, err := raw(ctx, "warm-up-"+strconv.Itoa(i%16)); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Next(ctx, "warm-up-lib-"+strconv.Itoa(i%16)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	var rawTotal, libTotal time.Duration
	for range b.N {
		t0 := time.Now()
		if _, err := raw(ctx, "raw"); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := c.Next(ctx, "lib"); err != nil {
			b.Fatal(err)
		}
		rawTotal += t1.Sub(t0)
		libTotal += time.Since(t1)
	}
	b.ReportMetric(float64(rawTotal.Nanoseconds())/float64(b.N), "baseline-ns/call")
	b.ReportMetric(float64(libTotal.Nanoseconds())/float64(b.N), "dynamoseq-ns/call")
	b.ReportMetric(float64(libTotal)/float64(rawTotal), "dynamoseq/baseline")
}
