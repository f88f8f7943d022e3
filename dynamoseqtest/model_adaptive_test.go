package dynamoseqtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// floodItems puts 1-unit items at new sort keys of "hot" until the first
// throttle, and returns the write units admitted.
func (r *rig) floodItems(sk *int) float64 {
	r.t.Helper()
	before := r.srv.ModelStats().WriteUnits
	for range 100000 {
		*sk++
		_, err := r.c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(r.table), Item: skItem("hot", *sk)})
		if err != nil {
			require.True(r.t, throttled(err), "a put of the flood: got %v, want stored or throttled", err)
			break
		}
	}
	return r.srv.ModelStats().WriteUnits - before
}

// runItems moves the clock on by step and floods, for d, and returns the
// write units admitted.
func (r *rig) runItems(d, step time.Duration, sk *int) float64 {
	var units float64
	for range d / step {
		r.clock.Advance(step)
		units += r.floodItems(sk)
	}
	return units
}

// Split for heat: an item collection throttled for SplitAfter without
// pause has its capacity doubled, and again after as long, 50 then 100
// then 200 write units a second; a single hot item never splits.
func TestModelSplitForHeat(t *testing.T) {
	t.Parallel()
	const rate = 50
	svc := dynamoseqtest.Service{WriteUnits: rate, Burst: 100 * time.Millisecond, SplitAfter: 2 * time.Second}
	r := newRig(t, svc, skTable())
	var sk int
	r.floodItems(&sk) // hot from here
	for i, mult := range []float64{1, 2, 4} {
		got := r.runItems(2*time.Second, 50*time.Millisecond, &sk)
		t.Logf("window %d: %.0f write units in 2s", i, got)
		require.InDelta(t, 2*rate*mult, got, 0.1*2*rate*mult+5, "write units admitted in window %d of heat (x%v after %d splits)", i, mult, i)
	}

	one := newRig(t, svc, nil)
	one.flood(1000, "hot")
	got := one.run(4*time.Second, 50*time.Millisecond, "hot")
	require.InDelta(t, 4*rate, got, 5, "write units admitted in 4s of heat on one item: it cannot split")
}

// Burst credit: capacity a partition left unused is saved, up to
// BurstCredit of its rate, and spent when its bucket runs dry, at up to
// a partition's documented 1,000 write units a second.
func TestModelBurstCredit(t *testing.T) {
	t.Parallel()
	const rate = 100
	for _, tc := range []struct {
		credit time.Duration
		saved  float64 // after 10s idle
	}{
		{0, 0},
		{300 * time.Second, 10 * rate}, // AWS's 300s: all 10s of it
		{5 * time.Second, 5 * rate},    // capped at 5s of the rate
	} {
		t.Run(tc.credit.String(), func(t *testing.T) {
			t.Parallel()
			r := newRig(t, dynamoseqtest.Service{WriteUnits: rate, Burst: 100 * time.Millisecond, BurstCredit: tc.credit}, nil)
			r.flood(1000, "hot")
			r.clock.Advance(10 * time.Second) // idle: unused capacity
			first := r.run(500*time.Millisecond, 50*time.Millisecond, "hot")
			rest := r.run(2500*time.Millisecond, 50*time.Millisecond, "hot")
			t.Logf("credit %v: %.0f write units in the first 500ms, %.0f in the next 2.5s", tc.credit, first, rest)
			require.InDelta(t, 3*rate+tc.saved, first+rest, 12, "write units admitted in 3s after 10s idle: the rate and the credit saved")
			require.LessOrEqual(t, first, 1000*(0.5+0.1)+2, "write units admitted in 500ms: at most the partition's 1,000 a second, and 100ms of it at once")
		})
	}
}

// ShareCapacity: a partition key value's reads take from its writes'
// capacity, a read unit a third of a write unit, so that reads that use
// it all leave writes nothing; apart, each has its own.
func TestModelShareCapacity(t *testing.T) {
	t.Parallel()
	for _, shared := range []bool{false, true} {
		r := newRig(t, dynamoseqtest.Service{WriteUnits: 100, ReadUnits: 300, Burst: 100 * time.Millisecond, ShareCapacity: shared}, nil)
		r.flood(1000, "hot")
		r.floodReads("hot")
		before := r.srv.ModelStats()
		for range 40 {
			r.clock.Advance(50 * time.Millisecond)
			r.floodReads("hot")
			r.flood(1000, "hot")
		}
		after := r.srv.ModelStats()
		w := after.WriteUnits - before.WriteUnits
		reads := after.Operation("GetItem").ReadUnits - before.Operation("GetItem").ReadUnits
		t.Logf("shared %v: %.0f write and %.0f read units in 2s, reads first", shared, w, reads)
		require.InDelta(t, 600, reads, 5, "read units in 2s, reads first")
		if shared {
			require.LessOrEqual(t, w, 4.0, "write units in 2s after reads that used the shared capacity")
		} else {
			require.InDelta(t, 200, w, 3, "write units in 2s, apart from the reads")
		}
	}
}

// floodReads reads the 1 KB item key strongly (1 read unit) until the
// first throttle.
func (r *rig) floodReads(key string) {
	r.t.Helper()
	for range 100000 {
		_, err := r.c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(r.table), Key: sKey(key), ConsistentRead: aws.Bool(true)})
		if err != nil {
			require.True(r.t, throttled(err), "a read of the flood: got %v, want an item or a throttle", err)
			return
		}
	}
}
