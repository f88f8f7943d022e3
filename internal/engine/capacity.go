// The capacity a name's writes get: what DynamoDB admitted of them, learned
// from its answers, and the pace and the waits that follow from it.

package engine

import (
	"math/rand/v2"
	"time"

	"github.com/dynamoseq/dynamoseq/internal/backoff"
)

// Units is the write units of an item of bytes bytes as DynamoDB charges a
// standard write: one per KB, rounded up, at least one. A transaction
// charges twice that, a constant factor the estimates below do not need.
func Units(bytes int) float64 {
	return float64(max(1, (bytes+1023)/1024))
}

// RefusedGap caps the wait between two sends of a write that DynamoDB
// refuses again and again when the refill it has shown is quicker than
// that (see Capacity.Throttled). Each wait is drawn from the upper half of
// its ceiling, so a name sends at most 2/RefusedGap requests a second (5)
// while every one is refused, as through an outage, and one within
// RefusedGap once capacity is back. It is the library's own bound on a
// storm, not a figure of the service: a partition that has shown a slower
// refill is waited for as long as its refill takes.
const RefusedGap = 400 * time.Millisecond

// The estimate of the admitted rate and the pace (see Capacity): an
// admitted write after a refusal moves the estimate 1/rateGain of the way
// to the rate its interval showed (see Won). The writes of a name that DynamoDB throttled lately
// are paced at the estimate times 1+probe*2^k, k being the writes admitted
// in a row (at most maxProbes), so that capacity that grows is found
// within a few writes and a steady one is probed little. The first wait
// after a throttle is firstShare of the refill of the refused units (it
// doubles per refusal in a row). pacedWrites writes in a row that are not
// refused end the pacing. Chosen on capacity_sim_test.go's simulated
// partitions (buckets of 0.01 to 1 s, 300 to 1,000 units a second, steps
// and an outage).
const (
	rateGain     = 4
	probe        = 0.01
	maxProbes    = 5
	firstShare   = 1.0 / 16
	pacedWrites  = 16
	overestimate = 4
	// afterOutage is the share of the estimate from before an outage
	// (refusals at the waits' cap) that the write after the first one
	// admitted is paced at, once: a little under it, so that a partition
	// whose rate came back as it was admits it without a refusal.
	afterOutage = 0.95
)

// minCapacityBase is the first wait's ceiling before any round trip was
// measured.
const minCapacityBase = time.Millisecond

// Capacity is what one name's writer has learned of the capacity DynamoDB
// admits its writes at, and the waits that follow from it. Before the
// first throttle it costs nothing and delays nothing. From then on it
// estimates the rate at which the partition admitted the name's write
// units (from the units of each admitted write and the time since the
// one before), and:
//   - paces the writes (Won): the next write starts no earlier than the
//     units just written take to refill at the estimate (times probe), so
//     that it finds them refilled instead of being refused, whatever the
//     depth of the partition's bucket, which DynamoDB does not publish;
//   - waits after a throttle (Throttled) about the time the refused
//     write's units take to refill at the estimate, doubling per refusal
//     in a row, at most RefusedGap unless the refill is slower, drawn from
//     the upper half of that ceiling;
//   - waits after a conflict (Conflict) from about one round trip,
//     doubling, with full jitter: another transaction held the items,
//     which says nothing of capacity.
//
// The zero Capacity has seen no refusal. It is not safe for concurrent
// use: it belongs to the one writer of a name at a time.
type Capacity struct {
	streak int     // refusals in a row
	rate   float64 // the admitted write units a second, estimated; 0: none yet
	paced  int     // admitted writes still to pace (pacedWrites after a throttle)
	probes int     // admitted writes in a row, none refused in between
	// The last admitted write: when it was sent and its units; and when
	// the last write refused since was sent (zero if none was).
	wonAt, refusedAt time.Time
	wonUnits         float64
	capped           bool    // a wait since reached its cap (RefusedGap, or the refill)
	sampled          bool    // a refill was bracketed (see sample)
	before           float64 // the estimate an outage lowered, tried once (see sample)
	// Rand is backoff.Policy.Rand; nil means rand.Int64N.
	Rand func(n int64) int64
}

// Won records a write of units write units that DynamoDB admitted, sent
// at start, and returns when the name's next write may start: the zero
// time while DynamoDB has not throttled the name lately.
//
// The estimate: the partition refilled the last admitted write's units
// between its send and this one's, in no more time than passed between
// them, and, if a write was refused in between, refilled this one's
// units in more than passed until that one and no more than until this
// one; the estimate moves 1/rateGain of the way to the rate of the
// middle of those bounds (or to that rate, if it is under half of the
// estimate), at most the rate of the lower bound, or, with no refusal,
// up to the rate of the bound if it is higher.
func (c *Capacity) Won(start time.Time, units float64) time.Time {
	saturated := c.streak > 0 || c.paced > 0
	c.streak = 0
	if saturated && c.rate > 0 && !c.wonAt.IsZero() {
		c.sample(start, units)
	}
	if c.refusedAt.IsZero() {
		c.probes = min(c.probes+1, maxProbes)
	} else {
		c.probes = 0
	}
	c.wonAt, c.wonUnits, c.refusedAt, c.capped = start, units, time.Time{}, false
	if c.paced == 0 || c.rate <= 0 {
		return time.Time{}
	}
	c.paced--
	rate := c.rate * (1 + probe*float64(int(1)<<c.probes))
	if c.before > rate {
		rate, c.before = c.before*afterOutage, 0 // the rate from before an outage, once
	}
	return start.Add(seconds(units / rate))
}

// sample moves the estimate by what the write of units sent at start,
// admitted, says of it (see Won).
func (c *Capacity) sample(start time.Time, units float64) {
	hi := start.Sub(c.wonAt).Seconds()
	if hi <= 0 {
		return
	}
	if c.refusedAt.IsZero() {
		c.rate = max(c.rate, c.wonUnits/hi) // a bound the partition has shown
		return
	}
	// The refill the refusal waited for: of this write's units, the
	// write that waited (not the last admitted one's: a lone call's
	// write before a batch of 16 would read as a refill of one unit, a
	// batch's before a lone call's as one of 16).
	lo := max(0, c.refusedAt.Sub(c.wonAt).Seconds())
	r := units / ((lo + hi) / 2)
	if r < c.rate/2 && c.capped {
		// Refused until the waits reached their cap: an outage or a
		// stall, which says little of the rate once it is over, or
		// capacity that fell far. The estimate drops by a quarter, so
		// that one that fell far is found in a few writes, and the
		// next write tries the rate from before once (Won), so that
		// after an outage it is found again in one.
		c.before = max(c.before, c.rate)
		c.rate *= 3.0 / 4
		return
	}
	c.sampled = true
	switch {
	case r < c.rate/2:
		c.rate = r // an estimate far too high: the first one
	default:
		c.rate += (r - c.rate) / rateGain
	}
	if lo > 0 {
		// The refusal shows the units did not refill in lo: the rate
		// is below units/lo, whatever the estimate was.
		c.rate = min(c.rate, units/lo)
	}
}

// Throttled counts one more refusal for want of capacity of a write of
// units write units, sent at start, whose round trip is rtt as measured
// (0 when none was), and returns the wait before it is sent again. With
// units 0 (a request whose writes are not paced: the Counter's updates,
// the read methods' reads) the wait is a conflict's, from the round trip.
func (c *Capacity) Throttled(start time.Time, rtt time.Duration, units float64) time.Duration {
	c.streak++
	if units <= 0 {
		return c.jittered(rtt) // a request outside the pace: see Throttled's doc
	}
	c.paced = pacedWrites
	c.refusedAt, c.before = start, 0
	if c.rate <= 0 && rtt > 0 {
		// The first throttle: the name was sending about a write a
		// round trip, a little over what the partition admits. The
		// estimate starts above that, at overestimate times it: one too
		// high comes down by halves, one too low climbs by the probe.
		c.rate = overestimate * units / rtt.Seconds()
	}
	if !c.sampled {
		// The estimate is a guess until an admitted write after a
		// refusal has bracketed the refill: wait from the round trip.
		// Refusals that go on at the waits' cap, three in a row, are
		// an outage or a stall (see sample), not a refill that takes a
		// few round trips; at the cap the waits are drawn from its
		// upper half, as below.
		base := max(rtt, minCapacityBase)
		c.capped = c.capped || doubled(base, c.streak-3)
		if doubled(base, c.streak-1) {
			return RefusedGap/2 + c.draw(RefusedGap/2)
		}
		return c.jittered(rtt)
	}
	refill := seconds(units / c.rate)
	limit := max(RefusedGap, refill)
	first := seconds(units / c.rate * firstShare)
	ceiling := limit
	if shift := c.streak - 1; shift < 62 && first < limit>>shift {
		ceiling = first << shift
	} else {
		c.capped = true
	}
	return ceiling/2 + c.draw(ceiling/2)
}

// doubled reports whether base doubled n times reaches RefusedGap.
func doubled(base time.Duration, n int) bool {
	return n >= 0 && (n > 62 || base >= RefusedGap>>n)
}

// Conflict counts one more refusal for a conflict with another
// transaction, and returns the wait before the write is sent again: drawn
// from [0, one round trip (rtt) times 2^(refusals in a row - 1)], at most
// RefusedGap.
func (c *Capacity) Conflict(rtt time.Duration) time.Duration {
	c.streak++
	return c.jittered(rtt)
}

// jittered is the wait after the refusals counted: full jitter from one
// round trip, doubling, at most RefusedGap.
func (c *Capacity) jittered(rtt time.Duration) time.Duration {
	p := backoff.Policy{Base: max(rtt, minCapacityBase), Max: RefusedGap, Rand: c.Rand}
	return p.Delay(c.streak)
}

// draw returns a uniform duration in [0, d].
func (c *Capacity) draw(d time.Duration) time.Duration {
	random := c.Rand
	if random == nil {
		random = rand.Int64N
	}
	return time.Duration(random(int64(d) + 1))
}

// Reset records a success of a request outside the name's writes' pace
// (the Counter's updates): the next refusal waits as the first did.
func (c *Capacity) Reset() { c.streak = 0 }

// Streak is how many refusals in a row were counted.
func (c *Capacity) Streak() int { return c.streak }

// Rate is the admitted write units a second estimated; 0 before the
// first throttle.
func (c *Capacity) Rate() float64 { return c.rate }

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
