// The capacity a name's writes get: what DynamoDB admitted of them, learned
// from its answers, and the pace and the waits that follow from it
// (Capacity); the table's write budget, which its names share in turns
// once a ceiling they share refused them (Share); and a run's pace between
// the two (Pace, before and after each write).

package engine

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
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
// its ceiling, and the first quick ones count toward the same bound
// (refusedBurst), so a name sends at most 2/RefusedGap requests (5) in
// any second while every one is refused, as through an outage, from the
// first refusal on, and one within RefusedGap once capacity is back. It is
// the library's own bound on a storm, not a figure of the service: a
// partition that has shown a slower refill is waited for as long as its
// refill takes.
const RefusedGap = 400 * time.Millisecond

// refusedBurst is how many sends of a write refused in a row go in any
// refusedBurst*RefusedGap/2 (1 s) at most (see Capacity.Throttled): a
// throttle is retried quickly, from a share of the refill, but each wait
// is at least twice the time since the first refusal in a row (at most
// RefusedGap/2), so that the five sends of the first second reach from
// a few milliseconds to most of it, and the sixth within a second, an
// outage's or a refill far slower than shown, waits until a second has
// passed since the first of the last five.
const refusedBurst = 5

// refusals is the send times of a write's refusals in a row, which bound
// its next send (see refusedBurst). The zero refusals has none.
type refusals struct {
	at    [refusedBurst]time.Time // the last ones: the n-th sent at at[n%refusedBurst]
	n     int                     // refusals in a row recorded
	first time.Time               // the first one's send
}

// refused records the refusal of a write sent at start, the first of a
// row if first (none since one was admitted), and returns the least wait
// from start before its next send that keeps refusedBurst sends in any
// second (0 before refusedBurst of them) and the time since the first.
func (r *refusals) refused(start time.Time, first bool) (least, since time.Duration) {
	if first {
		r.n, r.first = 0, start
	}
	r.at[r.n%refusedBurst] = start
	if r.n++; r.n >= refusedBurst {
		least = r.at[r.n%refusedBurst].Add(refusedBurst * RefusedGap / 2).Sub(start)
	}
	return least, start.Sub(r.first)
}

// The estimate of the admitted rate and the pace (see Capacity): an
// admitted write after a refusal moves the estimate 1/rateGain of the way
// to the rate its interval showed (see Won). The writes of a name that
// DynamoDB throttled lately are paced at the estimate times 1+probe*2^k,
// k being the writes admitted in a row (at most maxProbes), so that
// capacity that grows is found within a few writes and a steady one is
// probed little. The first wait after a throttle is firstShare of the
// refill of the refused units (it doubles per refusal in a row).
// pacedWrites writes in a row that are not refused end the pacing. Chosen
// on capacity_sim_test.go's simulated partitions (buckets of 0.01 to 1 s,
// 300 to 1,000 units a second, steps and an outage).
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
// estimates the partition's admitted rate of the name's write units and
// paces the writes at it (Won), so that each finds the last one's units
// refilled whatever the depth of the bucket, which DynamoDB does not
// publish; after a throttle it waits about the refused units' refill,
// doubling, at most RefusedGap unless the refill is slower (Throttled);
// after a conflict, from a round trip with full jitter (Conflict).
// docs/capacity.md has the mechanism.
//
// The zero Capacity has seen no refusal. It is not safe for concurrent
// use: it belongs to the one writer of a name at a time.
type Capacity struct {
	streak   int      // refusals in a row
	conflict bool     // the last refusal was a conflict's (Conflict; Throttled, Shared clear it)
	est      estimate // the admitted write units a second
	paced    int      // admitted writes still to pace (pacedWrites after a throttle)
	probes   int      // admitted writes in a row, none refused in between
	// The last admitted write: when it was sent and its units; and when
	// the last write refused since was sent (zero if none was).
	wonAt, refusedAt time.Time
	wonUnits         float64
	capped           bool    // a wait since reached its cap (RefusedGap, or the refill)
	before           float64 // the estimate an outage lowered, tried once (see sample)
	// Rand is backoff.Policy.Rand; nil means rand.Int64N.
	Rand func(n int64) int64

	refusals refusals // the last sends refused in a row (see Throttled)
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
	if saturated && c.est.rate > 0 && !c.wonAt.IsZero() {
		c.sample(start, units)
	}
	if c.refusedAt.IsZero() {
		c.probes = min(c.probes+1, maxProbes)
	} else {
		c.probes = 0
	}
	c.wonAt, c.wonUnits, c.refusedAt, c.capped = start, units, time.Time{}, false
	if c.paced == 0 || c.est.rate <= 0 {
		return time.Time{}
	}
	c.paced--
	rate := c.est.rate * (1 + probe*float64(int(1)<<c.probes))
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
		c.est.raise(c.wonUnits, hi) // a bound the partition has shown
		return
	}
	// The refill the refusal waited for: of this write's units, the
	// write that waited (not the last admitted one's: a lone call's
	// write before a batch of 16 would read as a refill of one unit, a
	// batch's before a lone call's as one of 16).
	lo := max(0, c.refusedAt.Sub(c.wonAt).Seconds())
	r := units / ((lo + hi) / 2)
	if r < c.est.rate/2 && c.capped {
		// Refused until the waits reached their cap: an outage or a
		// stall, which says little of the rate once over, or capacity
		// that fell far. Down by a quarter, one that fell far is found
		// in a few writes; the next write tries the rate from before
		// once (Won), which finds it again in one after an outage.
		c.before = max(c.before, c.est.rate)
		c.est.rate *= 3.0 / 4
		return
	}
	c.est.move(r, 1.0/2, rateGain) // under half: an estimate far too high, the first one
	c.est.measured = true
	if lo > 0 {
		// The refusal shows the units did not refill in lo: the rate
		// is below units/lo, whatever the estimate was.
		c.est.rate = min(c.est.rate, units/lo)
	}
}

// Lined records that the name's write waited for its slot in its table's
// line (see Share) since the name's last admitted write: the time until
// the write is admitted is the other names' turns, not the partition's
// refill, and Won takes no sample of the estimate from it (a name refused
// at a ceiling of unknown scope before the line started, then admitted a
// round of the line later, read as a partition of 4 units a round and
// was paced at that on top of its slots).
func (c *Capacity) Lined() { c.wonAt = time.Time{} }

// Throttled counts one more refusal for want of capacity of a write of
// units write units, sent at start, whose round trip is rtt as measured
// (0 when none was), and returns the wait before it is sent again, from
// the refusal's answer: long enough that at most refusedBurst sends of
// the write refused in a row go in any second (see RefusedGap). With
// units 0 (a request whose writes are not paced: the Counter's updates,
// the read methods' reads) the wait is a conflict's, from the round trip.
func (c *Capacity) Throttled(start time.Time, rtt time.Duration, units float64) time.Duration {
	c.conflict = false
	wait := c.refill(start, rtt, units)
	if units <= 0 {
		return wait
	}
	// The first throttle since a write was admitted (conflicts may
	// have come before it in the streak).
	first := c.streak <= 1 || c.wonAt.After(c.refusals.first)
	least, since := c.refusals.refused(start, first)
	return max(wait, least, min(2*since, RefusedGap/2))
}

// refill is Throttled's wait before the bound of refusedBurst: from a
// share of the refill of the refused units, doubling.
func (c *Capacity) refill(start time.Time, rtt time.Duration, units float64) time.Duration {
	c.streak++
	if units <= 0 {
		return c.jittered(rtt) // a request outside the pace: see Throttled's doc
	}
	c.paced = pacedWrites
	c.refusedAt, c.before = start, 0
	if c.est.rate <= 0 && rtt > 0 {
		// The first throttle: the name was sending about a write a
		// round trip, a little over what the partition admits. The
		// estimate starts above that, at overestimate times it: one too
		// high comes down by halves, one too low climbs by the probe.
		c.est.guess(overestimate * units / rtt.Seconds())
	}
	if !c.est.measured {
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
	refill := seconds(units / c.est.rate)
	limit := max(RefusedGap, refill)
	first := seconds(units / c.est.rate * firstShare)
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
	c.conflict = true
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

// Shared records that the table's share took a refusal of the name's
// write (a throttle at a ceiling its names share, which Share.Throttled
// counts, not Capacity): the last refusal is no longer a conflict's.
func (c *Capacity) Shared() { c.conflict = false }

// Reset records a success of a request outside the name's writes' pace
// (the Counter's updates): the next refusal waits as the first did.
func (c *Capacity) Reset() { c.streak = 0 }

// Streak is how many refusals in a row were counted.
func (c *Capacity) Streak() int { return c.streak }

// Rate is the admitted write units a second estimated; 0 before the
// first throttle.
func (c *Capacity) Rate() float64 { return c.est.rate }

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// estimate is an admitted rate of write units, learned from the writes
// DynamoDB admitted between refusals, which found the bucket empty: one
// write of a name for a Capacity (see Capacity.Won), the table's writes
// between two shared throttles for a Share (see Share.sample). The zero
// estimate has none.
type estimate struct {
	rate     float64 // write units a second; 0: none yet
	measured bool    // a bracket measured rate; until then it is a guess
}

// guess sets a first estimate, r, that no bracket measured.
func (e *estimate) guess(r float64) { e.rate, e.measured = r, false }

// raise raises the estimate to units admitted over span seconds, a rate
// DynamoDB has shown; a span of 0 or less shows none.
func (e *estimate) raise(units, span float64) {
	if span > 0 {
		e.rate = max(e.rate, units/span)
	}
}

// move moves the estimate toward r, a bracket's rate: all of the way if
// there was none or r is under below times it, else 1/gain of the way.
func (e *estimate) move(r, below, gain float64) {
	if e.rate <= 0 || r < e.rate*below {
		e.rate = r
	} else {
		e.rate += (r - e.rate) / gain
	}
}

// sampleWrites is how many admitted writes a sample of the table's admitted
// rate takes at least (see Share): fewer say more of the bucket's depth
// and of chance than of the rate.
const sampleWrites = 8

// Share is one table's write budget in one process, shared by its names.
// It costs nothing until a ceiling the names share refuses a write: a
// throttle whose reasons say so (ScopeShared), or one of unknown scope (a
// cancelled transaction's) within RefusedGap of another name's. From then
// on every write of the table takes a slot in one line (Take), handed in
// the order asked, each as long as its units take at the table's admitted
// rate, estimated (see sample): each name writing gets its turn, about
// rate/names, instead of the names refused at random starving. A write
// refused meanwhile, unless at its key's or a read's limit, takes the
// line's next slot on its name's first refusal in a row, else the end of
// the line (Throttled, requeue): at most 5 requests a second per name
// while the table refuses everything. The line ends after pacedWrites
// slots per name without a shared throttle. Other throttles are left to
// the name's Capacity, as are all of a name whose writes were the table's
// last sampleWrites: a single hot name pays nothing. docs/capacity.md has
// the mechanism.
//
// A Share is safe for concurrent use; a name's Seat belongs to the one
// writer of the name at a time (see NameWriter). The zero Share is ready.
type Share struct {
	mu sync.Mutex // protects the fields below and the Seats passed in

	est   estimate  // the table's admitted write units a second; a guess Admitted raises
	next  time.Time // the end of the line: when the next slot may start
	on    bool      // a shared ceiling refused a write lately: writes take slots
	left  int       // slots to hand before the line ends
	gen   int       // counts shared throttles: a Seat that took a slot since holds gen
	seen  int       // names that took a slot in this bracket (see below)
	prev  int       // names that took slots in the bracket before
	k     int       // rounds of slots handed since the last shared throttle, at most maxProbes
	slots int       // slots handed in this round
	mean  float64   // the units of a slot, a moving average

	// The bracket: the units admitted since the last shared throttle
	// that closed one (see sample), which counts the brackets.
	bracket      int
	since        time.Time
	units        float64
	writes       int
	won          time.Time // when the last admitted write was sent
	win          time.Time // the window of the probe: units admitted since win
	winUnits     float64
	winWrites    int
	lastRefusals map[*Seat]time.Time // throttles of unknown scope lately, per name
	held         map[*Seat]bool      // the seats holding a slot (see hold)
	lastSeat     *Seat               // the name of the last admitted write
	soloRun      int                 // admitted writes in a row of lastSeat's name
}

// Seat is what the Share knows of one name's writes: the slot it holds
// and its refusals in a row. It belongs to the name's NameWriter; the
// zero Seat holds no slot.
type Seat struct {
	at      time.Time // the slot held: when the name's next write may go; zero: none
	units   float64   // the units it was asked for
	gen     int       // Share.gen when it last took a slot
	bracket int       // Share.bracket when it last took a slot
	streak  int       // shared refusals in a row
	lined   bool      // a write waited for a slot since the last admitted one
}

// Take asks for a slot for a write of units units that the name of seat
// would send now, and returns when it may be sent: the zero time (at once)
// while no shared ceiling has refused a write lately. A later time is a
// slot held: the name's write waits for it, and the Take then (by the
// same seat) lets it go, charging the line for the units it has grown by
// meanwhile.
func (s *Share) Take(seat *Seat, now time.Time, units float64) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.on {
		s.hold(seat, time.Time{}, 0)
		return time.Time{}
	}
	if !seat.at.IsZero() {
		if now.Before(seat.at) {
			return seat.at
		}
		if extra := units - seat.units; extra > 0 {
			s.next = later(s.next, now).Add(seconds(extra / s.pace()))
		}
		s.hold(seat, time.Time{}, 0)
		return time.Time{}
	}
	at := s.reserve(seat, now, units)
	if !at.After(now) {
		return time.Time{}
	}
	s.hold(seat, at, units)
	return at
}

// hold makes seat hold the slot at for units units (none with the zero
// time). s.mu is held.
func (s *Share) hold(seat *Seat, at time.Time, units float64) {
	seat.at, seat.units = at, units
	if at.IsZero() {
		delete(s.held, seat)
		return
	}
	if s.held == nil {
		s.held = map[*Seat]bool{}
	}
	s.held[seat], seat.lined = true, true
}

// requeue hands seat, whose write of units units the table refused at
// now, the line's next slot after from: the slots held from then on move
// back by the units' own (reserve has added them at the line's end), and
// their names, woken at the old time, wait on (Take). It returns the slot.
// s.mu is held.
//
// Only a name's first refusal in a row, of a write no larger than twice
// the line's mean slot, is put first: at the end of the line the refused
// name waits two rounds without a write admitted (3.2 s for 8 names of 4
// units at 20 units a second, longer than a 2 s window); a write that
// needs more (a batch larger than the bucket, admitted only when it is
// full, which a slot right after another's write never finds) would be
// refused there again, its slot idle, and the line's estimate, sampled
// over idle slots, fell to 0.3 of the ceiling (simulated clock).
func (s *Share) requeue(seat *Seat, now, from time.Time, units float64) time.Time {
	at := s.reserve(seat, now, units)
	head := at
	for other := range s.held {
		switch {
		case !other.at.After(now):
			delete(s.held, other) // going now, or gone: its name stopped writing
		case !other.at.Before(from) && other.at.Before(head):
			head = other.at
		}
	}
	if !head.Before(at) {
		return at // no slot held after from: the end of the line
	}
	d := seconds(units / s.pace())
	for other := range s.held {
		if other != seat && !other.at.Before(head) {
			other.at = other.at.Add(d)
		}
	}
	return head
}

// reserve hands seat the next slot of the line for units units, no
// earlier than now, and returns its start. s.mu is held.
func (s *Share) reserve(seat *Seat, now time.Time, units float64) time.Time {
	if seat.gen != s.gen {
		seat.gen = s.gen
		s.left += pacedWrites
	}
	if seat.bracket != s.bracket {
		seat.bracket = s.bracket
		s.seen++
	}
	s.mean += (units - s.mean) / sampleWrites
	if lead := s.round(); s.next.After(now.Add(lead)) {
		s.next = now.Add(lead) // a line no longer than one slot per name
	}
	at := later(s.next, now)
	s.next = at.Add(seconds(units / s.pace()))
	if s.slots++; s.slots >= s.names() {
		s.slots, s.k = 0, min(s.k+1, maxProbes) // a round of the names unrefused
	}
	if s.left--; s.left <= 0 {
		s.on = false // the names have gone pacedWrites slots each unrefused
	}
	return at
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// names is how many names take slots: as many as did in this bracket or
// in the one before, at least 1. s.mu is held.
func (s *Share) names() int { return max(s.seen, s.prev, 1) }

// round is how long a round of the line takes: a slot of the mean units
// per name, at the estimate. s.mu is held.
func (s *Share) round() time.Duration {
	return seconds(float64(s.names()) * s.mean / s.est.rate)
}

// pace is the rate the line goes at: the estimate times 1+probe*(2^k-1),
// k counting the rounds of slots (one per name) handed without a shared
// throttle, at most maxProbes, halved by each one, so that a ceiling that
// grows is found. s.mu is held.
func (s *Share) pace() float64 {
	return s.est.rate * (1 + probe*float64(int(1)<<s.k-1))
}

// Admitted records a write of units units by the name of seat, sent at
// start, that DynamoDB admitted, and reports whether the name waited for
// a slot in the line (Take, or a shared throttle) since its last admitted
// write (see Capacity.Lined).
func (s *Share) Admitted(seat *Seat, start time.Time, units float64) (lined bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lined, seat.lined, seat.streak = seat.lined, false, 0
	if s.est.rate > 0 && !s.won.IsZero() && start.Sub(s.won) > max(RefusedGap, 2*s.round()) {
		// Nothing admitted for longer than a round of the names: they
		// stalled, or the table refused them all. The bracket says
		// nothing of the rate until now, and starts again here.
		s.since, s.units, s.writes = start, 0, 0
	}
	s.won = later(s.won, start)
	if seat == s.lastSeat {
		s.soloRun++
	} else {
		s.lastSeat, s.soloRun = seat, 1
	}
	if s.since.IsZero() {
		s.since, s.win = start, start
	}
	s.units += units
	s.writes++
	s.winUnits += units
	if s.winWrites++; s.winWrites < sampleWrites {
		return lined
	}
	if s.est.rate > 0 && !s.est.measured {
		s.est.raise(s.winUnits, start.Sub(s.win).Seconds()) // a rate the table has shown
	}
	s.win, s.winUnits, s.winWrites = start, 0, 0
	return lined
}

// Throttled records that DynamoDB refused, with a throttle of scope, a
// write of units units that the name of seat sent at start, answered at
// now, and reports whether the refusal is the shared ceiling's: if so, at
// is when the write may be sent again, at its slot in the line (the next
// one on the name's first refusal in a row, see requeue; else the end)
// and at least 50, 100, then 200 ms (RefusedGap/2) after now per refusal
// in a row of the name. If not (a partition's limit, as far as is known),
// the Share leaves it to the name's Capacity.
func (s *Share) Throttled(seat *Seat, start, now time.Time, units float64, scope Scope) (at time.Time, shared bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch scope {
	case ScopeKey, ScopeRead:
		return time.Time{}, false
	case ScopeUnknown:
		if !s.on && !s.coincides(seat, start) {
			return time.Time{}, false
		}
	}
	if s.lastSeat == nil || s.lastSeat == seat && s.soloRun >= sampleWrites {
		// The table's last writes were all this name's: there is
		// nothing to share, and its Capacity paces it better.
		return time.Time{}, false
	}
	s.sample(start, units)
	if s.est.rate <= 0 {
		// Nothing admitted yet to tell the rate: a write each RefusedGap,
		// which the windows of Admitted raise.
		s.est.guess(units / RefusedGap.Seconds())
	}
	s.win, s.winUnits, s.winWrites = start, 0, 0 // from an empty bucket: what it held is not the rate
	s.on, s.gen, s.left, s.k, s.slots = true, s.gen+1, 0, s.k/2, 0
	s.hold(seat, time.Time{}, 0)
	seat.streak++
	floor := now.Add(RefusedGap / 2 >> (3 - min(seat.streak, 3)))
	if seat.streak == 1 && units <= 2*s.mean {
		at = s.requeue(seat, now, floor, units)
	} else {
		at = s.reserve(seat, now, units) // see requeue
	}
	at = later(at, floor)
	s.hold(seat, at, units)
	return at, true
}

// coincides records a throttle of unknown scope of seat's name at start,
// and reports whether another name of the table had one within
// RefusedGap: two names refused at once are more likely at a ceiling
// they share than each at its own. s.mu is held.
func (s *Share) coincides(seat *Seat, start time.Time) bool {
	if s.lastRefusals == nil {
		s.lastRefusals = map[*Seat]time.Time{}
	}
	s.lastRefusals[seat] = start
	both := false
	for other, at := range s.lastRefusals {
		switch d := start.Sub(at); {
		case d > RefusedGap || d < -RefusedGap:
			delete(s.lastRefusals, other)
		case other != seat:
			both = true
		}
	}
	return both
}

// sample moves the estimate by the bracket that the shared throttle of
// the write sent at start closes: the units the table admitted since the
// last one over the time between them (the ceiling refilled them, its
// bucket empty at both). Once sampleWrites writes per name were admitted
// (sampleWrites, if they show under 3/4 of the estimate), it moves all of
// the way down and half of the way up; until sampleWrites writes measured
// it, Admitted raises it to the rate each sampleWrites writes show since
// the last shared throttle, and a bracket of any length that shows under
// half of it, even with the write refused at its end (units refused)
// admitted, halves it: the bucket's first burst, and writes that reach
// the table late (a loaded machine) and so bunch by when they were sent,
// raise it far above the ceiling, whose refusals then end brackets before
// sampleWrites writes. A bracket with nothing admitted for longer than a
// round (an outage) leaves it as it was. s.mu is held.
func (s *Share) sample(start time.Time, refused float64) {
	span := start.Sub(s.since).Seconds()
	if s.since.IsZero() || span <= 0 {
		return
	}
	if s.writes == 0 || s.est.rate > 0 && start.Sub(s.won) > max(RefusedGap, 2*s.round()) {
		s.close(start) // an outage: the bracket starts again here
		return
	}
	r := s.units / span
	if !s.est.measured && s.est.rate > 0 && (s.units+refused)/span < s.est.rate/2 {
		s.est.rate /= 2 // by halves, each on a bracket of its own: a short one may show too little
		s.close(start)
		return
	}
	if s.est.rate > 0 && s.writes < sampleWrites*s.names() && (s.writes < sampleWrites || r >= s.est.rate*3/4) {
		// Too short to tell, unless it shows an estimate far too high
		// (the first, from the bucket's first burst): it goes on.
		return
	}
	// Below the estimate, the bracket is the rate: an estimate above it
	// puts the line ahead of the refill each round, the deficit refuses
	// the round's last slot, and the write refused there takes the last
	// slot again, round after round.
	s.est.move(r, 1, 2)
	s.est.measured = s.writes >= sampleWrites
	s.close(start)
}

// close ends the bracket at start and opens the next. s.mu is held.
func (s *Share) close(start time.Time) {
	s.since, s.units, s.writes = start, 0, 0
	s.bracket++
	if s.seen > 0 {
		s.prev, s.seen = s.seen, 0
	}
}

// Rate is the table's admitted write units a second estimated; 0 before
// the first shared throttle.
func (s *Share) Rate() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.est.rate
}

// NameWriter is what a SortKey or a Latest knows of the writes of one
// name, beside its last number: the waits for capacity and the turns with
// other processes (see turns.go). Only the run in progress for the name
// touches it (see Group).
type NameWriter struct {
	Capacity Capacity // the waits after throttles and conflicts
	Seat     Seat     // the name's place in its table's Share
	Turns             // with writers of other processes
}

// Refused reports whether DynamoDB refused the name's last write: for want
// of capacity, its partition's or its table's, or for a conflict with
// another writer's transaction (Capacity counts both).
func (w *NameWriter) Refused() bool { return w.Capacity.streak > 0 || w.Seat.streak > 0 }

// RefusedConflict reports whether DynamoDB refused the name's last write
// for a conflict with another writer's transaction, not for want of
// capacity: the Capacity's or, once Capacity.Shared recorded it, the
// table's share's, whichever came last.
func (w *NameWriter) RefusedConflict() bool {
	return w.Capacity.streak > 0 && w.Capacity.conflict
}

// Pace is what a strategy's runs need to pace the writes of a name: the
// strategy's round trips, the count of the turns its writes started, and
// the table's write budget that its names share.
type Pace struct {
	RTT      *RoundTrip
	Turns    *atomic.Int64
	Share    *Share
	CopyLast bool // a write carries the last item twice (Latest's 'latest')
	Single   bool // one item a request, without transactions
}

// Won records a write of w's name that started at start, in turn tn, and
// succeeded (both writes, without transactions): units write units of
// items, for which DynamoDB charged charged (see Charged). It returns when
// the name's next write may start (see Capacity.Won).
func (p Pace) Won(w *NameWriter, start time.Time, tn Turn, units, charged float64) time.Time {
	now := time.Now()
	p.RTT.Add(now.Sub(start))
	next := wonIn(p.Share, &w.Seat, &w.Capacity, start, units, charged)
	if w.Won(start, tn) {
		p.Turns.Add(1)
	}
	return next
}

// wonIn records an admitted write of a name, sent at start, in its
// table's share (charged units) and its Capacity (units), and returns when
// the name's next write may start (see Capacity.Won): a write that waited
// in the table's line since the name's last one tells the Capacity
// nothing of the partition's refill (see Capacity.Lined).
func wonIn(s *Share, seat *Seat, c *Capacity, start time.Time, units, charged float64) time.Time {
	if s.Admitted(seat, start, charged) {
		c.Lined()
	}
	return c.Won(start, units)
}

// WonBatch is Won for the write of calls, in one request.
func WonBatch[Req any, R Batched[Req]](p Pace, w *NameWriter, start time.Time, tn Turn, calls []*Call[Req, int64]) time.Time {
	return p.Won(w, start, tn, BatchUnits[Req, R](calls, p.CopyLast), Charged[Req, R](p, calls))
}

// Slot returns when the write of calls may start, as the table's share
// says (see Share.Take): the zero time for now.
func Slot[Req any, R Batched[Req]](p Pace, w *NameWriter, calls []*Call[Req, int64]) time.Time {
	return p.Share.Take(&w.Seat, time.Now(), Charged[Req, R](p, calls))
}

// Charged is the write units DynamoDB charges the write of calls, as the
// table's share counts them: twice the items' for a transaction (see
// Units); with Single, the first call's write alone, one item a request
// (twice with CopyLast: a Latest's version and 'latest').
func Charged[Req any, R Batched[Req]](p Pace, calls []*Call[Req, int64]) float64 {
	if p.Single {
		return BatchUnits[Req, R](calls[:1], p.CopyLast)
	}
	u := BatchUnits[Req, R](calls, p.CopyLast)
	if p.CopyLast || len(calls) > 1 || R(&calls[0].Req).Key() != "" {
		u *= 2 // a TransactWriteItems
	}
	return u
}

// BatchUnits is the write units of the items of calls (see Units), with
// copyLast the last one's once more (as for BatchLen).
func BatchUnits[Req any, R Batched[Req]](calls []*Call[Req, int64], copyLast bool) float64 {
	var u float64
	for _, c := range calls {
		u += Units(R(&c.Req).Bytes())
	}
	if copyLast && len(calls) > 0 {
		u += Units(R(&calls[len(calls)-1].Req).Bytes())
	}
	return u
}
