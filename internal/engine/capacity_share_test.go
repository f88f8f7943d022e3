package engine

import (
	"testing"
	"time"
)

// A partition's throttle, or one of unknown scope on one name alone,
// leaves the Share off: those names pay nothing. Unknown throttles of two
// names within RefusedGap, or one that names the table, turn it on, but
// not while one name alone writes.
func TestShareScopes(t *testing.T) {
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var s Share
	var a, b Seat
	for i := range 20 {
		at := epoch.Add(time.Duration(i) * 10 * time.Millisecond)
		s.Admitted(&a, at, 2)
		if _, shared := s.Throttled(&a, at, at, 2, ScopeKey); shared {
			t.Fatalf("a key range's throttle was taken as shared")
		}
		if _, shared := s.Throttled(&a, at, at, 2, ScopeUnknown); shared {
			t.Fatalf("one name's throttles of unknown scope were taken as shared")
		}
		if got := s.Take(&b, at, 2); !got.IsZero() {
			t.Fatalf("Take() = %v with the share off, want the zero time", got)
		}
	}
	at := epoch.Add(190*time.Millisecond + RefusedGap) // a's last at 190ms
	if _, shared := s.Throttled(&b, at, at, 2, ScopeUnknown); !shared {
		t.Fatalf("throttles of unknown scope of two names within RefusedGap were not taken as shared")
	}
	if s.Rate() <= 0 {
		t.Fatalf("Rate() = %v after a shared throttle, want the admitted rate", s.Rate())
	}
	var c Share
	for range sampleWrites {
		c.Admitted(&a, at, 2)
	}
	for i := range sampleWrites {
		c.Admitted(&a, at, 2)
		if _, shared := c.Throttled(&a, at, at, 2, ScopeShared); shared {
			t.Fatalf("%d writes of one name alone, and its throttle at the table's ceiling was taken as shared", sampleWrites+i+1)
		}
	}
	c.Admitted(&b, at, 2)
	if _, shared := c.Throttled(&a, at, at, 2, ScopeShared); !shared {
		t.Fatalf("a throttle naming the table's ceiling, two names writing, was not taken as shared")
	}
}

// A write refused at the shared ceiling on its name's first refusal in a
// row takes the line's next slot, and the slots held after it move back by
// its own; refused again at once, it goes to the end of the line.
func TestShareRefusedFirst(t *testing.T) {
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var s Share
	var a, b, c Seat
	seats := []*Seat{&a, &b, &c}
	for i := range 3 * sampleWrites { // 40 units a second: a slot of 4 units is 100 ms
		s.Admitted(seats[i%3], epoch.Add(time.Duration(i)*100*time.Millisecond), 4)
	}
	now := epoch.Add(3 * sampleWrites * 100 * time.Millisecond)
	if _, shared := s.Throttled(&b, now, now, 4, ScopeShared); !shared {
		t.Fatalf("a throttle naming the table's ceiling, three names writing, was not taken as shared")
	}
	for range 4 * len(seats) { // rounds of the line, so that its mean slot is 4 units
		for _, seat := range []*Seat{&b, &c, &a} {
			if at := s.Take(seat, now, 4); !at.IsZero() {
				now = at
				s.Take(seat, now, 4)
			}
			s.Admitted(seat, now, 4)
		}
	}
	tc, ta := s.Take(&c, now, 4), s.Take(&a, now, 4)
	if !tc.Before(ta) {
		t.Fatalf("slots of c and a at %v and %v, want c's first", tc.Sub(now), ta.Sub(now))
	}
	if got := s.Take(&c, tc, 4); !got.IsZero() {
		t.Fatalf("Take() at the slot = %v, want the zero time", got)
	}
	refused := tc.Add(10 * time.Millisecond)
	at, _ := s.Throttled(&c, tc, refused, 4, ScopeShared)
	if !at.Equal(ta) {
		t.Fatalf("c refused once: its slot at %v, want a's, %v", at.Sub(now), ta.Sub(now))
	}
	moved := s.Take(&a, ta, 4)
	if slot := ta.Sub(tc); moved.Sub(ta) < slot/2 {
		t.Fatalf("a's slot moved from %v to %v, want back by c's slot, about %v", ta.Sub(now), moved.Sub(now), slot)
	}
	s.Take(&c, at, 4)
	again, _ := s.Throttled(&c, at, at.Add(10*time.Millisecond), 4, ScopeShared)
	if !again.After(moved) {
		t.Fatalf("c refused twice in a row: its slot at %v, want after a's, %v (the end of the line)", again.Sub(now), moved.Sub(now))
	}
}

// Before a shared throttle the Share has no estimate: the windows of
// Admitted raise a guess only, never none (the Share stays free).
func TestShareNoEstimateBeforeThrottle(t *testing.T) {
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var s Share
	var a Seat
	for i := range 4 * sampleWrites {
		s.Admitted(&a, epoch.Add(time.Duration(i)*time.Millisecond), 2)
	}
	if got := s.Rate(); got != 0 {
		t.Errorf("Rate() = %v after %d writes admitted and no throttle, want 0", got, 4*sampleWrites)
	}
}
