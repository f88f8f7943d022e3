package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"
)

// recorder is a run that records the requests of each batch. A call whose
// request is in again is put back once, with the recorder's notBefore and
// cause; every other call gets its request times ten.
type recorder struct {
	mu        sync.Mutex
	batches   [][]int
	again     map[int]bool
	notBefore time.Time
	cause     error
}

func (r *recorder) run(_ context.Context, _ string, _ *int, batch []*Call[int, int]) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var reqs []int
	for _, c := range batch {
		reqs = append(reqs, c.Req)
		if r.again[c.Req] {
			delete(r.again, c.Req)
			c.Again, c.NotBefore, c.Cause = true, r.notBefore, r.cause
			continue
		}
		c.Res = c.Req * 10
	}
	r.batches = append(r.batches, reqs)
}

func (r *recorder) runs() [][]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.batches)
}

// gate replaces a Group's wait: each leader that waits for a not-before
// time sends it on waits, then waits for release or its context.
type gate struct {
	waits   chan time.Time
	release chan struct{}
}

func holdWaits[K comparable, S, Req, Res any](g *Group[K, S, Req, Res]) *gate {
	gt := &gate{waits: make(chan time.Time, 16), release: make(chan struct{})}
	g.wait = func(ctx context.Context, until time.Time) error {
		gt.waits <- until
		select {
		case <-gt.release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return gt
}

func waitingLen[K comparable, S, Req, Res any](g *Group[K, S, Req, Res], key K, n int) func() bool {
	return func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		q := g.keys[key]
		return q != nil && len(q.waiting) == n
	}
}

type result struct {
	res int
	err error
}

// doAsync calls Do on a goroutine and returns where its result arrives.
func doAsync(g *Group[string, int, int, int], ctx context.Context, key string, req int, run func(context.Context, string, *int, []*Call[int, int])) <-chan result {
	out := make(chan result, 1)
	go func() {
		res, err := g.Do(ctx, key, req, run)
		out <- result{res, err}
	}()
	return out
}

// TestNotBeforeGathersCalls: a run that puts a call back with a NotBefore
// delays the key's next run; the calls that arrive during the delay join
// the call put back, first, in one batch of at most maxBatch.
func TestNotBeforeGathersCalls(t *testing.T) {
	g := NewGroup[string, int, int, int](4, 10)
	gt := holdWaits(g)
	notBefore := time.Now().Add(time.Hour)
	r := &recorder{again: map[int]bool{0: true}, notBefore: notBefore}
	results := []<-chan result{doAsync(g, context.Background(), "k", 0, r.run)}
	if until := <-gt.waits; !until.Equal(notBefore) {
		t.Fatalf("leader waits until %v, want %v", until, notBefore)
	}
	for i := 1; i <= 5; i++ {
		results = append(results, doAsync(g, context.Background(), "k", i, r.run))
		waitFor(t, waitingLen(g, "k", i+1)) // in arrival order
	}
	if runs := r.runs(); len(runs) != 1 {
		t.Fatalf("runs during the delay: %v, want only the first", runs)
	}
	close(gt.release)
	for i, out := range results {
		if got := <-out; got.err != nil || got.res != i*10 {
			t.Errorf("Do(%d) = (%d, %v), want (%d, nil)", i, got.res, got.err, i*10)
		}
	}
	want := [][]int{{0}, {0, 1, 2, 3}, {4, 5}}
	if runs := r.runs(); !slices.EqualFunc(runs, want, slices.Equal) {
		t.Errorf("batches %v, want %v", runs, want)
	}
}

// TestNotBeforeWaitHandedOn: a leader whose context ends while it waits for
// the not-before time leaves with its context's error, without its call
// reaching run again, and the next caller leads and waits for the same time.
func TestNotBeforeWaitHandedOn(t *testing.T) {
	g := NewGroup[string, int, int, int](10, 10)
	gt := holdWaits(g)
	notBefore := time.Now().Add(time.Hour)
	r := &recorder{again: map[int]bool{0: true}, notBefore: notBefore}
	ctx, cancel := context.WithCancel(context.Background())
	first := doAsync(g, ctx, "k", 0, r.run)
	<-gt.waits
	second := doAsync(g, context.Background(), "k", 1, r.run)
	waitFor(t, waitingLen(g, "k", 2))
	third := doAsync(g, context.Background(), "k", 2, r.run)
	waitFor(t, waitingLen(g, "k", 3))
	cancel()
	if got := <-first; !errors.Is(got.err, context.Canceled) {
		t.Fatalf("the waiting leader got (%d, %v), want context.Canceled", got.res, got.err)
	}
	select {
	case until := <-gt.waits:
		if !until.Equal(notBefore) {
			t.Errorf("the next leader waits until %v, want %v", until, notBefore)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("nobody took the lead after the waiting leader left")
	}
	close(gt.release)
	for i, out := range []<-chan result{second, third} {
		if got := <-out; got.err != nil || got.res != (i+1)*10 {
			t.Errorf("Do(%d) = (%d, %v), want (%d, nil)", i+1, got.res, got.err, (i+1)*10)
		}
	}
	want := [][]int{{0}, {1, 2}}
	if runs := r.runs(); !slices.EqualFunc(runs, want, slices.Equal) {
		t.Errorf("batches %v, want %v", runs, want)
	}
}

// TestNotBeforeOtherKeys: a key that waits for its not-before time does not
// delay another key.
func TestNotBeforeOtherKeys(t *testing.T) {
	g := NewGroup[string, int, int, int](10, 10)
	gt := holdWaits(g)
	r := &recorder{again: map[int]bool{0: true}, notBefore: time.Now().Add(time.Hour)}
	delayed := doAsync(g, context.Background(), "slow", 0, r.run)
	<-gt.waits
	if res, err := g.Do(context.Background(), "other", 1, r.run); err != nil || res != 10 {
		t.Errorf("Do on another key = (%d, %v), want (10, nil)", res, err)
	}
	close(gt.release)
	<-delayed
}

// TestNotBeforeRealClock: with the real clock, the next run starts no
// earlier than the NotBefore asked, and a NotBefore in the past, or a run
// that asks none, does not delay the next run.
func TestNotBeforeRealClock(t *testing.T) {
	for _, tc := range []struct {
		name  string
		delay time.Duration
	}{
		{"future", 30 * time.Millisecond},
		{"past", -time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGroup[string, int, int, int](10, 10)
			var notBefore time.Time
			var starts []time.Time
			run := func(_ context.Context, _ string, _ *int, batch []*Call[int, int]) {
				starts = append(starts, time.Now())
				if len(starts) == 1 {
					notBefore = time.Now().Add(tc.delay)
					batch[0].Again, batch[0].NotBefore = true, notBefore
				}
			}
			if _, err := g.Do(context.Background(), "k", 0, run); err != nil {
				t.Fatal(err)
			}
			if starts[1].Before(notBefore) {
				t.Errorf("second run started %v before its NotBefore", notBefore.Sub(starts[1]))
			}
			if tc.delay < 0 && starts[1].Sub(starts[0]) > time.Second {
				t.Errorf("a past NotBefore delayed the next run by %v", starts[1].Sub(starts[0]))
			}
			g.mu.Lock()
			defer g.mu.Unlock()
			if nb := g.keys["k"].notBefore; !nb.IsZero() {
				t.Errorf("after a run that asked no delay, notBefore = %v, want zero", nb)
			}
		})
	}
}

// TestPutBackCause: a call put back with a Cause whose caller gives up
// before the call is written again, while it leads the wait for the
// not-before time or while it is queued behind that leader, gets an error
// that matches both its context's error and the cause; without a Cause,
// its context's error alone.
func TestPutBackCause(t *testing.T) {
	errThrottled := errors.New("throttled")
	for _, tc := range []struct {
		name   string
		leader bool // the caller that gives up leads the wait
		cause  error
	}{
		{"leading, cause", true, errThrottled},
		{"queued, cause", false, errThrottled},
		{"leading, no cause", true, nil},
		{"queued, no cause", false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGroup[string, int, int, int](10, 10)
			gt := holdWaits(g)
			r := &recorder{again: map[int]bool{0: true, 1: true}, notBefore: time.Now().Add(time.Hour), cause: tc.cause}
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			defer cancel()
			ctx0, ctx1 := context.Background(), ctx
			if tc.leader {
				ctx0, ctx1 = ctx, context.Background()
			}
			started := make(chan struct{})
			run := func(ctx context.Context, key string, s *int, batch []*Call[int, int]) {
				if len(r.runs()) == 0 {
					<-started // 0 and 1 queue behind this first batch
				}
				r.run(ctx, key, s, batch)
			}
			blocker := doAsync(g, context.Background(), "k", -1, run)
			waitFor(t, waitingLen(g, "k", 0))
			out0 := doAsync(g, ctx0, "k", 0, run)
			waitFor(t, waitingLen(g, "k", 1))
			out1 := doAsync(g, ctx1, "k", 1, run)
			waitFor(t, waitingLen(g, "k", 2))
			close(started) // 0 and 1 run in the next batch...
			<-blocker
			<-gt.waits // ...and are both put back: 0 leads the wait
			quitter, stayer := out1, out0
			if tc.leader {
				quitter, stayer = out0, out1
			}
			cancel()
			got := <-quitter
			if !errors.Is(got.err, context.Canceled) {
				t.Errorf("Do = %v, want an error matching context.Canceled", got.err)
			}
			if tc.cause != nil && !errors.Is(got.err, tc.cause) {
				t.Errorf("Do = %v, want an error matching the cause %v too", got.err, tc.cause)
			}
			if tc.cause == nil && got.err != context.Canceled { // context.Canceled itself, not one wrapping it
				t.Errorf("Do = %v, want context.Canceled itself", got.err)
			}
			if tc.leader {
				<-gt.waits // the other call leads the wait now
			}
			close(gt.release)
			if got := <-stayer; got.err != nil {
				t.Errorf("the caller that stayed got %v", got.err)
			}
		})
	}
}

// TestNotBeforeOutlivesEviction: an idle key whose next run must wait is not
// dropped to keep within maxIdle before its time has passed (other idle keys
// are, or more than maxIdle are kept), and its next run still waits; once
// its time has passed, it can be dropped.
func TestNotBeforeOutlivesEviction(t *testing.T) {
	for _, maxIdle := range []int{0, 1} {
		t.Run(fmt.Sprint("maxIdle ", maxIdle), func(t *testing.T) {
			g := NewGroup[string, int, int, int](4, maxIdle)
			gt := holdWaits(g)
			var notBefore time.Time
			delay := func(_ context.Context, _ string, _ *int, b []*Call[int, int]) {
				b[0].Res, b[0].NotBefore = 1, notBefore
			}
			settle := func(_ context.Context, _ string, _ *int, b []*Call[int, int]) { b[0].Res = 1 }
			do := func(key string, run func(context.Context, string, *int, []*Call[int, int])) {
				t.Helper()
				if res, err := g.Do(context.Background(), key, 0, run); err != nil || res != 1 {
					t.Fatalf("Do(%q) = (%d, %v), want (1, nil)", key, res, err)
				}
			}
			keys := func() []string {
				g.mu.Lock()
				defer g.mu.Unlock()
				return slices.Sorted(maps.Keys(g.keys))
			}

			notBefore = time.Now().Add(time.Hour)
			do("k", delay)
			do("a", settle) // other keys go idle meanwhile
			do("b", settle)
			if got := keys(); !slices.Equal(got, []string{"k"}) {
				t.Fatalf("keys kept %q, want only the delayed one, k", got)
			}
			next := doAsync(g, context.Background(), "k", 0, settle)
			select {
			case until := <-gt.waits:
				if !until.Equal(notBefore) {
					t.Errorf("the next run of k waits until %v, want %v", until, notBefore)
				}
			case got := <-next:
				t.Fatalf("the next run of k did not wait for its NotBefore: Do = (%d, %v)", got.res, got.err)
			}
			close(gt.release)
			<-next

			notBefore = time.Now().Add(time.Millisecond)
			do("k", delay)
			waitFor(t, func() bool { return time.Now().After(notBefore) })
			do("a", settle)
			if got := keys(); len(got) != maxIdle {
				t.Errorf("keys kept %q once k's time had passed, want %d", got, maxIdle)
			}
		})
	}
}

// TestNotBeforeLeaderGivesUpAsWaitEnds: a leader whose context ends just as
// its wait for the not-before time does (the wait reports no error) leaves
// at once with its context's error: it does not run the batch of the
// callers behind it, its own call never reaches run, and the next caller
// leads.
func TestNotBeforeLeaderGivesUpAsWaitEnds(t *testing.T) {
	for _, grace := range []bool{false, true} {
		t.Run(fmt.Sprint("grace ", grace), func(t *testing.T) {
			var optFns []func(*GroupOptions)
			if grace {
				optFns = append(optFns, func(o *GroupOptions) { o.Grace = func() time.Duration { return time.Hour } })
			}
			g := NewGroup[string, int, int, int](4, 4, optFns...)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			waitEnds := make(chan struct{})
			g.wait = func(wctx context.Context, _ time.Time) error {
				if wctx == ctx {
					<-waitEnds
					cancel() // ctx and the wait end together; the wait reports nothing
				}
				return nil
			}
			var mu sync.Mutex
			var ran []int
			release := make(chan struct{})
			run := func(_ context.Context, _ string, _ *int, batch []*Call[int, int]) {
				for _, c := range batch {
					mu.Lock()
					ran = append(ran, c.Req)
					mu.Unlock()
					if c.Req == 2 {
						<-release
					}
					c.Publish(c.Req * 10)
					c.Res, c.NotBefore = c.Req*10, time.Now().Add(time.Hour)
				}
			}
			if _, err := g.Do(context.Background(), "k", 0, run); err != nil {
				t.Fatal(err)
			}
			leader := doAsync(g, ctx, "k", 1, run)
			waitFor(t, waitingLen(g, "k", 1))
			follower := doAsync(g, context.Background(), "k", 2, run)
			waitFor(t, waitingLen(g, "k", 2))
			close(waitEnds)
			select {
			case got := <-leader:
				if got.err != context.Canceled { // the context's own error: nothing was put back
					t.Errorf("the leader got (%d, %v), want (0, context.Canceled)", got.res, got.err)
				}
			case <-time.After(5 * time.Second):
				t.Error("the leader, its context ended, is still in Do 5s later, running the others' batch")
			}
			close(release)
			if got := <-follower; got.err != nil || got.res != 20 {
				t.Errorf("the caller behind it got (%d, %v), want (20, nil)", got.res, got.err)
			}
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(ran, []int{0, 2}) {
				t.Errorf("run saw the calls %v, want [0 2]: the leader's call never runs", ran)
			}
		})
	}
}

// TestFillEndsDelay: a run that sets NotBefore with Fill delays the key's
// next run until Fill calls wait, not until NotBefore: the leader's wait
// ends as the last of them arrives, and they run in one batch. Without
// enough calls, the wait lasts until NotBefore.
func TestFillEndsDelay(t *testing.T) {
	g := NewGroup[string, int, int, int](8, 10)
	var mu sync.Mutex
	var batches [][]int
	run := func(_ context.Context, _ string, _ *int, batch []*Call[int, int]) {
		mu.Lock()
		defer mu.Unlock()
		var reqs []int
		for _, c := range batch {
			reqs = append(reqs, c.Req)
			c.Res = c.Req
		}
		batches = append(batches, reqs)
		batch[0].NotBefore, batch[0].Fill = time.Now().Add(time.Hour), 3
	}
	if _, err := g.Do(context.Background(), "k", 0, run); err != nil {
		t.Fatal(err)
	}
	var results []<-chan result
	for i := 1; i <= 3; i++ {
		results = append(results, doAsync(g, context.Background(), "k", i, run))
		if i < 3 {
			waitFor(t, waitingLen(g, "k", i))
		}
	}
	for _, out := range results {
		select {
		case got := <-out:
			if got.err != nil {
				t.Fatal(got.err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the third call did not end the wait")
		}
	}
	mu.Lock()
	got := slices.Clone(batches)
	mu.Unlock()
	if want := [][]int{{0}, {1, 2, 3}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("batches %v, want %v", got, want)
	}

	// Fewer calls than Fill: the wait lasts until NotBefore.
	g = NewGroup[string, int, int, int](8, 10)
	gt := holdWaits(g)
	short := func(_ context.Context, _ string, _ *int, batch []*Call[int, int]) {
		for _, c := range batch {
			c.Res = c.Req
		}
		batch[0].NotBefore, batch[0].Fill = time.Now().Add(time.Hour), 3
	}
	if _, err := g.Do(context.Background(), "k", 0, short); err != nil {
		t.Fatal(err)
	}
	out := doAsync(g, context.Background(), "k", 1, short)
	<-gt.waits
	select {
	case got := <-out:
		t.Fatalf("Do returned %v before NotBefore with 1 call of 3", got)
	case <-time.After(50 * time.Millisecond):
	}
	close(gt.release)
	if got := <-out; got.err != nil || got.res != 1 {
		t.Fatalf("Do = %v, want 1", got)
	}
}

// TestCauseOutlivesEmptyRun: a caller queued behind a run that stored
// nothing and put nothing back (its callers' contexts ended, as through an
// outage) still leaves with the cause of the put back before that run, not
// with its context's error alone.
func TestCauseOutlivesEmptyRun(t *testing.T) {
	errThrottled := errors.New("throttled")
	g := NewGroup[string, int, int, int](1, 10) // a batch of one call: the others stay queued
	gt := holdWaits(g)
	hold := make(chan struct{})
	run := func(ctx context.Context, _ string, _ *int, batch []*Call[int, int]) {
		c := batch[0]
		switch c.Req {
		case 0: // throttled: put back, with a cause, until later
			c.Req, c.Again, c.NotBefore, c.Cause = 10, true, time.Now().Add(time.Hour), errThrottled
		case 10: // its caller's context ended while it was sent again
			c.Err = context.DeadlineExceeded
		case 1: // the next call's run goes on while call 2 waits behind it
			<-hold
			c.Res = 1
		}
	}
	out0 := doAsync(g, context.Background(), "k", 0, run)
	<-gt.waits // 0 was put back and leads the wait for its not-before time
	out1 := doAsync(g, context.Background(), "k", 1, run)
	waitFor(t, waitingLen(g, "k", 2))
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	out2 := doAsync(g, ctx2, "k", 2, run)
	waitFor(t, waitingLen(g, "k", 3))
	close(gt.release)
	if got := <-out0; !errors.Is(got.err, context.DeadlineExceeded) {
		t.Fatalf("call 0: Do = %v, want its run's DeadlineExceeded", got.err)
	}
	waitFor(t, waitingLen(g, "k", 1)) // 1 runs, 2 waits behind it
	cancel2()
	got := <-out2
	if !errors.Is(got.err, context.Canceled) || !errors.Is(got.err, errThrottled) {
		t.Errorf("call 2, queued behind a run that stored nothing: Do = %v, want an error matching context.Canceled and the cause before, %v", got.err, errThrottled)
	}
	close(hold)
	if got := <-out1; got.err != nil || got.res != 1 {
		t.Errorf("call 1: Do = (%d, %v), want (1, nil)", got.res, got.err)
	}
}
