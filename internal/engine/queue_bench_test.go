package engine

import (
	"context"
	"testing"
	"time"
)

// BenchmarkDo measures what a Group adds to a run that does nothing: alone
// (every call leads its own run) and from parallel callers of one key, on
// the leader's goroutine (no grace) and on a goroutine of the run's own
// (with a grace). The run publishes each call, as a run must with a grace.
func BenchmarkDo(b *testing.B) {
	run := func(_ context.Context, _ string, _ *int, batch []*Call[int, int]) {
		for _, c := range batch {
			c.Publish(c.Req)
			c.Res = c.Req
		}
	}
	for _, bc := range []struct {
		name  string
		grace bool
	}{{"here", false}, {"apart", true}} {
		var optFns []func(*GroupOptions)
		if bc.grace {
			optFns = append(optFns, func(o *GroupOptions) { o.Grace = func() time.Duration { return time.Millisecond } })
		}
		b.Run(bc.name+"/alone", func(b *testing.B) {
			g := NewGroup[string, int, int, int](32, 10, optFns...)
			b.ReportAllocs()
			for i := range b.N {
				if _, err := g.Do(context.Background(), "k", i, run); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bc.name+"/parallel", func(b *testing.B) {
			g := NewGroup[string, int, int, int](32, 10, optFns...)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := g.Do(context.Background(), "k", 1, run); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
