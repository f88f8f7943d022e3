package dynamoseqtest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// Capacity that steps up (as split for heat or burst capacity would make
// it) is admitted at each step's rate, on the model's clock: 50 write
// units a second times 1, 3 and 6.
func TestModelCapacitySteps(t *testing.T) {
	t.Parallel()
	const rate = 50
	r := newRig(t, dynamoseqtest.Service{WriteUnits: rate, Burst: 100 * time.Millisecond,
		Capacity: func(e time.Duration) float64 {
			switch {
			case e < 2*time.Second:
				return 1
			case e < 4*time.Second:
				return 3
			}
			return 6
		}}, nil)
	r.flood(1000, "hot") // the first request: the schedule's zero; the full bucket drained
	for i, mult := range []float64{1, 3, 6} {
		got := r.run(2*time.Second, 50*time.Millisecond, "hot")
		want := rate * mult * 2
		t.Logf("step %d: %.0f write units admitted in 2s, %.0f configured", i, got, want)
		// A step's first 50ms refill at the rate before it; what a bucket
		// of 100ms holds carries over.
		require.InDelta(t, want, got, rate*mult*0.15+rate*0.2, "write units admitted in step %d (x%v) of the schedule", i, mult)
	}
}

// An outage (capacity 0) throttles every request, with the partition's
// reason; when it ends the bucket refills from empty, at the rate.
func TestModelCapacityOutage(t *testing.T) {
	t.Parallel()
	const rate = 40
	r := newRig(t, dynamoseqtest.Service{WriteUnits: rate, Burst: 5 * time.Second,
		Capacity: func(e time.Duration) float64 {
			if e >= time.Second && e < 9*time.Second {
				return 0
			}
			return 1
		}}, nil)
	r.flood(1000, "hot")
	before := r.run(900*time.Millisecond, 100*time.Millisecond, "hot")
	require.InDelta(t, 0.9*rate, before, 1, "write units admitted in the 900ms before the outage")
	r.clock.Advance(200 * time.Millisecond)
	u, err := r.flood(1000, "hot")
	require.Zero(t, u, "write units admitted in the outage")
	require.Equal(t, "TableWriteKeyRangeThroughputExceeded", reason(err), "the reason of a throttle in the outage")
	during := r.run(7800*time.Millisecond, 200*time.Millisecond, "hot")
	require.Zero(t, during, "write units admitted in the outage")
	r.clock.Advance(100 * time.Millisecond) // 9s: the outage is over
	first, _ := r.flood(1000, "hot")
	require.Zero(t, first, "write units admitted at the outage's last instant: the 5s bucket was emptied")
	after := r.run(time.Second, 100*time.Millisecond, "hot")
	require.InDelta(t, rate, after, 1, "write units admitted in the second after the outage: refilled from empty at the rate")
}
