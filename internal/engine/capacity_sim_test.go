package engine

import (
	"container/heap"
	"math/rand/v2"
	"testing"
	"time"
)

// The tests of this file run Capacity against a partition simulated on a
// clock of their own: a token bucket that admits a request when it holds
// the request's units (one costing more than the bucket holds when it is
// full) and takes them at once, as dynamoseqtest's service model does, at
// a rate that may change over time. One writer sends a batch of units at
// a time, as the hot name's run does with its callers all waiting, and
// follows what Capacity says after each answer.

// simPartition is the simulated partition: its rate a second at each
// point of the simulation (0 through an outage) and its depth in units,
// or, with burst set, the units of burst at its rate at the time, as
// dynamoseqtest's model does (Service.Burst with a Capacity schedule).
type simPartition struct {
	rate   func(at time.Duration) float64
	depth  float64
	burst  time.Duration
	tokens float64
	last   time.Duration
}

// depthAt is what the bucket holds at most at at.
func (p *simPartition) depthAt(at time.Duration) float64 {
	if p.burst > 0 {
		return p.rate(at) * p.burst.Seconds()
	}
	return p.depth
}

// fill brings the bucket up to at and returns its depth there.
func (p *simPartition) fill(at time.Duration) float64 {
	depth := p.depthAt(at)
	p.tokens = min(depth, p.tokens+p.rate(p.last)*(at-p.last).Seconds())
	p.last = at
	return depth
}

func (p *simPartition) admit(at time.Duration, units float64) bool {
	depth := p.fill(at)
	if depth > 0 && p.tokens >= min(units, depth) {
		p.tokens -= units
		return true
	}
	return false
}

// simHeap is the simulations' actors (names, writers) in the order they
// act in: a min-heap by when each acts next, as at says.
type simHeap[T any] struct {
	at    func(T) time.Duration
	items []T
}

func (h *simHeap[T]) push(x T) { heap.Push(h, x) }
func (h *simHeap[T]) pop() T   { return heap.Pop(h).(T) }

func (h *simHeap[T]) Len() int           { return len(h.items) }
func (h *simHeap[T]) Less(i, j int) bool { return h.at(h.items[i]) < h.at(h.items[j]) }
func (h *simHeap[T]) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *simHeap[T]) Push(x any)         { h.items = append(h.items, x.(T)) }
func (h *simHeap[T]) Pop() any {
	n := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return n
}

// simSend is one request of the simulated writer: when it was sent, and
// whether the partition admitted it.
type simSend struct {
	at       time.Duration
	admitted bool
}

// simulate runs the writer for d of the simulation's time, each write of
// units units answered after a latency drawn around latency (a refusal
// after a third of it), and returns its requests.
func simulate(p *simPartition, units float64, latency, d time.Duration, seed uint64) []simSend {
	rng := rand.New(rand.NewPCG(seed, 1))
	c := Capacity{Rand: func(n int64) int64 { return rng.Int64N(n) }}
	p.tokens, p.last = p.depthAt(0), 0
	var rtt time.Duration
	var sends []simSend
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for at := time.Duration(0); at < d; {
		lat := time.Duration(float64(latency) * (0.7 + 0.8*rng.Float64()))
		ok := p.admit(at+time.Duration(rng.Int64N(int64(time.Millisecond))), units) // on arrival, as the model
		sends = append(sends, simSend{at, ok})
		if !ok {
			w := c.Throttled(epoch.Add(at), rtt, units)
			at += lat/3 + w
			continue
		}
		if rtt == 0 {
			rtt = lat
		}
		rtt = (3*rtt + lat) / 4
		next := c.Won(epoch.Add(at), units)
		at += lat
		if n := next.Sub(epoch); !next.IsZero() && n > at {
			at = n
		}
	}
	return sends
}

// admittedShare is the units admitted from sends between from and to,
// over what the partition's rate gave meanwhile.
func admittedShare(p *simPartition, sends []simSend, units float64, from, to time.Duration) float64 {
	var got, gave float64
	for _, s := range sends {
		if s.admitted && s.at >= from && s.at < to {
			got += units
		}
	}
	const step = time.Millisecond
	for at := from; at < to; at += step {
		gave += p.rate(at) * step.Seconds()
	}
	return got / gave
}

func constant(r float64) func(time.Duration) float64 { return func(time.Duration) float64 { return r } }

// A hot name's batch of 32 units (16 items of a transaction) is paced at
// what the partition admits, whether its bucket holds 0.02, 0.1 or 1 s of
// its rate, at 1,000 units a second and 25ms a write, and at 300 and 83ms
// (the model at scale 0.3): at least 0.85 of the rate.
func TestCapacitySimDepths(t *testing.T) {
	for _, c := range []struct {
		rate    float64
		latency time.Duration
	}{{1000, 25 * time.Millisecond}, {300, 83 * time.Millisecond}} {
		for _, depth := range []time.Duration{20 * time.Millisecond, 100 * time.Millisecond, time.Second} {
			for seed := range uint64(3) {
				p := &simPartition{rate: constant(c.rate), depth: c.rate * depth.Seconds()}
				sends := simulate(p, 32, c.latency, 30*time.Second, seed)
				share := admittedShare(p, sends, 32, 5*time.Second, 30*time.Second)
				t.Logf("%v units/s, bucket %v, seed %d: %.3f of the rate, %d requests", c.rate, depth, seed, share, len(sends))
				if share < 0.85 {
					t.Errorf("%v units/s, bucket %v, seed %d: %.3f of the rate admitted, want at least 0.85", c.rate, depth, seed, share)
				}
			}
		}
	}
}

// stepped is a rate that follows steps: rates[i] from i*every.
func stepped(every time.Duration, rates ...float64) func(time.Duration) float64 {
	return func(at time.Duration) float64 { return rates[min(int(at/every), len(rates)-1)] }
}

// Capacity that steps up, 100 to 300 to 600 units a second every 5 s (as
// split for heat and burst credit do), and then down to 100, is found
// within 2 s of each step: at least 0.8 of it admitted over the 3 s after.
func TestCapacitySimSteps(t *testing.T) {
	const every = 5 * time.Second
	for _, depth := range []time.Duration{20 * time.Millisecond, 100 * time.Millisecond, time.Second} {
		for seed := range uint64(3) {
			p := &simPartition{rate: stepped(every, 100, 300, 600, 100), depth: 100 * depth.Seconds()}
			sends := simulate(p, 32, 25*time.Millisecond, 4*every, seed)
			for step := 1; step < 4; step++ {
				from := time.Duration(step)*every + 2*time.Second
				if share := admittedShare(p, sends, 32, from, from+3*time.Second); share < 0.8 {
					t.Errorf("bucket %v, seed %d, step %d: %.3f of the rate admitted from 2 s after the step, want at least 0.8", depth, seed, step, share)
				}
			}
		}
	}
}

// Through an outage of 8 s a name sends at most 5 requests a second, and
// once capacity is back it gets at least 0.85 of it from 1 s after.
func TestCapacitySimOutage(t *testing.T) {
	const every = 5 * time.Second
	for _, depth := range []time.Duration{20 * time.Millisecond, 100 * time.Millisecond, time.Second} {
		for seed := range uint64(3) {
			p := &simPartition{rate: func(at time.Duration) float64 {
				if at >= every && at < every+8*time.Second {
					return 0
				}
				return 300
			}, depth: 300 * depth.Seconds()}
			sends := simulate(p, 32, 25*time.Millisecond, 3*every+8*time.Second, seed)
			perSecond := map[time.Duration]int{}
			for _, s := range sends {
				// From the end of the bucket that the outage found.
				if s.at >= every+2*time.Second && s.at < every+8*time.Second {
					perSecond[s.at.Truncate(time.Second)]++
				}
			}
			for sec, n := range perSecond {
				if n > 5 {
					t.Errorf("bucket %v, seed %d: %d requests in the second from %v of the outage, want at most 5", depth, seed, n, sec-every)
				}
			}
			back := every + 8*time.Second
			if share := admittedShare(p, sends, 32, back+time.Second, back+4*time.Second); share < 0.85 {
				t.Errorf("bucket %v, seed %d: %.3f of the rate admitted from 1 s after the outage, want at least 0.85", depth, seed, share)
			}
		}
	}
}
