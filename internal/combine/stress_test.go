package combine

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestDoStress runs many callers over a few keys with a tiny maxIdle (so that
// keys are evicted and re-created all the time) and random cancellations, and
// checks that runs of one key never overlap, that no call reaches run twice,
// that every call that Do reports as successful reached run exactly once and
// got its own result, that a call whose context ended before Do was called
// never reaches run, and that every Do returns.
func TestDoStress(t *testing.T) {
	const (
		keys       = 4
		goroutines = 24
		each       = 60
		maxBatch   = 3
		maxIdle    = 1
	)
	g := New[int, int64, int, int](maxBatch, maxIdle)

	var inFlight [keys]atomic.Int32
	var runs, okCalls, errCalls, multi atomic.Int32
	seen := make([]atomic.Int32, goroutines*each) // runs that saw each request
	var preCancelled sync.Map                     // requests whose ctx ended before Do
	run := func(ctx context.Context, key int, state *int64, batch []*Call[int, int]) {
		if inFlight[key].Add(1) != 1 {
			t.Errorf("two runs of key %d at once", key)
		}
		defer inFlight[key].Add(-1)
		if len(batch) == 0 || len(batch) > maxBatch {
			t.Errorf("batch of %d", len(batch))
		}
		runs.Add(1)
		if len(batch) > 1 {
			multi.Add(1)
		}
		*state++ // a race detector target if two runs share a state
		if rand.IntN(4) == 0 {
			time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond)
		}
		for _, c := range batch {
			if seen[c.Req].Add(1) != 1 {
				t.Errorf("request %d reached run twice", c.Req)
			}
			if _, ok := preCancelled.Load(c.Req); ok {
				t.Errorf("request %d reached run although its context ended before Do", c.Req)
			}
			if ctx.Err() != nil && rand.IntN(2) == 0 {
				c.Err = ctx.Err()
				continue
			}
			c.Res = c.Req + 1
		}
	}

	var wg sync.WaitGroup
	finished := make(chan struct{})
	for i := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range each {
				req := i*each + j
				key := rand.IntN(keys)
				ctx, cancel := context.WithCancel(context.Background())
				switch rand.IntN(6) {
				case 0: // cancelled at a random moment
					go func() {
						time.Sleep(time.Duration(rand.IntN(400)) * time.Microsecond)
						cancel()
					}()
				case 1: // cancelled before Do
					preCancelled.Store(req, true)
					cancel()
				}
				res, err := g.Do(ctx, key, req, run)
				cancel()
				if err != nil {
					errCalls.Add(1)
				}
				if err == nil {
					okCalls.Add(1)
					if res != req+1 {
						t.Errorf("request %d got %d, want %d", req, res, req+1)
					}
					if n := seen[req].Load(); n != 1 {
						t.Errorf("request %d succeeded after %d runs", req, n)
					}
				}
			}
		}()
	}
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(60 * time.Second):
		t.Fatal("some Do never returned")
	}

	t.Logf("runs %d (batched %d), ok %d, err %d", runs.Load(), multi.Load(), okCalls.Load(), errCalls.Load())
	g.mu.Lock()
	defer g.mu.Unlock()
	for k, q := range g.keys {
		if q.leading || len(q.waiting) != 0 {
			t.Errorf("key %v left with leading=%v and %d waiting", k, q.leading, len(q.waiting))
		}
	}
	if len(g.keys) > maxIdle {
		t.Errorf("%d idle keys kept, want at most %d", len(g.keys), maxIdle)
	}
}

// TestDoPreCancelledNeverRuns: Do's comment promises that a call whose context
// ends before it joins a batch never reaches run.
func TestDoPreCancelledNeverRuns(t *testing.T) {
	g := New[string, int, string, string](10, 100)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	res, err := g.Do(ctx, "k", "late", func(_ context.Context, _ string, _ *int, b []*Call[string, string]) {
		ran = true
		for _, c := range b {
			c.Res = "number burnt"
		}
	})
	if ran || err != context.Canceled {
		t.Errorf("Do with an ended context: run called=%v, got (%q, %v), want run not called and context.Canceled", ran, res, err)
	}
}

// TestDoPanicInRunWedgesKey: a run that panics (and a caller, such as
// net/http, that recovers) leaves the key led by nobody: every later caller of
// the key, and the other callers of the batch, wait until their contexts end.
func TestDoPanicInRunWedgesKey(t *testing.T) {
	g := New[string, int, string, string](10, 100)
	func() {
		defer func() { _ = recover() }()
		_, _ = g.Do(context.Background(), "k", "boom", func(context.Context, string, *int, []*Call[string, string]) {
			panic("boom")
		})
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := g.Do(ctx, "k", "after", func(_ context.Context, _ string, _ *int, b []*Call[string, string]) {
		for _, c := range b {
			c.Res = "ok"
		}
	})
	if err != nil {
		t.Errorf("a Do after a panicking run: %v (the key is wedged)", err)
	}
}

// TestDoCancelledPromotedCallerWaitsForOthers: a caller whose context ends
// after it was handed the lead, but before it woke, runs the next batch
// (other callers' requests) on its own goroutine and returns only when that
// run does, however long the others keep it going.
func TestDoCancelledPromotedCallerWaitsForOthers(t *testing.T) {
	for attempt := range 20 {
		g := New[string, int, string, string](1, 100)
		releaseA, releaseX := make(chan struct{}), make(chan struct{})
		startedA := make(chan struct{})
		run := func(_ context.Context, _ string, _ *int, b []*Call[string, string]) {
			switch b[0].Req {
			case "A":
				close(startedA)
				<-releaseA
			case "X":
				<-releaseX
			}
			b[0].Res = "ok"
		}
		go func() { _, _ = g.Do(context.Background(), "k", "A", run) }()
		<-startedA
		waiting := func(n int) func() bool {
			return func() bool { g.mu.Lock(); defer g.mu.Unlock(); return len(g.keys["k"].waiting) == n }
		}
		ctxW, cancelW := context.WithCancel(context.Background())
		errW := make(chan error, 1)
		go func() { _, err := g.Do(ctxW, "k", "W", run); errW <- err }()
		waitFor(t, waiting(1))
		doneX := make(chan struct{})
		go func() { _, _ = g.Do(context.Background(), "k", "X", run); close(doneX) }()
		waitFor(t, waiting(2))

		// Let A's lead queue on g.mu first, then W's wake-up on ctx.Done,
		// so that A's lead most likely promotes W before W looks.
		g.mu.Lock()
		close(releaseA)
		time.Sleep(20 * time.Millisecond)
		cancelW()
		time.Sleep(20 * time.Millisecond)
		g.mu.Unlock()

		select {
		case err := <-errW:
			if err != context.Canceled {
				t.Fatalf("W: %v", err)
			}
			close(releaseX)
			<-doneX
			continue // W looked first this time; try again
		case <-time.After(200 * time.Millisecond):
			close(releaseX)
			<-errW
			<-doneX
			t.Errorf("attempt %d: a caller whose context had ended was still in Do 200ms later, leading another caller's batch", attempt)
			return
		}
	}
	t.Log("the interleaving did not happen in 20 attempts; nothing was checked this run")
}
