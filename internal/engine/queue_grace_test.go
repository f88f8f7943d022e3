package engine

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// graceCase is a case of TestGraceStuckRun.
type graceCase struct {
	name     string
	publish  bool // run publishes the quitter's call before it sticks
	leader   bool // the quitter leads (alone in the batch); else it follows another caller
	deadline bool // the quitter's context ends by its deadline, not by cancel
	early    bool // the run ends within the grace
	putBack  bool // ... and puts the quitter's call back (early too)
}

// TestGraceStuckRun: with a grace, a caller whose context ends while its
// call is in a running batch that is stuck returns within the grace: with
// the result run published and ErrUnknownOutcome joined with its context's
// error, or, if run published nothing, with its context's error at once, and
// then run's Publish reports false. The outcome run sets later is not seen;
// an outcome set within the grace is.
func TestGraceStuckRun(t *testing.T) {
	errThrottled := errors.New("throttled")
	const grace = 50 * time.Millisecond
	for _, tc := range []graceCase{
		{name: "published, leader", publish: true, leader: true},
		{name: "published, follower", publish: true},
		{name: "published, leader, deadline", publish: true, leader: true, deadline: true},
		{name: "unpublished, leader", leader: true},
		{name: "unpublished, follower"},
		{name: "published, outcome within the grace", publish: true, leader: true, early: true},
		{name: "published, put back within the grace", publish: true, leader: true, early: true, putBack: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGroup[string, int, int, int](10, 10, func(o *GroupOptions) {
				o.Grace = func() time.Duration {
					if tc.early {
						return time.Hour
					}
					return grace
				}
			})
			const quitter = 1
			sent, release, open := make(chan struct{}), make(chan struct{}), make(chan struct{})
			var wrong atomic.Bool // a Publish after the stall answered wrong
			run := tc.stuckRun(quitter, sent, release, open, &wrong, errThrottled)
			ctx, cancel := context.WithCancel(context.Background())
			if tc.deadline {
				ctx, cancel = context.WithTimeout(context.Background(), 30*time.Millisecond)
			}
			defer cancel()
			out, other := tc.start(t, g, ctx, quitter, open, run)
			<-sent
			// ended is when the context ended or before: the library may see
			// the end, and start the grace, before this goroutine wakes.
			ended, _ := ctx.Deadline()
			if !tc.deadline {
				ended = time.Now()
				cancel()
			}
			<-ctx.Done()
			if tc.early {
				close(release)
			}
			got := <-out
			took := time.Since(ended)
			tc.check(t, got, took, ctx.Err(), errThrottled, grace)
			if !tc.early {
				close(release)
			}
			if other != nil {
				if got := <-other; got.err != nil || got.res != 1 {
					t.Errorf("the caller that stayed got (%d, %v), want (1, nil)", got.res, got.err)
				}
			}
			// The stuck run has ended and passed the lead on.
			if res, err := g.Do(context.Background(), "k", 5, func(_ context.Context, _ string, _ *int, b []*Call[int, int]) {
				b[0].Res = 50
			}); err != nil || res != 50 {
				t.Errorf("Do after the stuck run = (%d, %v), want (50, nil)", res, err)
			}
			if wrong.Load() {
				t.Error("Publish after the stall reported true for a caller that had left, or false for one still there")
			}
		})
	}
}

// stuckRun is the run of a graceCase: the batch before (a negative call)
// held until open is closed; then the quitter's batch, published if the
// case says so, stuck after sent until release, and then given outcomes
// other than those published (the quitter's put back, if the case says
// so). A Publish after the stall that answers wrong sets wrong.
func (tc graceCase) stuckRun(quitter int, sent, release, open chan struct{}, wrong *atomic.Bool,
	errThrottled error) func(context.Context, string, *int, []*Call[int, int]) {
	return func(_ context.Context, _ string, _ *int, batch []*Call[int, int]) {
		if batch[0].Req < 0 { // the batch before, held open
			<-open
			batch[0].Res = -1
			return
		}
		if tc.publish {
			for _, c := range batch {
				c.Publish(c.Req * 10)
			}
		}
		close(sent)
		<-release
		for _, c := range batch {
			// Only a caller that has left makes Publish say no.
			if c.Publish(c.Req*10) != (c.Req != quitter || tc.early) {
				wrong.Store(true)
			}
			if tc.putBack && c.Req == quitter {
				c.Again, c.Cause = true, errThrottled
				continue
			}
			c.Res = c.Req*10 + 1 // not what was published
		}
	}
}

// start makes the quitter's call with ctx: alone as leader, or, for a
// follower, queued with caller 0 behind a batch held open (until open is
// closed), so that the two run in one batch. It returns the quitter's
// result and caller 0's (nil for a leader).
func (tc graceCase) start(t *testing.T, g *Group[string, int, int, int], ctx context.Context, quitter int, open chan struct{},
	run func(context.Context, string, *int, []*Call[int, int])) (out, other <-chan result) {
	if tc.leader {
		return doAsync(g, ctx, "k", quitter, run), nil
	}
	before := doAsync(g, context.Background(), "k", -1, run)
	waitFor(t, waitingLen(g, "k", 0))
	other = doAsync(g, context.Background(), "k", 0, run)
	waitFor(t, waitingLen(g, "k", 1))
	out = doAsync(g, ctx, "k", quitter, run)
	waitFor(t, waitingLen(g, "k", 2))
	close(open)
	<-before
	return out, other
}

// check checks what the caller that gave up got: the outcome if the
// run ended within the grace, its context's error and the cause if its
// call was put back, what was published after the grace, or its context's
// error at once if nothing was published.
func (tc graceCase) check(t *testing.T, got result, took time.Duration, ctxErr, cause error, grace time.Duration) {
	t.Helper()
	const quitter = 1
	switch {
	case tc.putBack:
		if got.res != 0 || !errors.Is(got.err, context.Canceled) || !errors.Is(got.err, cause) || errors.Is(got.err, ErrUnknownOutcome) {
			t.Errorf("Do = (%d, %v), want (0, context.Canceled and the cause)", got.res, got.err)
		}
	case tc.early:
		if got.err != nil || got.res != quitter*10+1 {
			t.Errorf("Do = (%d, %v), want the outcome (%d, nil)", got.res, got.err, quitter*10+1)
		}
	case tc.publish:
		if got.res != quitter*10 || !errors.Is(got.err, ErrUnknownOutcome) || !errors.Is(got.err, ctxErr) {
			t.Errorf("Do = (%d, %v), want (%d, ErrUnknownOutcome and %v)", got.res, got.err, quitter*10, ctxErr)
		}
		if took < grace || took > grace+time.Second {
			t.Errorf("Do returned %v after its context ended, want the grace, %v", took, grace)
		}
	default:
		if got.res != 0 || got.err != ctxErr { // the context's own error, not one wrapping it
			t.Errorf("Do = (%d, %v), want (0, %v)", got.res, got.err, ctxErr)
		}
		if took > time.Second {
			t.Errorf("Do returned %v after its context ended, want at once", took)
		}
	}
}

// TestGracePanic: with a grace, run goes on a goroutine of its own; if it
// panics, the first caller of its batch still in Do panics with the value
// run panicked with, as it would without a grace, the others fail, and the
// key goes on.
func TestGracePanic(t *testing.T) {
	g := NewGroup[string, int, int, int](10, 10, func(o *GroupOptions) { o.Grace = func() time.Duration { return time.Second } })
	boom := errors.New("boom")
	open := make(chan struct{})
	run := func(_ context.Context, _ string, _ *int, batch []*Call[int, int]) {
		if batch[0].Req < 0 {
			<-open
			batch[0].Res = -1
			return
		}
		panic(boom)
	}
	before := doAsync(g, context.Background(), "k", -1, run)
	waitFor(t, waitingLen(g, "k", 0))
	panicked := make(chan any, 1)
	go func() {
		defer func() { panicked <- recover() }()
		_, _ = g.Do(context.Background(), "k", 0, run)
	}()
	waitFor(t, waitingLen(g, "k", 1))
	second := doAsync(g, context.Background(), "k", 1, run)
	waitFor(t, waitingLen(g, "k", 2))
	close(open)
	<-before
	if p := <-panicked; p != boom {
		t.Errorf("the first caller recovered %v (%T), want the value run panicked with, %v", p, p, boom)
	}
	if got := <-second; !errors.Is(got.err, errRunPanicked) {
		t.Errorf("the second caller got (%d, %v), want errRunPanicked", got.res, got.err)
	}
	if res, err := g.Do(context.Background(), "k", 2, func(_ context.Context, _ string, _ *int, b []*Call[int, int]) {
		b[0].Res = 20
	}); err != nil || res != 20 {
		t.Errorf("Do after the panic = (%d, %v), want (20, nil)", res, err)
	}
}

// TestGracePanicWithNobodyLeft: with a grace, a panic in run when every
// caller of its batch has left Do ends the program, from the run's
// goroutine, whose trace shows where run panicked. The program is this
// test, run again as a child process.
func TestGracePanicWithNobodyLeft(t *testing.T) {
	const value = "combine test: run panicked with nobody left"
	if os.Getenv("COMBINE_TEST_CHILD") == "1" {
		g := NewGroup[string, int, int, int](10, 10, func(o *GroupOptions) { o.Grace = func() time.Duration { return time.Second } })
		started, left := make(chan struct{}), make(chan struct{})
		ctx, cancel := context.WithCancel(context.Background())
		out := doAsync(g, ctx, "k", 1, func(context.Context, string, *int, []*Call[int, int]) {
			close(started)
			<-left
			panic(value)
		})
		<-started
		cancel() // nothing published: the caller leaves at once
		<-out
		close(left)
		time.Sleep(10 * time.Second) // for the panic to end the program
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGracePanicWithNobodyLeft$", "-test.count=1")
	cmd.Env = append(os.Environ(), "COMBINE_TEST_CHILD=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("the child ended with %v, want exit status 2 (a panic); its output:\n%s", err, out)
	}
	for _, want := range []string{"panic: " + value, "engine.TestGracePanicWithNobodyLeft.func", "engine.(*Group[...]).runApart"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the child's output lacks %q:\n%s", want, out)
		}
	}
}

// TestAloneHere: with GroupOptions.AloneHere, a batch of one call runs on its
// caller's goroutine: a caller whose context ends waits for the run (which
// a run that honours its context ends at once); in a batch of two, a
// caller still leaves after the grace.
func TestAloneHere(t *testing.T) {
	const grace = 20 * time.Millisecond
	g := NewGroup[string, int, int, int](10, 10, func(o *GroupOptions) {
		o.Grace = func() time.Duration { return grace }
		o.AloneHere = true
	})
	started, release := make(chan struct{}, 2), make(chan struct{})
	run := func(_ context.Context, _ string, _ *int, batch []*Call[int, int]) {
		for _, c := range batch {
			c.Publish(c.Req)
		}
		started <- struct{}{}
		<-release
		for _, c := range batch {
			c.Res = c.Req
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := doAsync(g, ctx, "k", 1, run)
	<-started
	cancel()
	select {
	case got := <-out:
		t.Fatalf("a lone caller left its run, on its own goroutine: %v", got)
	case <-time.After(5 * grace):
	}
	release <- struct{}{}
	if got := <-out; got.err != nil || got.res != 1 {
		t.Fatalf("Do = %+v, want the run's outcome", got)
	}

	// A batch of two: held open by a first run, then run apart.
	hold := doAsync(g, context.Background(), "k", 0, run)
	<-started
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	quitter := doAsync(g, ctx, "k", 1, run)
	other := doAsync(g, context.Background(), "k", 2, run)
	waitFor(t, waitingLen(g, "k", 2))
	release <- struct{}{}
	<-hold
	<-started
	cancel()
	select {
	case got := <-quitter:
		if !errors.Is(got.err, ErrUnknownOutcome) {
			t.Errorf("the quitter of a batch of two: %v, want ErrUnknownOutcome", got.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the quitter of a batch of two did not leave after the grace")
	}
	release <- struct{}{}
	if got := <-other; got.err != nil || got.res != 2 {
		t.Fatalf("the other caller: %+v", got)
	}
}

// TestGraceUnsentAfterCallersLeft: with a grace, a call that run fails
// without publishing it (nothing was sent for it) once every caller of the
// batch has left is told its context's error, as a caller that leaves
// first is, and not run's reason: which of the two a caller gets must not
// depend on whether its goroutine woke before run's ended. Each round
// gives the race another chance to go the other way.
func TestGraceUnsentAfterCallersLeft(t *testing.T) {
	errUnsent := errors.New("not sent: the write before it has an unknown outcome")
	for round := range 200 {
		g := NewGroup[string, int, int, int](10, 10, func(o *GroupOptions) { o.Grace = func() time.Duration { return time.Millisecond } })
		// A first run has the next one wait until two calls do, so that
		// the two below make one batch.
		if _, err := g.Do(context.Background(), "k", 0, func(_ context.Context, _ string, _ *int, batch []*Call[int, int]) {
			batch[0].NotBefore, batch[0].Fill = time.Now().Add(time.Hour), 2
		}); err != nil {
			t.Fatalf("round %d: the first Do = %v, want nil", round, err)
		}
		started := make(chan struct{})
		var sent int // the call whose write is in flight, written before started closes
		run := func(ctx context.Context, _ string, _ *int, batch []*Call[int, int]) {
			sent = batch[0].Req
			batch[0].Publish(1)
			close(started)
			<-ctx.Done() // every caller has left
			batch[0].Err = ctx.Err()
			for _, c := range batch[1:] {
				c.Err = errUnsent
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		out := map[int]<-chan result{1: doAsync(g, ctx, "k", 1, run), 2: doAsync(g, ctx, "k", 2, run)}
		<-started
		cancel()
		for req, c := range out {
			got := <-c
			switch {
			case req == sent && !errors.Is(got.err, context.Canceled):
				t.Fatalf("round %d: the published call's Do = (%d, %v), want an error matching context.Canceled", round, got.res, got.err)
			case req != sent && (!errors.Is(got.err, context.Canceled) || errors.Is(got.err, errUnsent)):
				t.Fatalf("round %d: the unpublished call's Do = (%d, %v), want its context's error, context.Canceled, alone", round, got.res, got.err)
			}
		}
	}
}
