package engine

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// The tests of this file run Capacity as a hot name's run uses it, with
// batches of transactions, against the simulated partition of
// capacity_sim_test.go: 16 callers, each with one call at a time, all
// queued when a write goes, so that a batch holds 16 items (32 units, 34
// with Latest's 'latest' copy), answered after dynamoseqtest's model's
// published latencies. Beside the library, an oracle that knows the
// bucket sends each batch the moment the bucket admits it: the most a
// writer of one batch at a time can get.

// simWriter is a hot name's writer: callers items a batch, perItem units
// an item and extra units more a batch (Latest's 'latest' copy), at the
// model's latencies times slow (1/Scale), sending each batch when the
// last was answered, or later if Capacity paces it, or, as the oracle,
// as soon as the bucket admits it.
type simWriter struct {
	callers  int
	lone     bool // the first write is one caller's, alone, and the bucket starts empty
	maxItems int  // items a batch at most (the run's callers beyond wait for the next); 0: callers
	perItem  float64
	extra    float64
	slow     float64
	oracle   bool
}

// lognormal draws a duration of median p50 and 99th percentile p99,
// bounded at 4*p99, as dynamoseqtest's model draws its answer times.
func lognormal(rng *rand.Rand, p50, p99 time.Duration) time.Duration {
	sigma := math.Log(float64(p99)/float64(p50)) / 2.3263478740
	d := float64(p50) * math.Exp(sigma*rng.NormFloat64())
	return time.Duration(math.Min(d, 4*float64(p99)))
}

// transactLatency is the model's answer time of an admitted transaction
// of items items: 25ms at 5 items, 0.35ms more an item beyond, 95ms p99.
func (w simWriter) transactLatency(rng *rand.Rand, items int) time.Duration {
	p50 := 25*time.Millisecond + time.Duration(max(0, items-5))*350*time.Microsecond
	return time.Duration(w.slow * float64(lognormal(rng, p50, max(95*time.Millisecond, p50))))
}

// refusalLatency is the model's answer time of a refusal: a read's,
// 7.5ms, 16ms p99.
func (w simWriter) refusalLatency(rng *rand.Rand) time.Duration {
	return time.Duration(w.slow * float64(lognormal(rng, 7500*time.Microsecond, 16*time.Millisecond)))
}

// items is a batch's items.
func (w simWriter) items() int {
	if w.maxItems > 0 {
		return min(w.callers, w.maxItems)
	}
	return w.callers
}

func (w simWriter) units() float64 { return float64(w.items())*w.perItem + w.extra }

// run runs w on p for d of the simulation's time and returns its
// requests (simSend.at is when the batch reached the partition).
func (w simWriter) run(p *simPartition, d time.Duration, seed uint64) []simSend {
	rng := rand.New(rand.NewPCG(seed, 2))
	c := Capacity{Rand: func(n int64) int64 { return rng.Int64N(n) }}
	p.tokens, p.last = p.depthAt(0), 0
	units := w.units()
	var rtt time.Duration
	var sends []simSend
	if w.lone {
		// One caller first, alone, on a bucket that then is empty.
		one := w.perItem + w.extra
		p.admit(0, one)
		p.tokens = 0
		c.Won(epoch, one)
		rtt = w.transactLatency(rng, 1)
		sends = append(sends, simSend{0, true})
	}
	for at := rtt; at < d; {
		if w.oracle {
			at = p.admitsAt(at, units)
		}
		ok := p.admit(at, units)
		sends = append(sends, simSend{at, ok})
		if !ok {
			at += w.refusalLatency(rng) + c.Throttled(epoch.Add(at), rtt, units)
			continue
		}
		lat := w.transactLatency(rng, w.items())
		rtt = (3*max(rtt, lat) + lat) / 4
		next := c.Won(epoch.Add(at), units)
		at += lat
		if n := next.Sub(epoch); !w.oracle && !next.IsZero() && n > at {
			at = n
		}
	}
	return sends
}

// admitsAt is the first point from at when p admits a request of units
// (or at+1s, at most, through an outage).
func (p *simPartition) admitsAt(at time.Duration, units float64) time.Duration {
	for end := at + time.Second; at < end; at += 100 * time.Microsecond {
		depth := p.depthAt(at)
		tokens := min(depth, p.tokens+p.rate(p.last)*(at-p.last).Seconds())
		if depth > 0 && tokens >= min(units, depth) {
			break
		}
	}
	return at
}

// simShare is the numbers stored from sends between from and to over the
// ceiling of w's batches at p's rate meanwhile.
func (w simWriter) simShare(p *simPartition, sends []simSend, from, to time.Duration) float64 {
	return admittedShare(p, sends, w.units(), from, to)
}

// simKinds are the write patterns: SortKey's 16 puts and Latest's 16
// versions and 'latest', in one transaction.
var simKinds = []struct {
	name  string
	extra float64
}{{"SortKey", 0}, {"Latest", 2}}

// 16 callers on one hot name whose bucket holds 0.02, 0.1 or 1 s of its
// 1,000 units a second (300 and latencies 3.3 times longer: the model at
// Scale 0.3). From a bucket of 0.1 s the library gets at least 0.85 of
// the ceiling; at 0.02 s, where the bucket holds less than a batch and a
// transaction's answer often takes longer than the bucket's refill, a
// writer of one batch at a time gets no more than the oracle, about 0.82
// (SortKey) and 0.85 (Latest): the library gets at least 0.93 of the
// oracle's share at every depth.
func TestCapacitySimBatchDepths(t *testing.T) {
	for _, kind := range simKinds {
		for _, scale := range []float64{1, 0.3} {
			for _, burst := range []time.Duration{20 * time.Millisecond, 100 * time.Millisecond, time.Second} {
				lib, best := 9.0, 9.0
				for seed := range uint64(3) {
					rate, d := 1000*scale, time.Duration(60/scale)*time.Second
					share := func(oracle bool) float64 {
						w := simWriter{callers: 16, perItem: 2, extra: kind.extra, slow: 1 / scale, oracle: oracle}
						p := &simPartition{rate: constant(rate), burst: time.Duration(float64(burst) / scale)}
						return w.simShare(p, w.run(p, d, seed), d/10, d)
					}
					l, o := share(false), share(true)
					lib, best = min(lib, l), min(best, o)
					if l < 0.93*o || (burst >= 100*time.Millisecond && l < 0.85) {
						t.Errorf("%s, scale %v, bucket %v, seed %d: %.3f of the ceiling (the oracle %.3f), want at least 0.93 of the oracle's, and 0.85 from a bucket of 0.1 s", kind.name, scale, burst, seed, l, o)
					}
				}
				t.Logf("%s, scale %v, bucket %v: the library at least %.3f of the ceiling, the oracle %.3f", kind.name, scale, burst, lib, best)
			}
		}
	}
}

// 16 callers on one hot name whose capacity steps from 100 to 300 to 600
// units a second, 5 s each (and back to 100), whatever the bucket's depth:
// at least 0.8 of each step's ceiling from 2 s after it; also when the
// name's first write was one caller's alone and the bucket then empty (as
// make bench's steps row starts: that write's unit, taken for the refill
// the next batch waited for, made the estimate 3 units a second, and the
// writes 5 s apart).
func TestCapacitySimBatchSteps(t *testing.T) {
	const every = 5 * time.Second
	for _, kind := range simKinds {
		for _, burst := range []time.Duration{20 * time.Millisecond, 100 * time.Millisecond, time.Second} {
			for seed := range uint64(6) {
				w := simWriter{callers: 16, perItem: 2, extra: kind.extra, slow: 1, lone: seed >= 3}
				p := &simPartition{rate: stepped(every, 100, 300, 600, 100), burst: burst}
				sends := w.run(p, 4*every, seed)
				for step := 1; step < 4; step++ {
					from := time.Duration(step)*every + 2*time.Second
					if share := w.simShare(p, sends, from, from+3*time.Second); share < 0.8 {
						t.Errorf("%s, bucket %v, seed %d (alone first: %v), step %d: %.3f of the ceiling from 2 s after the step, want at least 0.8", kind.name, burst, seed, w.lone, step, share)
					}
				}
			}
		}
	}
}

// Through an outage of 8 s, 16 callers on one hot name send at most 5
// requests in any second of it, the first included, and from 1 s to 6 s
// after capacity is back they get at least 0.85 of the ceiling (0.7 where the round trip bounds it below
// that: a bucket of 0.02 s at 1,000 units a second, see
// TestCapacitySimBatchDepths); at 60 units a second (a batch every half
// second, as TestModelOutage), 600 and 1,000, which with a bucket of 1 s
// the writer meets without a throttle before the outage.
func TestCapacitySimBatchOutage(t *testing.T) {
	const from, to = 5 * time.Second, 13 * time.Second
	for _, base := range []float64{60, 600, 1000} {
		rate := func(at time.Duration) float64 {
			if at >= from && at < to {
				return 0
			}
			return base
		}
		for _, kind := range simKinds {
			for _, burst := range []time.Duration{20 * time.Millisecond, 100 * time.Millisecond, time.Second} {
				worst, least := 0, 9.0
				for seed := range uint64(5) {
					w := simWriter{callers: 16, perItem: 2, extra: kind.extra, slow: 1}
					p := &simPartition{rate: rate, burst: burst}
					sends := w.run(p, to+7*time.Second, seed)
					most, at := outageBurst(sends, from, to)
					worst = max(worst, most)
					if most > 5 {
						t.Errorf("%v units/s, %s, bucket %v, seed %d: %d requests in the second from %v of the outage, want at most 5", base, kind.name, burst, seed, most, at)
					}
					want := 0.85
					if base == 1000 && burst == 20*time.Millisecond {
						want = 0.7 // the round trip's bound
					}
					after := w.simShare(p, sends, to+time.Second, to+6*time.Second)
					least = min(least, after)
					if after < want {
						t.Errorf("%v units/s, %s, bucket %v, seed %d: %.3f of the ceiling from 1 s to 6 s after the outage, want at least %v", base, kind.name, burst, seed, after, want)
					}
				}
				t.Logf("%v units/s, %s, bucket %v: at most %d requests in a second of the outage; after it at least %.3f of the ceiling", base, kind.name, burst, worst, least)
			}
		}
	}
}

// A batch is not cut to what the bucket holds: with the model's
// latencies, SortKey's write of 16 callers' items capped at the 20 units
// of a 0.02 s bucket (9 items) goes one round trip at a time and gets
// less than the uncapped batch that waits for a full bucket, even when
// the oracle sends it. What bounds a hot name's share there is not the
// bucket's depth but the round trip that one batch at a time waits for.
func TestCapacitySimBatchCap(t *testing.T) {
	for seed := range uint64(3) {
		share := func(maxItems int, oracle bool) float64 {
			w := simWriter{callers: 16, maxItems: maxItems, perItem: 2, slow: 1, oracle: oracle}
			p := &simPartition{rate: constant(1000), burst: 20 * time.Millisecond}
			return w.simShare(p, w.run(p, 30*time.Second, seed), 3*time.Second, 30*time.Second)
		}
		capped, whole := share(9, true), share(0, false)
		t.Logf("seed %d: batches of 9 items (the oracle) %.3f of the ceiling, of 16 (the library) %.3f", seed, capped, whole)
		if capped >= whole {
			t.Errorf("seed %d: batches of 9 items, sent by the oracle, got %.3f of the ceiling, the library's of 16 %.3f: want less", seed, capped, whole)
		}
	}
}
