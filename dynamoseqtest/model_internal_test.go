package dynamoseqtest

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// At scale s capacities are multiplied by s and durations divided by it;
// what a bucket holds in units does not change.
func TestServiceScale(t *testing.T) {
	r, err := Service{Scale: 0.3}.rules()
	require.NoError(t, err)
	require.InDelta(t, 300, r.writeRate, 1e-9)
	require.InDelta(t, 900, r.readRate, 1e-9)
	require.InDelta(t, 1000, r.writeDepth, 1e-6)
	require.InDelta(t, 3000, r.readDepth, 1e-6)
	require.Equal(t, 25*time.Millisecond, r.write.P50)
	require.Equal(t, r.write, r.read, "reads default to the writes' figures")
	require.InDelta(t, float64(95*time.Millisecond)/0.3, float64(r.transact.P99), float64(time.Microsecond))
	require.Equal(t, 2000*time.Second, r.tokenWindow)
	r, err = Service{Scale: 0.5, SplitAfter: time.Second, BurstCredit: 300 * time.Second}.rules()
	require.NoError(t, err)
	require.Equal(t, 2*time.Second, r.splitAfter, "SplitAfter at scale 0.5")
	require.Equal(t, 600.0, r.credit, "BurstCredit at scale 0.5, in seconds")
	require.Equal(t, 500.0, r.maxWrite, "a partition's maximum at scale 0.5")

	d, err := Service{}.rules()
	require.NoError(t, err)
	require.Equal(t, rules{
		writeRate: 1000, readRate: 3000, writeDepth: 1000, readDepth: 3000, burst: 1, cancelledShare: 0.5,
		maxWrite: 1000, maxRead: 3000,
		write: defaultWriteLatency, read: defaultWriteLatency, transact: defaultTransactLatency,
		transactPerItem: 350 * time.Microsecond, tokenWindow: 10 * time.Minute, scale: 1,
	}, d)

	for _, bad := range []Service{
		{Scale: -1}, {WriteUnits: -1}, {Throttle: "7"}, {TableWriteUnits: -1}, {Conflicts: 1.5}, {SplitAfter: -1},
		{WriteLatency: Latency{P50: 2 * time.Millisecond, P99: time.Millisecond}},
	} {
		_, err := bad.rules()
		require.Error(t, err, "%+v", bad)
	}
}

// The drawn latencies have the median and 99th percentile asked for.
func TestLatencyDraws(t *testing.T) {
	m := &model{rules: rules{}, rnd: rand.New(rand.NewPCG(1, 2))}
	l := Latency{P50: 10 * time.Millisecond, P99: 40 * time.Millisecond}
	draws := make([]time.Duration, 20000)
	for i := range draws {
		draws[i] = m.draw(l, 0)
	}
	slices.Sort(draws)
	require.InEpsilon(t, float64(l.P50), float64(draws[len(draws)/2]), 0.05)
	require.InEpsilon(t, float64(l.P99), float64(draws[len(draws)*99/100]), 0.15)
	require.LessOrEqual(t, draws[len(draws)-1], 4*l.P99)
}

// A bucket admits what it holds, a request larger than it when full, and
// refills at its rate up to its depth.
func TestBucket(t *testing.T) {
	m := &model{rules: rules{burst: 0.5}}
	l := lane{b: &bucket{}, base: 10, factor: 1} // holds 5
	b := l.b
	now := time.Unix(0, 0)
	require.True(t, l.admits(5, m.refill(l, now)), "a full bucket of 5 refused 5 (tokens %v)", b.tokens)
	b.tokens -= 5
	require.False(t, l.admits(1, m.refill(l, now)), "an empty bucket admitted 1 (tokens %v)", b.tokens)
	require.True(t, l.admits(1, m.refill(l, now.Add(100*time.Millisecond))), "a bucket refilled for 100ms at 10 a second refused 1 (tokens %v)", b.tokens)
	m.refill(l, now.Add(time.Hour))
	require.Equal(t, 5.0, b.tokens, "up to its depth")
	require.True(t, l.admits(50, m.refill(l, now.Add(time.Hour))), "a request larger than the bucket when it is full")
	b.tokens -= 50
	require.False(t, l.admits(1, m.refill(l, now.Add(time.Hour+4*time.Second))), "in debt until refilled")
}

// The schedule multiplies the refill over time; at zero nothing is
// admitted and the bucket empties; burst credit saves what overflows.
func TestScheduleAndCredit(t *testing.T) {
	origin := time.Unix(0, 0)
	m := &model{origin: origin, rules: rules{burst: 1, scale: 1, credit: 10, capacity: func(e time.Duration) float64 {
		if e >= 2*time.Second && e < 4*time.Second {
			return 0
		}
		return 2
	}}}
	l := lane{b: &bucket{}, base: 10, factor: 1, burst: 80}
	require.Equal(t, 20.0, m.refill(l, origin), "depth: 1s of 10 a second, times 2")
	l.b.tokens = 0
	require.InDelta(t, 20, m.accrued(origin, origin.Add(time.Second), l.base), 1e-9, "a second at 2x")
	require.InDelta(t, 40, m.accrued(origin.Add(time.Second), origin.Add(5*time.Second), l.base), 1e-6, "4s: 1 at 2x, 2 at 0, 1 at 2x")
	m.refill(l, origin.Add(1500*time.Millisecond))
	require.Equal(t, 20.0, l.b.tokens, "full after 1.5s at 20 a second")
	require.InDelta(t, 10, l.b.credit, 1e-9, "what overflowed the bucket, saved")
	require.Zero(t, m.refill(l, origin.Add(3*time.Second)), "depth in the outage")
	require.False(t, l.admits(1, 0), "admitted in the outage")
	require.Zero(t, l.b.tokens, "the bucket empties in an outage")
	require.True(t, l.spends(5, m), "credit admits what the bucket refuses")
}

func TestItemSize(t *testing.T) {
	s := func(v string) *string { return &v }
	item := map[string]attr{
		"pk": {S: s("abc")},                           // 2 + 3
		"n":  {N: s("-00123.4500")},                   // 1 + (5 digits+1)/2 + 1 = 1 + 4
		"m":  {M: map[string]attr{"a": {S: s("xy")}}}, // 1 + 3 + (1 + 2 + 1)
		"l":  {L: []attr{{S: s("q")}}},                // 1 + 3 + (1 + 1)
		"b":  {B: []byte{1, 2, 3}},                    // 1 + 3
	}
	require.Equal(t, 5+5+8+6+4, itemSize(item))
	require.Equal(t, 1.0, writeUnits(1024))
	require.Equal(t, 2.0, writeUnits(1025))
	require.Equal(t, 0.5, readUnits(4096, false))
	require.Equal(t, 2.0, readUnits(4097, true))
}
