package engine

import (
	"testing"
	"time"
)

// A write refused again and again, answered after latency each time, is
// sent at most refusedBurst times in any second from its first refusal,
// whatever the estimate (none, or a refill of 3 ms to 1 s); the first
// retries still come within the refill's first share when it is short.
func TestCapacityRefusedBurst(t *testing.T) {
	const latency = 8 * time.Millisecond
	for _, rate := range []float64{0, 32, 300, 1000, 10000} {
		c := Capacity{Rand: func(n int64) int64 { return n - 1 }}
		at := epoch
		if rate > 0 {
			// An admitted write, a refusal and an admitted write
			// bracket a refill of 32 units at rate.
			refill := seconds(32 / rate)
			c.Won(at, 32)
			c.Throttled(at.Add(refill*3/4), refill, 32)
			at = at.Add(refill)
			c.Won(at, 32)
			at = at.Add(refill / 2)
		}
		if rate > 0 && (c.Rate() < rate/2 || c.Rate() > rate*2) {
			t.Fatalf("rate %v: Rate() = %v after a bracket of its refill, want about it", rate, c.Rate())
		}
		var sends []time.Time
		for range 40 {
			sends = append(sends, at)
			at = at.Add(latency + c.Throttled(at, 25*time.Millisecond, 32))
		}
		for i := range sends {
			n := 0
			for _, s := range sends[i:] {
				if s.Sub(sends[i]) < time.Second {
					n++
				}
			}
			if n > refusedBurst {
				t.Errorf("rate %v: %d sends in the second from the %d-th refusal in a row, want at most %d", rate, n, i+1, refusedBurst)
			}
		}
		if rate >= 1000 {
			if got, want := sends[1].Sub(sends[0]), latency+seconds(32/rate*firstShare); got > want {
				t.Errorf("rate %v: the first retry %v after the refusal, want at most %v", rate, got, want)
			}
		}
	}
}
