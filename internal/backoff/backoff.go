// Package backoff computes the waits between attempts of a write that lost a
// race to another writer (Policy); engine.Capacity uses it for the waits
// after a conflict with a transaction.
package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Policy is exponential backoff with full jitter: the wait before retry k is
// drawn uniformly from [0, min(Max, Base*2^(k-1))]. Spreading the waits over
// the whole interval, rather than around its end, is what keeps writers that
// lost the same race from colliding again.
type Policy struct {
	Base, Max time.Duration
	// Rand returns a uniform int64 in [0, n); nil means rand.Int64N from
	// math/rand/v2, which is safe for concurrent use.
	Rand func(n int64) int64
}

// Delay is the wait before retry number attempt (1 for the first retry).
func (p Policy) Delay(attempt int) time.Duration {
	if attempt < 1 || p.Max <= 0 {
		return 0
	}
	ceiling := p.Max
	if shift := attempt - 1; shift < 62 && p.Base < p.Max>>shift {
		ceiling = p.Base << shift
	}
	random := p.Rand
	if random == nil {
		random = rand.Int64N
	}
	return time.Duration(random(int64(ceiling) + 1))
}

// Wait sleeps for Delay(attempt), or until ctx ends and then returns
// ctx.Err().
func (p Policy) Wait(ctx context.Context, attempt int) error {
	return Sleep(ctx, p.Delay(attempt))
}

// Sleep sleeps for d, or until ctx ends and then returns ctx.Err().
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
