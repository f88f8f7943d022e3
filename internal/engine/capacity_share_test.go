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
