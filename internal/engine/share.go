// The share: one table's write budget in one process, shared by the names
// of the table in turns once a ceiling they share has refused one of them.

package engine

import (
	"sync"
	"time"
)

// sampleWrites is how many admitted writes a sample of the table's admitted
// rate takes at least (see Share): fewer say more of the bucket's depth
// and of chance than of the rate.
const sampleWrites = 8

// Share is one table's write budget in one process, shared by its names.
// It costs nothing until a ceiling that the table's names share refuses a
// write: a throttle whose reasons say so (ScopeShared), or one that says
// nothing (ScopeUnknown, as a cancelled transaction's) within RefusedGap
// of another name's. From then on every write of the table takes a slot
// in one line (Take): the slots are handed in the order they are asked for,
// each one as long as its units take at the table's admitted rate,
// estimated, so that each name writing gets its turn, about rate/names,
// instead of the names refused at random starving while the others go.
//
// The estimate: the units the table admitted between two shared throttles
// over the time between them (the ceiling refilled them, its bucket empty
// at both), once sampleWrites writes per name were admitted (sampleWrites
// if that is under 3/4 of the estimate), moving all of the way down and
// half of the way up; before the first bracket, the rate each sampleWrites
// admitted writes show if it is higher. The line goes at the estimate times
// 1+probe*(2^k-1), k counting the rounds of slots (one per name) handed
// without a shared throttle, at most maxProbes, halved by each one, so
// that a ceiling that grows is found. A shared throttle after nothing was
// admitted for longer than a round is an outage, which leaves the
// estimate as it was, and a write admitted after such a gap (an outage,
// the process stalled) starts the bracket again. The line ends after
// pacedWrites slots per name without a shared throttle; the next one
// starts it again.
//
// A refused write goes to the end of the line, and waits at least 50, 100,
// then 200 ms (RefusedGap/2) per refusal in a row of its name: at most 5
// requests a second per name while the table refuses everything.
// Throttles that say they are a partition's (ScopeKey) are left to the
// name's Capacity, as are those of unknown scope while the Share is off and
// no other name was refused, and any while the table's last sampleWrites
// admitted writes were all the refused name's: a single hot name pays
// nothing for the Share.
//
// A Share is safe for concurrent use; a name's Seat belongs to the one
// writer of the name at a time (see NameWriter). The zero Share is ready.
type Share struct {
	mu sync.Mutex // protects the fields below and the Seats passed in

	rate    float64   // the table's admitted write units a second, estimated; 0: none yet
	guessed bool      // the rate is a guess, no bracket measured it: Admitted raises it
	next    time.Time // the end of the line: when the next slot may start
	on      bool      // a shared ceiling refused a write lately: writes take slots
	left    int       // slots to hand before the line ends
	gen     int       // counts shared throttles: a Seat that took a slot since holds gen
	seen    int       // names that took a slot in this bracket (see below)
	prev    int       // names that took slots in the bracket before
	k       int       // rounds of slots handed since the last shared throttle, at most maxProbes
	slots   int       // slots handed in this round
	mean    float64   // the units of a slot, a moving average

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
		seat.at = time.Time{}
		return time.Time{}
	}
	if !seat.at.IsZero() {
		if now.Before(seat.at) {
			return seat.at
		}
		if extra := units - seat.units; extra > 0 {
			s.next = later(s.next, now).Add(seconds(extra / s.pace()))
		}
		seat.at = time.Time{}
		return time.Time{}
	}
	at := s.reserve(seat, now, units)
	if !at.After(now) {
		return time.Time{}
	}
	seat.at, seat.units = at, units
	return at
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
	return seconds(float64(s.names()) * s.mean / s.rate)
}

// pace is the rate the line goes at: the estimate, a little over it the
// longer no shared throttle came. s.mu is held.
func (s *Share) pace() float64 {
	return s.rate * (1 + probe*float64(int(1)<<s.k-1))
}

// Admitted records a write of units units by the name of seat, sent at
// start, that DynamoDB admitted.
func (s *Share) Admitted(seat *Seat, start time.Time, units float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seat.streak = 0
	if s.rate > 0 && !s.won.IsZero() && start.Sub(s.won) > max(RefusedGap, 2*s.round()) {
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
		return
	}
	if span := start.Sub(s.win).Seconds(); span > 0 && s.guessed {
		s.rate = max(s.rate, s.winUnits/span) // a rate the table has shown
	}
	s.win, s.winUnits, s.winWrites = start, 0, 0
}

// Throttled records that DynamoDB refused, with a throttle of scope, a
// write of units units that the name of seat sent at start, answered at
// now, and reports whether the refusal is the shared ceiling's: if so, at
// is when the write
// may be sent again, at its slot in the line (see Share). If not (a
// partition's limit, as far as is known), the Share leaves it to the
// name's Capacity.
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
	s.sample(start)
	if s.rate <= 0 {
		// Nothing admitted yet to tell the rate: a write each RefusedGap,
		// which the windows of Admitted raise.
		s.rate, s.guessed = units/RefusedGap.Seconds(), true
	}
	s.on, s.gen, s.left, s.k, s.slots = true, s.gen+1, 0, s.k/2, 0
	seat.at = time.Time{}
	seat.streak++
	at = s.reserve(seat, now, units)
	floor := RefusedGap / 2 >> (3 - min(seat.streak, 3))
	if at.Before(now.Add(floor)) {
		at = now.Add(floor)
	}
	seat.at, seat.units = at, units
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

// sample moves the estimate by the units admitted since the last shared
// throttle, which ended with the one sent at start (see Share). s.mu is
// held.
func (s *Share) sample(start time.Time) {
	span := start.Sub(s.since).Seconds()
	if s.since.IsZero() || span <= 0 {
		return
	}
	if s.writes == 0 || s.rate > 0 && start.Sub(s.won) > max(RefusedGap, 2*s.round()) {
		// Nothing admitted for longer than a round of the names takes:
		// an outage, which says nothing of the rate once it is over.
		// The bracket starts again from here.
		s.close(start)
		return
	}
	r := s.units / span
	if s.rate > 0 && s.writes < sampleWrites*s.names() && (s.writes < sampleWrites || r >= s.rate*3/4) {
		// Too short to tell the rate, unless it shows an estimate far
		// too high (the first, from the bucket's first burst), which
		// sampleWrites writes may correct: the bracket goes on.
		return
	}
	s.guessed = s.writes < sampleWrites
	switch {
	case s.rate <= 0 || r < s.rate:
		// Below the estimate, the bracket is the rate: an estimate
		// above it puts the line ahead of the refill each round, the
		// deficit refuses the round's last slot, and the write refused
		// there takes the last slot again, round after round.
		s.rate = r
	default:
		s.rate += (r - s.rate) / 2
	}
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
	return s.rate
}
