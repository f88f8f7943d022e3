package engine

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestDoStress runs many callers over a few keys with a tiny maxIdle (so that
// keys are evicted and re-created all the time), random cancellations, runs
// that stall, put calls back with a cause and a NotBefore, and (without a
// grace, where a panic has a leader to go up) panic; with a grace, runs
// publish each call before they store it. It checks that runs of one key
// never overlap, that no call is in two runs at once or (without a grace)
// reaches a run after its caller has left, that a call whose context ended
// before Do never reaches run, that no run starts before the NotBefore the
// key's last run asked (however often the key was evicted meanwhile), that
// every Do returns, and that each caller was told the truth about its call:
//   - success: stored once, under the caller's result;
//   - ErrUnknownOutcome (with a grace): the published result, stored at most
//     once, and the caller's context's error too;
//   - any other error: never stored; a cause only after a put back.
func TestDoStress(t *testing.T) {
	for _, tc := range []struct {
		name  string
		grace bool
	}{{"wait for the outcome", false}, {"grace", true}} {
		t.Run(tc.name, func(t *testing.T) { stress(t, tc.grace) })
	}
}

var errStressThrottled = errors.New("throttled")

// stressCall is what the stress test knows of one request.
type stressCall struct {
	stored   atomic.Int32 // times a run stored it
	inRun    atomic.Bool  // in a run now
	putBack  atomic.Int32 // times a run put it back
	returned atomic.Bool  // its Do has returned
	told     atomic.Int32 // what its Do said (a stressTold)
}

// stressTold is what a Do told its caller about the call's write.
type stressTold int32

const (
	toldStored  stressTold = iota + 1 // success
	toldUnknown                       // ErrUnknownOutcome
	toldNothing                       // any other error, or a panic
)

// The stress test's shape: requests from goroutines over keys, and a Group
// of tiny batches and idle keys.
const (
	stressKeys       = 4
	stressGoroutines = 24
	stressEach       = 60
	stressMaxBatch   = 3
	stressMaxIdle    = 1
)

// stressRig is one run of the stress test: the Group, what it knows of
// each request, and its counts.
type stressRig struct {
	t            *testing.T
	grace        bool
	g            *Group[int, int64, int, int]
	calls        []stressCall
	inFlight     [stressKeys]atomic.Int32
	notBefore    [stressKeys]atomic.Int64 // the NotBefore the key's last run asked, in Unix nanoseconds
	preCancelled sync.Map                 // requests whose ctx ended before Do

	runs, multi, panics                       atomic.Int32
	okCalls, errCalls, unknown, caused, recov atomic.Int32
}

func stress(t *testing.T, grace bool) {
	var optFns []func(*GroupOptions)
	if grace {
		optFns = append(optFns, func(o *GroupOptions) { o.Grace = func() time.Duration { return 300 * time.Microsecond } })
	}
	r := &stressRig{t: t, grace: grace, g: NewGroup[int, int64, int, int](stressMaxBatch, stressMaxIdle, optFns...),
		calls: make([]stressCall, stressGoroutines*stressEach)}
	var wg sync.WaitGroup
	for i := range stressGoroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range stressEach {
				r.call(i*stressEach + j)
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(60 * time.Second):
		t.Fatal("some Do never returned")
	}
	// With a grace, runs may go on after their callers left: wait for them.
	waitFor(t, func() bool {
		r.g.mu.Lock()
		defer r.g.mu.Unlock()
		for _, q := range r.g.keys {
			if q.leading || len(q.waiting) != 0 {
				return false
			}
		}
		return true
	})
	t.Logf("runs %d (batched %d, panicked %d), ok %d, unknown %d, err %d (with the cause %d), panics recovered %d",
		r.runs.Load(), r.multi.Load(), r.panics.Load(), r.okCalls.Load(), r.unknown.Load(), r.errCalls.Load(), r.caused.Load(), r.recov.Load())
	stressCheckStored(t, r.g, r.calls, stressMaxIdle)
}

// run is the Group's run: it checks the batch (see checkRun), may panic
// (without a grace), and writes each call (stressWrite).
func (r *stressRig) run(ctx context.Context, key int, state *int64, batch []*Call[int, int]) {
	if r.inFlight[key].Add(1) != 1 {
		r.t.Errorf("two runs of key %d at once", key)
	}
	defer r.inFlight[key].Add(-1)
	*state++ // a race detector target if two runs share a state
	for _, c := range batch {
		sc := &r.calls[c.Req]
		if sc.inRun.Swap(true) {
			r.t.Errorf("request %d in two runs at once", c.Req)
		}
		defer sc.inRun.Store(false)
	}
	r.checkRun(key, batch)
	if !r.grace && rand.IntN(200) == 0 {
		r.panics.Add(1)
		panic("stress")
	}
	for _, c := range batch {
		stressWrite(ctx, c, &r.calls[c.Req])
		if nb := c.NotBefore.UnixNano(); !c.NotBefore.IsZero() && nb > r.notBefore[key].Load() {
			r.notBefore[key].Store(nb)
		}
	}
}

// checkRun checks a run as it starts: not before the NotBefore the key's
// last run asked, a batch of 1 to maxBatch calls, and no call whose caller
// has left (without a grace) or whose context ended before Do.
func (r *stressRig) checkRun(key int, batch []*Call[int, int]) {
	if nb := r.notBefore[key].Load(); nb != 0 && time.Now().UnixNano() < nb {
		r.t.Errorf("a run of key %d started %v before the NotBefore its last run asked", key, time.Duration(nb-time.Now().UnixNano()))
	}
	r.notBefore[key].Store(0)
	if len(batch) == 0 || len(batch) > stressMaxBatch {
		r.t.Errorf("batch of %d", len(batch))
	}
	r.runs.Add(1)
	if len(batch) > 1 {
		r.multi.Add(1)
	}
	for _, c := range batch {
		// Without a grace a caller stays while its call is in a run;
		// with one, it may leave before run sees the call, which
		// Publish then turns away (and stressCheckStored checks).
		if !r.grace && r.calls[c.Req].returned.Load() {
			r.t.Errorf("request %d reached a run after its Do returned", c.Req)
		}
		if _, ok := r.preCancelled.Load(c.Req); ok {
			r.t.Errorf("request %d reached run although its context ended before Do", c.Req)
		}
	}
}

// call makes request req on a random key, its context cancelled at a
// random moment, before Do, or not at all, and records what it was told.
func (r *stressRig) call(req int) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	switch rand.IntN(6) {
	case 0: // cancelled at a random moment
		go func() {
			time.Sleep(time.Duration(rand.IntN(400)) * time.Microsecond)
			cancel()
		}()
	case 1: // cancelled before Do
		r.preCancelled.Store(req, true)
		cancel()
	}
	res, err, panicked := stressDo(r.g, ctx, rand.IntN(stressKeys), req, r.run)
	sc := &r.calls[req]
	sc.returned.Store(true)
	sc.told.Store(int32(r.told(ctx, req, res, err, panicked)))
}

// told checks what the Do of req returned, counts it, and says what its
// caller was told.
func (r *stressRig) told(ctx context.Context, req, res int, err error, panicked bool) stressTold {
	switch {
	case panicked:
		r.recov.Add(1)
	case err == nil:
		r.okCalls.Add(1)
		if res != req+1 {
			r.t.Errorf("request %d got %d, want %d", req, res, req+1)
		}
		return toldStored
	case errors.Is(err, ErrUnknownOutcome):
		r.unknown.Add(1)
		if res != req+1 || ctx.Err() == nil || !errors.Is(err, ctx.Err()) {
			r.t.Errorf("request %d got (%d, %v): not its published result and its context's error", req, res, err)
		}
		return toldUnknown
	default:
		r.errCalls.Add(1)
		if errors.Is(err, errStressThrottled) {
			r.caused.Add(1)
			// Its own put back's cause, or that of the calls ahead of
			// it in the queue.
			if r.calls[req].putBack.Load() == 0 && stressPutBacks.Load() == 0 {
				r.t.Errorf("request %d got the cause %v without a put back", req, err)
			}
		}
	}
	return toldNothing
}

// stressPutBacks counts the calls any stress run put back.
var stressPutBacks atomic.Int32

// stressDo calls Do, recovering a panic of run.
func stressDo(g *Group[int, int64, int, int], ctx context.Context, key, req int,
	run func(context.Context, int, *int64, []*Call[int, int])) (res int, err error, panicked bool) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	res, err = g.Do(ctx, key, req, run)
	return res, err, false
}

// stressWrite is the stress run's write of one call: it publishes the
// call's result (and does not store a call whose caller has left), may
// stall, and then stores it, fails it, or puts it back with a cause and a
// NotBefore.
func stressWrite(ctx context.Context, c *Call[int, int], sc *stressCall) {
	if !c.Publish(c.Req + 1) {
		c.Err = errors.New("caller gone")
		return
	}
	if rand.IntN(4) == 0 {
		time.Sleep(time.Duration(rand.IntN(600)) * time.Microsecond)
	}
	switch {
	case rand.IntN(5) == 0:
		sc.putBack.Add(1)
		stressPutBacks.Add(1)
		c.Again, c.Cause = true, errStressThrottled
		c.NotBefore = time.Now().Add(time.Duration(rand.IntN(300)) * time.Microsecond)
	case ctx.Err() != nil && rand.IntN(2) == 0:
		c.Err = ctx.Err()
	default:
		sc.stored.Add(1)
		c.Res = c.Req + 1
	}
}

// stressCheckStored checks, once every run has ended, that each call was
// stored as its caller was told, and that the Group keeps at most maxIdle
// idle keys.
func stressCheckStored(t *testing.T, g *Group[int, int64, int, int], calls []stressCall, maxIdle int) {
	t.Helper()
	for req := range calls {
		n, told := calls[req].stored.Load(), stressTold(calls[req].told.Load())
		switch {
		case told == toldStored && n != 1:
			t.Errorf("request %d succeeded and was stored %d times", req, n)
		case told == toldUnknown && n > 1:
			t.Errorf("request %d, outcome unknown, stored %d times", req, n)
		case told == toldNothing && n != 0:
			t.Errorf("request %d failed (nothing stored) and was stored %d times", req, n)
		}
	}
	// Keys whose next run must wait may be kept beyond maxIdle; once their
	// time has passed (300µs at most), the next key to go idle drops them.
	time.Sleep(time.Millisecond)
	if _, err := g.Do(context.Background(), 0, 0, func(_ context.Context, _ int, _ *int64, b []*Call[int, int]) {
		b[0].Res = 1
	}); err != nil {
		t.Errorf("Do after the stress: %v", err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.keys) > maxIdle {
		t.Errorf("%d idle keys kept, want at most %d", len(g.keys), maxIdle)
	}
}

// TestDoPreCancelledNeverRuns: Do's comment promises that a call whose context
// ends before it joins a batch never reaches run.
func TestDoPreCancelledNeverRuns(t *testing.T) {
	g := NewGroup[string, int, string, string](10, 100)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	res, err := g.Do(ctx, "k", "late", func(_ context.Context, _ string, _ *int, b []*Call[string, string]) {
		ran = true
		for _, c := range b {
			c.Res = "number burnt"
		}
	})
	if ran || !errors.Is(err, context.Canceled) {
		t.Errorf("Do with an ended context: run called=%v, got (%q, %v), want run not called and context.Canceled", ran, res, err)
	}
}

// TestDoPanicInRunWedgesKey: a run that panics (and a caller, such as
// net/http, that recovers) leaves the key led by nobody: every later caller of
// the key, and the other callers of the batch, wait until their contexts end.
func TestDoPanicInRunWedgesKey(t *testing.T) {
	g := NewGroup[string, int, string, string](10, 100)
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
