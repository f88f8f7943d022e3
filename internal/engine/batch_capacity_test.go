package engine

import (
	"testing"
	"time"

	"github.com/dynamoseq/dynamoseq/internal/backoff"
)

func TestCapacity(t *testing.T) {
	// With a Rand that returns its largest value, Next is the ceiling:
	// one round trip, doubling per refusal in a row, at most a second.
	c := Capacity{Rand: func(n int64) int64 { return n - 1 }}
	rtt := 30 * time.Millisecond
	for i, want := range []time.Duration{30 * time.Millisecond, 60 * time.Millisecond, 120 * time.Millisecond, 240 * time.Millisecond, 480 * time.Millisecond, 960 * time.Millisecond, backoff.MaxCapacityWait, backoff.MaxCapacityWait} {
		if got := c.Next(rtt); got != want {
			t.Errorf("refusal %d: Next(%v) = %v, want %v", i+1, rtt, got, want)
		}
	}
	if c.Streak() != 8 {
		t.Errorf("Streak() = %d, want 8", c.Streak())
	}
	c.Reset()
	if got := c.Next(0); got != minCapacityBase {
		t.Errorf("after Reset, Next(0) = %v, want %v (no round trip measured yet)", got, minCapacityBase)
	}
}
