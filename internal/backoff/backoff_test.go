package backoff

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestDelayCeiling(t *testing.T) {
	// With a Rand that returns its largest value, Delay is the ceiling.
	p := Policy{Base: 2 * time.Millisecond, Max: 50 * time.Millisecond, Rand: func(n int64) int64 { return n - 1 }}
	tests := []struct {
		attempt int
		want    time.Duration
	}{
		{0, 0},
		{1, 2 * time.Millisecond},
		{2, 4 * time.Millisecond},
		{5, 32 * time.Millisecond},
		{6, 50 * time.Millisecond},
		{100, 50 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := p.Delay(tt.attempt); got != tt.want {
			t.Errorf("Delay(%d) = %v, want %v", tt.attempt, got, tt.want)
		}
	}
}

func TestDelayJitterInRange(t *testing.T) {
	p := Policy{Base: time.Millisecond, Max: 8 * time.Millisecond}
	seen := map[time.Duration]bool{}
	for range 1000 {
		d := p.Delay(3)
		if d < 0 || d > 4*time.Millisecond {
			t.Fatalf("Delay(3) = %v, want within [0, 4ms]", d)
		}
		seen[d] = true
	}
	if len(seen) < 100 {
		t.Errorf("Delay(3) took %d distinct values in 1000 draws, want jitter", len(seen))
	}
}

func TestWaitEndsWithContext(t *testing.T) {
	p := Policy{Base: time.Hour, Max: time.Hour, Rand: func(n int64) int64 { return n - 1 }}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := p.Wait(ctx, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Wait returned after %v, want soon after the deadline", d)
	}
}
