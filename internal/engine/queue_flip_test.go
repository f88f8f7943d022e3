package engine

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// flipContext is a context that reports no error for its first n calls of
// Err and then reports DeadlineExceeded, as a deadline passing between two
// of the queue's looks at the caller's context would. Done never closes:
// only Err tells.
type flipContext struct {
	context.Context
	calls atomic.Int32
	n     int32
}

func (c *flipContext) Err() error {
	if c.calls.Add(1) > c.n {
		return context.DeadlineExceeded
	}
	return nil
}

// TestDoContextEndsBetweenLooks: whichever of the queue's looks at a lone
// caller's context first sees it ended, Do returns the number or the
// deadline, and never runs an empty batch (it once did: index out of range
// in mergedContext, seen on a busy machine).
func TestDoContextEndsBetweenLooks(t *testing.T) {
	for _, grace := range []bool{false, true} {
		for n := int32(0); n < 12; n++ {
			g := NewGroup[string, int64, int, int64](10, 100, func(o *GroupOptions) {
				if grace {
					o.Grace = func() time.Duration { return time.Minute }
				}
			})
			ran := 0
			run := func(_ context.Context, _ string, last *int64, batch []*Call[int, int64]) {
				ran++
				if len(batch) == 0 {
					t.Errorf("Err flips after %d looks (grace %v): run called with an empty batch", n, grace)
				}
				for _, c := range batch {
					*last++
					c.Res = *last
				}
			}
			ctx := &flipContext{Context: context.Background(), n: n}
			v, err := g.Do(ctx, "k", 0, run)
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Err flips after %d looks (grace %v): Do = %d, %v; want a number or the deadline", n, grace, v, err)
			}
		}
	}
}
