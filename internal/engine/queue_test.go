package engine

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// numberer is a run that hands out consecutive numbers from the key's state,
// as a sequence would, and checks that runs of one key never overlap.
type numberer struct {
	inFlight atomic.Int32
	batches  atomic.Int32
	largest  atomic.Int32
	t        *testing.T
}

func (n *numberer) run(ctx context.Context, key string, last *int64, batch []*Call[int, int64]) {
	if n.inFlight.Add(1) != 1 {
		n.t.Errorf("two runs of key %q at once", key)
	}
	defer n.inFlight.Add(-1)
	n.batches.Add(1)
	if l := int32(len(batch)); l > n.largest.Load() {
		n.largest.Store(l)
	}
	time.Sleep(200 * time.Microsecond) // a round trip, so that callers pile up
	for _, c := range batch {
		*last++
		c.Res = *last
	}
}

func TestDoNumbersEachCallOnce(t *testing.T) {
	g := NewGroup[string, int64, int, int64](10, 100)
	n := &numberer{t: t}
	const goroutines, each = 32, 50
	var mu sync.Mutex
	var got []int64
	var wg sync.WaitGroup
	for i := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range each {
				v, err := g.Do(context.Background(), "k", i*each+j, n.run)
				if err != nil {
					t.Errorf("Do: %v", err)
					return
				}
				mu.Lock()
				got = append(got, v)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	slices.Sort(got)
	for i, v := range got {
		if v != int64(i+1) {
			t.Fatalf("sorted results[%d] = %d, want %d", i, v, i+1)
		}
	}
	if len(got) != goroutines*each {
		t.Fatalf("%d results, want %d", len(got), goroutines*each)
	}
	if b := n.batches.Load(); b >= goroutines*each {
		t.Errorf("%d runs for %d calls: no batching", b, goroutines*each)
	}
	if l := n.largest.Load(); l > 10 {
		t.Errorf("largest batch %d, want at most maxBatch 10", l)
	}
}

func TestDoKeysAreIndependent(t *testing.T) {
	g := NewGroup[string, int64, int, int64](10, 100)
	var wg sync.WaitGroup
	for _, key := range []string{"a", "b", "c"} {
		n := &numberer{t: t}
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 20 {
					if _, err := g.Do(context.Background(), key, 0, n.run); err != nil {
						t.Errorf("Do: %v", err)
					}
				}
			}()
		}
	}
	wg.Wait()
}

func TestDoCancelledWhileQueued(t *testing.T) {
	g := NewGroup[string, int, string, string](10, 100)
	release := make(chan struct{})
	var seen sync.Map
	run := func(ctx context.Context, key string, _ *int, batch []*Call[string, string]) {
		for _, c := range batch {
			seen.Store(c.Req, true)
			if c.Req == "blocker" {
				<-release
			}
			c.Res = "ok " + c.Req
		}
	}
	go func() { _, _ = g.Do(context.Background(), "k", "blocker", run) }()
	waitFor(t, func() bool { _, ok := seen.Load("blocker"); return ok })

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := g.Do(ctx, "k", "quitter", run)
		errc <- err
	}()
	later := make(chan string, 1)
	go func() {
		waitFor(t, func() bool { g.mu.Lock(); defer g.mu.Unlock(); return len(g.keys["k"].waiting) == 1 })
		res, err := g.Do(context.Background(), "k", "patient", run)
		if err != nil {
			t.Errorf("patient: %v", err)
		}
		later <- res
	}()
	waitFor(t, func() bool { g.mu.Lock(); defer g.mu.Unlock(); return len(g.keys["k"].waiting) == 2 })
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Do with a cancelled context = %v, want context.Canceled", err)
	}
	close(release)
	if res := <-later; res != "ok patient" {
		t.Errorf("patient got %q", res)
	}
	if _, ok := seen.Load("quitter"); ok {
		t.Error("a call cancelled while queued reached run")
	}
}

func TestBatchContextOutlivesOneCaller(t *testing.T) {
	g := NewGroup[string, int, int, error](10, 100)
	started := make(chan struct{})
	first, second := make(chan struct{}), make(chan struct{})
	run := func(ctx context.Context, key string, _ *int, batch []*Call[int, error]) {
		if batch[0].Req == 0 {
			close(started)
			<-first
		} else {
			<-second
		}
		for _, c := range batch {
			c.Res = ctx.Err()
		}
	}
	go func() { _, _ = g.Do(context.Background(), "k", 0, run) }()
	<-started
	queued := func(n int) func() bool {
		return func() bool { g.mu.Lock(); defer g.mu.Unlock(); return len(g.keys["k"].waiting) == n }
	}
	// Two callers queue behind the first batch: one that will give up, and
	// one that waits; the impatient one arrives first and so leads.
	impatient, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _, _ = g.Do(impatient, "k", 1, run) }()
	waitFor(t, queued(1))
	var patientRes, patientErr error
	go func() { defer wg.Done(); patientRes, patientErr = g.Do(context.Background(), "k", 2, run) }()
	waitFor(t, queued(2))
	close(first) // the first batch ends; the next one takes calls 1 and 2
	waitFor(t, queued(0))
	cancel() // one of the two gives up while its batch runs
	close(second)
	wg.Wait()
	if patientErr != nil || patientRes != nil {
		t.Errorf("patient caller got (%v, %v): the batch's context ended when one of its two callers gave up", patientRes, patientErr)
	}
}

func TestIdleKeysBounded(t *testing.T) {
	g := NewGroup[int, int64, int, int64](10, 5)
	n := &numberer{t: t}
	for k := range 50 {
		if _, err := g.Do(context.Background(), k, 0, func(ctx context.Context, key int, s *int64, b []*Call[int, int64]) {
			n.run(ctx, "", s, b)
		}); err != nil {
			t.Fatal(err)
		}
	}
	if l := len(g.keys); l > 5 {
		t.Errorf("%d idle keys kept, want at most 5", l)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestGiveUpInBatchWaitsForOutcome: a caller whose context ends while its
// call is in a running batch gets the batch's outcome for its call, not its
// context's error, so that it learns what was written; and a call that
// failed because the batch's context ended reports the caller's own reason.
func TestGiveUpInBatchWaitsForOutcome(t *testing.T) {
	g := NewGroup[string, int, int, int](10, 10)
	started, release := make(chan struct{}), make(chan struct{})
	run := func(ctx context.Context, _ string, _ *int, batch []*Call[int, int]) {
		close(started)
		<-ctx.Done() // every caller gave up
		<-release
		batch[0].Res = 7 // the write landed anyway
	}
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan int, 1)
	errc := make(chan error, 1)
	go func() { n, err := g.Do(ctx, "k", 1, run); res <- n; errc <- err }()
	<-started
	cancel()
	select {
	case err := <-errc:
		t.Fatalf("Do returned (%v) before its batch ended", err)
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	if n, err := <-res, <-errc; n != 7 || err != nil {
		t.Errorf("Do = (%d, %v), want (7, nil): the outcome of the batch", n, err)
	}

	deadline, stop := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer stop()
	_, err := g.Do(deadline, "k", 1, func(ctx context.Context, _ string, _ *int, batch []*Call[int, int]) {
		<-ctx.Done()
		batch[0].Err = ctx.Err()
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Do after the caller's deadline = %v, want context.DeadlineExceeded", err)
	}
}

// TestAgain puts the calls of a first run back (Again): the next run takes
// them first, in order, with the calls that arrived meanwhile, and each
// caller gets the outcome of the run that settled its call.
func TestAgain(t *testing.T) {
	g := NewGroup[string, int, int, int](10, 10)
	var mu sync.Mutex
	var runs [][]int
	arrived := make(chan struct{})
	release := make(chan struct{})
	run := func(_ context.Context, _ string, state *int, batch []*Call[int, int]) {
		var reqs []int
		for _, c := range batch {
			reqs = append(reqs, c.Req)
		}
		mu.Lock()
		runs = append(runs, reqs)
		mu.Unlock()
		*state++
		if *state == 1 {
			close(arrived)
			<-release
			for _, c := range batch {
				c.Again = true
			}
			return
		}
		for _, c := range batch {
			c.Res = c.Req * 10
		}
	}
	var wg sync.WaitGroup
	results := make([]int, 3)
	do := func(i int) {
		defer wg.Done()
		res, err := g.Do(context.Background(), "k", i, run)
		if err != nil {
			t.Errorf("Do(%d) = %v", i, err)
		}
		results[i] = res
	}
	wg.Add(1)
	go do(0)
	<-arrived
	wg.Add(2)
	go do(1)
	go do(2)
	for {
		g.mu.Lock()
		n := len(g.keys["k"].waiting)
		g.mu.Unlock()
		if n == 2 { // the two new calls, behind the running one
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	if len(runs) != 2 || len(runs[1]) != 3 || runs[1][0] != 0 {
		t.Fatalf("runs = %v, want [[0] [0 1 2]] (or [0 2 1] after the first)", runs)
	}
	for i, res := range results {
		if res != i*10 {
			t.Errorf("Do(%d) = %d, want %d", i, res, i*10)
		}
	}
}

// TestDoLeftByPanic: a caller that leaves Do by a panic (here one of
// GroupOptions.Grace while its call is in a running batch, or one raised while it
// leads the wait for a not-before time) leaves nothing behind that waits for
// it: its call is gone (Publish reports false, and a put back does not
// requeue it), the lead passes on, and the key goes on.
func TestDoLeftByPanic(t *testing.T) {
	for _, tc := range []struct {
		name    string
		inBatch bool // the panic comes while the call is in a running batch; else while its caller leads the wait
	}{
		{"grace panics, in a batch", true},
		{"wait panics, leading", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGroup[string, int, int, int](4, 4, func(o *GroupOptions) { o.Grace = func() time.Duration { panic("grace") } })
			started, release := make(chan struct{}), make(chan struct{})
			var publishedAfter atomic.Bool
			run := func(_ context.Context, _ string, _ *int, batch []*Call[int, int]) {
				for _, c := range batch {
					switch c.Req {
					case 1: // published, stuck, then put back, with a delay
						c.Publish(10)
						close(started)
						<-release
						publishedAfter.Store(c.Publish(10))
						c.Again = true
					case 0: // asks for a delay, for the next caller to lead the wait
						c.Res, c.NotBefore = 0, time.Now().Add(time.Hour)
					default:
						c.Publish(c.Req * 10)
						c.Res = c.Req * 10
					}
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if !tc.inBatch {
				g.wait = func(wctx context.Context, _ time.Time) error {
					if wctx == ctx {
						panic("wait")
					}
					return nil
				}
				if _, err := g.Do(context.Background(), "k", 0, run); err != nil {
					t.Fatal(err)
				}
			}
			panicked := make(chan any, 1)
			go func() {
				defer func() { panicked <- recover() }()
				_, _ = g.Do(ctx, "k", 1, run)
			}()
			if tc.inBatch {
				<-started
				cancel() // its caller waits for the grace, which panics
			}
			want := map[bool]string{true: "grace", false: "wait"}[tc.inBatch]
			if p := <-panicked; p != want {
				t.Fatalf("the caller recovered %v, want %q", p, want)
			}
			if tc.inBatch {
				close(release)
			}
			ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel2()
			if res, err := g.Do(ctx2, "k", 2, run); err != nil || res != 20 {
				t.Errorf("the next Do of the key = (%d, %v), want (20, nil)", res, err)
			}
			if publishedAfter.Load() {
				t.Error("Publish reported true for the call of a caller who had left")
			}
		})
	}
}
