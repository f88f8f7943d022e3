// The queue: a Group batches concurrent calls that share a key, so that the
// callers writing to one sequence take turns through DynamoDB as one writer
// instead of racing each other, and so that one round trip can serve many of
// them.
//
// There is no goroutine of its own: the first caller of an idle key leads.
// It takes a batch from the head of the key's queue, its own call first,
// runs it, and hands the lead to the oldest caller still waiting; a leader
// whose context has ended by the time it would take its batch takes none
// and hands the lead straight on. A caller waits for the runs ahead of it
// and its own: more of them if runs put calls back (Call.Again: first in
// the next batch, ahead of the calls queued meanwhile), and longer if a run
// delays its key's next one (Call.NotBefore, below). (With a grace, below,
// each run goes on a goroutine that the leader starts and that ends with
// the run.)
//
// Delay. A run can ask that its key's next run start no earlier than a
// point in time (Call.NotBefore; for example after a throttled write), or
// than that point or the moment a number of calls wait, whichever comes
// first (Call.Fill; for example to let callers just answered call again
// and join one batch). The
// caller who leads that run waits for it holding no lock, so that the calls
// arriving meanwhile join its batch (up to maxBatch); if its context ends
// first (or as the wait ends), its call leaves with the context's error and
// the next caller in line leads and waits for the same time. Other keys are
// not delayed, and a delayed key is kept however many keys are idle (see
// NewGroup).
//
// Cause. A run that puts a call back can say why (Call.Cause; for example
// the strategy's ErrThrottled): a caller whose context ends before its call
// is written again (queued, or leading the wait) gets an error matching
// both the context's error and the cause; so does a caller queued behind
// it meanwhile (the key's last run put calls back with that cause, or
// delayed the next run with it: Call.NotBefore and Cause on a call done).
// Without a cause, ctx.Err().
//
// Grace. By default a caller whose call is in a running batch waits for its
// outcome even after its context ends, so that it learns what was written.
// With GroupOptions.Grace it waits at most the grace (about one round trip):
// then Do returns the result run published for the call (Call.Publish,
// just before sending its write) with an error matching ErrUnknownOutcome
// and the context's error; the run goes on, and the outcome it sets later
// is read by nobody. A caller whose call run has not yet published leaves
// at once with its context's error (and cause), since nothing was sent for
// it, and from then on Publish reports false, so that run does not send it.
// So that the caller who took the batch can leave too, each run goes on a
// goroutine of its own, which the leader starts and which ends once the
// batch is settled. A panic in run then goes on in the first caller of the
// batch still in Do, with the value run panicked with but that caller's
// stack (run's is lost); if every caller of the batch has left, it is
// raised again on the run's goroutine, which ends the program, as
// singleflight's DoChan does.
//
// Batches. What a run does with the calls of its batch is below Group and
// Call: it splits them into writes that fit DynamoDB's limits (RunBatches),
// publishes each caller's number before its write is sent (Publish), puts
// calls back after a lost race (RaceLost, PutBack), and asks the next run
// of a hot name to wait for its callers (Linger).

package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dynamoseq/dynamoseq/internal/backoff"
)

// Group batches concurrent calls per key. It is safe for concurrent use.
type Group[K comparable, S, Req, Res any] struct {
	maxBatch, maxIdle int
	grace             func() time.Duration // GroupOptions.Grace
	aloneHere         bool                 // GroupOptions.AloneHere
	// wait sleeps until the given time, or until ctx ends and then returns
	// its error; tests replace it to hold a leader in its wait.
	wait func(ctx context.Context, until time.Time) error

	// mu protects keys, idle, every queue and waiter reached from them
	// (but for queue.state), and the publication of their calls
	// (Call.published, pending, gone). Besides: a queue's state and the
	// exported fields of the calls of a batch belong to the goroutine
	// that holds the key's lead from take to finish, which hands them on
	// under mu; Req and Res are read by the call's caller only once mu
	// has shown it done.
	mu   sync.Mutex
	keys map[K]*queue[S, Req, Res]
	idle int // how many queues in keys are idle
}

// queue is the state of one key.
type queue[S, Req, Res any] struct {
	waiting []*waiter[Req, Res] // calls not yet in a batch, oldest first
	leading bool                // some caller holds the lead for this key
	idle    bool                // counted in Group.idle: no lead, nothing waiting
	// notBefore is when the next run may start, as the last run asked
	// (Call.NotBefore); zero for at once.
	notBefore time.Time
	// fill is the largest Call.Fill of the last run: the next run may
	// start before notBefore once fill calls are waiting. filled, while
	// a leader waits for that, ends its wait.
	fill   int
	filled context.CancelFunc
	// cause is the Call.Cause of the last run's put back, if it put
	// calls back; the callers queued behind them leave with it too.
	cause error
	state S // read and written only by the lead's run
}

type status int

const (
	queued   status = iota // in queue.waiting
	promoted               // handed the lead; still in queue.waiting
	inBatch                // taken into a run
	done                   // outcome set
)

type waiter[Req, Res any] struct {
	ctx    context.Context
	call   Call[Req, Res]
	status status        // guarded by Group.mu
	cause  error         // Call.Cause of the last put back; guarded by Group.mu
	panic  any           // the value run panicked with, for this caller to go on with; guarded by Group.mu
	wake   chan struct{} // capacity 1: status changed to promoted, done or (put back) queued
}

// GroupOptions are a Group's settings, changed by the functions passed to NewGroup.
type GroupOptions struct {
	// Grace bounds how long a caller whose context has ended waits for the
	// outcome of its call in a running batch (see the package comment); it
	// is called then, from that caller's goroutine, with no lock held, and
	// should return about one round trip of the write. If it panics, the
	// panic goes up that caller's stack, and its call is gone as if the
	// caller had given up (Publish reports false). nil (the default) means
	// until the outcome is known, however long the run takes.
	Grace func() time.Duration
	// AloneHere, with a grace, runs a batch of one call on its caller's
	// goroutine, as without a grace, saving the hand-offs to and from a
	// run's goroutine: that caller then waits for the run, whose context
	// ends with the caller's, so run must end promptly once its context
	// ends (a request to DynamoDB does). Batches of more calls still go on
	// a goroutine of their own.
	AloneHere bool
}

// NewGroup returns a Group that passes at most maxBatch calls to one run and keeps
// the state of at most maxIdle keys that have no call in progress. Beyond
// that, idle keys are dropped (arbitrary ones, as Go's map iteration yields
// them), and the next run of a dropped key starts from the zero S; but a
// key whose next run must wait (Call.NotBefore) is not dropped before its
// time has passed, so that the delay holds: if the idle keys are all
// delayed so, more than maxIdle are kept, until a key going idle finds
// their time passed. It panics if maxBatch < 1.
func NewGroup[K comparable, S, Req, Res any](maxBatch, maxIdle int, optFns ...func(*GroupOptions)) *Group[K, S, Req, Res] {
	if maxBatch < 1 {
		panic("combine: maxBatch < 1")
	}
	var o GroupOptions
	for _, fn := range optFns {
		fn(&o)
	}
	return &Group[K, S, Req, Res]{maxBatch: maxBatch, maxIdle: maxIdle, grace: o.Grace, aloneHere: o.AloneHere, wait: waitUntil, keys: make(map[K]*queue[S, Req, Res])}
}

func waitUntil(ctx context.Context, until time.Time) error {
	return backoff.Sleep(ctx, time.Until(until))
}

// Do queues req under key and waits for its outcome.
//
// Runs of one key never overlap. run receives up to maxBatch calls in
// arrival order, a pointer to the key's state (touched only by the run in
// progress for that key, so it needs no lock), and a context that carries the
// first caller's values and ends only when every caller in the batch has
// given up (it has no deadline of its own: bound the work inside run). run
// must set Res or Err on every call, or Again to run it once more, first in
// the next batch (a call put back whose ctx has ended meanwhile returns
// ctx.Err(), with the call's Cause, without reaching run again). Only the
// leading caller's run is used for a batch, so every caller of one key must
// pass the same run, and run must not call Do for its own key, which would
// wait for itself. If run panics, its calls fail, the key's state is reset
// to the zero S, the lead passes on, and the panic continues up the leading
// caller's stack. With a grace, the first caller of the batch still in Do
// panics with the same value instead, from its own stack; if every caller
// of the batch has left, the panic ends the program (see the package
// comment).
//
// If ctx ends before req joins a batch, Do returns ctx.Err() (and the
// Cause of its last put back) and req never reaches run. Once req is in a
// running batch, Do waits for its outcome even if ctx ends, so that the
// caller learns what was written, or, with GroupOptions.Grace, for the grace at
// most (see the package comment); run's context ends when every caller of
// the batch has given up, so a run that honours it ends promptly. When ctx
// has ended and the outcome's error is context.Canceled (run's context
// ending), Do returns ctx.Err() instead, so that a caller whose deadline
// passed sees context.DeadlineExceeded.
func (g *Group[K, S, Req, Res]) Do(ctx context.Context, key K, req Req,
	run func(ctx context.Context, key K, state *S, batch []*Call[Req, Res])) (Res, error) {
	if err := ctx.Err(); err != nil {
		var zero Res
		return zero, err
	}
	w := &waiter[Req, Res]{ctx: ctx, call: Call[Req, Res]{Req: req, mu: &g.mu}, wake: make(chan struct{}, 1)}
	w.call.deadline, _ = ctx.Deadline()
	q := g.enqueue(key, w)
	returned := false
	defer func() {
		if !returned { // a panic, from GroupOptions.Grace for one, or runtime.Goexit
			g.drop(q, w)
		}
	}()
	res, err := g.await(key, q, w, run)
	returned = true
	return res, err
}

// await waits for the outcome of w's call, queued in q, and leads when its
// turn comes: the body of Do.
func (g *Group[K, S, Req, Res]) await(key K, q *queue[S, Req, Res], w *waiter[Req, Res],
	run func(ctx context.Context, key K, state *S, batch []*Call[Req, Res])) (Res, error) {
	ctx := w.ctx
	var zero Res
	var grace *time.Timer // runs once ctx has ended with the call published in a batch
	defer func() {
		if grace != nil {
			grace.Stop()
		}
	}()
	graceOver := false
	for {
		g.mu.Lock()
		st, ended := w.status, ctx.Err() != nil
		switch {
		case st == done:
			g.mu.Unlock()
			return w.outcome()
		case st == promoted && !ended:
			g.mu.Unlock()
			if err := g.lead(key, q, w, run); err != nil {
				return zero, err
			}
			continue
		case st != inBatch && ended:
			// Queued, or handed the lead: nothing was sent for the call.
			// Give it up, and pass the lead straight on: the callers
			// behind this one still need a turn, but not on the
			// goroutine of a caller that has given up.
			q.remove(w)
			if st == promoted {
				g.handOff(q)
			}
			err := w.leave(ctx.Err(), q.cause)
			g.mu.Unlock()
			return zero, err
		case st == inBatch && ended && g.grace != nil && (!w.call.published || graceOver):
			res, err := w.abandon(ctx.Err(), q.cause)
			g.mu.Unlock()
			return res, err
		}
		g.mu.Unlock()
		var gaveUp <-chan struct{}
		var graceUp <-chan time.Time
		switch {
		case !ended:
			gaveUp = ctx.Done()
		case st == inBatch && g.grace != nil: // and published: wait, a grace at most
			if grace == nil {
				grace = time.NewTimer(g.grace())
			}
			graceUp = grace.C
		} // else in a batch without a grace: only the call's outcome counts
		select {
		case <-w.wake:
		case <-gaveUp:
		case <-graceUp:
			graceOver = true
		}
	}
}

// drop leaves no trace of w's call when its caller leaves Do other than by
// returning (a panic in GroupOptions.Grace, say), so that nothing waits for a
// caller who is gone: queued, it leaves the queue; handed the lead, it
// passes the lead on; in a batch, the call is gone, as if abandoned (Publish
// reports false, and it is not put back). Done, there is nothing to do (a
// panic of run going on up this caller's stack, for one).
func (g *Group[K, S, Req, Res]) drop(q *queue[S, Req, Res], w *waiter[Req, Res]) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch w.status {
	case queued:
		q.remove(w)
	case promoted:
		q.remove(w)
		g.handOff(q)
	case inBatch:
		w.call.gone = true
	}
}

// enqueue appends w to the queue of key, creating it if need be, and hands
// w the lead if nobody holds it.
func (g *Group[K, S, Req, Res]) enqueue(key K, w *waiter[Req, Res]) *queue[S, Req, Res] {
	g.mu.Lock()
	defer g.mu.Unlock()
	q := g.keys[key]
	if q == nil {
		q = &queue[S, Req, Res]{}
		g.keys[key] = q
	}
	q.waiting = append(q.waiting, w)
	if q.filled != nil && len(q.waiting) >= q.fill {
		q.filled()
		q.filled = nil
	}
	if !q.leading {
		if q.idle {
			q.idle = false
			g.idle--
		}
		q.leading = true
		w.status = promoted
	}
	return q
}

// leave is the error of w's caller when it leaves with err, its context's
// error, before its call was written: err, joined with the cause of the
// call's last put back if run gave one, or else with queued, the cause of
// the put back of the calls ahead of it (queue.cause; nil for none). The
// caller holds g.mu.
func (w *waiter[Req, Res]) leave(err, queued error) error {
	cause := w.cause
	if cause == nil {
		cause = queued
	}
	if cause == nil {
		return err
	}
	return fmt.Errorf("%w (waiting to write again after: %w)", err, cause)
}

// abandon is what Do returns when w's caller gives up (err, its context's
// error) while its call is in a running batch, and marks the call gone, so
// that Publish reports false from now on: the result run published, with
// ErrUnknownOutcome; or, if run published nothing, and so will send
// nothing, err as leave has it. The caller holds g.mu.
func (w *waiter[Req, Res]) abandon(err, queued error) (Res, error) {
	w.call.gone = true
	if !w.call.published {
		var zero Res
		return zero, w.leave(err, queued)
	}
	return w.call.pending, fmt.Errorf("%w: %w", ErrUnknownOutcome, err)
}

// outcome is the result of w's call, with the caller's own context error in
// place of the batch's cancellation. If run panicked and passed the panic to
// this caller, it panics with it.
func (w *waiter[Req, Res]) outcome() (Res, error) {
	if w.panic != nil {
		panic(w.panic)
	}
	err := w.call.Err
	if cerr := w.ctx.Err(); cerr != nil && err != nil && errors.Is(err, context.Canceled) && !errors.Is(err, cerr) {
		err = cerr
	}
	return w.call.Res, err
}

func (w *waiter[Req, Res]) signal() {
	select {
	case w.wake <- struct{}{}:
	default: // a wake-up is already pending; the status says the rest
	}
}

func (q *queue[S, Req, Res]) remove(w *waiter[Req, Res]) {
	for i, other := range q.waiting {
		if other == w {
			q.waiting = slices.Delete(q.waiting, i, i+1) // zeroes the freed slot
			return
		}
	}
}

// The leader's side of a Group: taking a batch, running it, settling it and
// passing the lead on.

// lead runs the next batch of q, which holds w's call first, on the
// goroutine of w, which holds the lead (w is promoted, first in the queue)
// and not g.mu. It first waits for q.notBefore, for as long as w's context
// allows: if that ends first, or by the time the batch is taken, w leaves
// the queue, the lead passes on and lead returns w's error, so that a
// caller who has given up never runs the others' batch. Once the batch has
// run, the calls it put back are first in the queue and the lead has passed
// on.
func (g *Group[K, S, Req, Res]) lead(key K, q *queue[S, Req, Res], w *waiter[Req, Res],
	run func(ctx context.Context, key K, state *S, batch []*Call[Req, Res])) error {
	if err := g.delay(q, w); err != nil {
		return err
	}
	batch, err := g.take(q, w)
	if err != nil {
		return err
	}
	if g.grace == nil || g.aloneHere && len(batch) == 1 {
		g.runHere(key, q, batch, run)
	} else {
		go g.runApart(key, q, batch, run)
	}
	return nil
}

// delay waits, on the goroutine of w, which holds the lead of q, until the
// next run of q may start: q.notBefore, or once q.fill calls wait. If w's
// context ends first, w resigns (see resign) and delay returns its error.
func (g *Group[K, S, Req, Res]) delay(q *queue[S, Req, Res], w *waiter[Req, Res]) error {
	g.mu.Lock()
	notBefore := q.notBefore // only a run's end changes it, and none is in progress
	if time.Until(notBefore) <= 0 || q.fill > 0 && len(q.waiting) >= q.fill {
		g.mu.Unlock()
		return nil
	}
	ctx := w.ctx
	if q.fill > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(w.ctx)
		q.filled = cancel // enqueue calls it once q.fill calls wait
		defer cancel()
	}
	g.mu.Unlock()
	err := g.wait(ctx, notBefore)
	g.mu.Lock()
	defer g.mu.Unlock()
	// Cleared before the lead can pass on (resign), so as not to clear the
	// next leader's. (If wait panics it stays, a no-op once called.)
	q.filled = nil
	if err != nil && w.ctx.Err() != nil {
		return g.resign(q, w, w.ctx.Err())
	}
	return nil // the time has come, or the calls
}

// resign takes w, which holds the lead and whose context has ended with
// err, out of q's queue and passes the lead on (the next leader waits for
// the same notBefore); it returns w's error. The caller holds g.mu.
func (g *Group[K, S, Req, Res]) resign(q *queue[S, Req, Res], w *waiter[Req, Res], err error) error {
	q.remove(w)
	g.handOff(q)
	return w.leave(err, q.cause)
}

// runHere runs batch on the calling goroutine, which holds the lead, and
// settles it. If run panics, its calls fail, the lead passes on, and the
// panic goes on up this goroutine's stack.
func (g *Group[K, S, Req, Res]) runHere(key K, q *queue[S, Req, Res], batch []*waiter[Req, Res],
	run func(ctx context.Context, key K, state *S, batch []*Call[Req, Res])) {
	finished := false
	defer func() {
		if !finished {
			g.finish(q, batch, errRunPanicked, nil)
		}
	}()
	g.runBatch(key, q, batch, run)
	finished = true
	g.finish(q, batch, nil, nil)
}

// runApart runs batch on its own goroutine, which holds the lead from the
// caller that took the batch until it is settled (GroupOptions.Grace: so that
// this caller, too, can leave while run goes on). If run panics, its calls
// fail, the lead passes on, and the panic's value goes to the first caller
// of the batch still in Do, which panics with it; if every caller has left,
// it goes on up this goroutine's stack, and ends the program.
func (g *Group[K, S, Req, Res]) runApart(key K, q *queue[S, Req, Res], batch []*waiter[Req, Res],
	run func(ctx context.Context, key K, state *S, batch []*Call[Req, Res])) {
	finished := false
	defer func() {
		if finished {
			return
		}
		p := recover() // nil: run called runtime.Goexit
		if !g.finish(q, batch, errRunPanicked, p) && p != nil {
			// Raised again here, on top of run's frames, which the
			// trace then shows.
			panic(p)
		}
	}()
	g.runBatch(key, q, batch, run)
	finished = true
	g.finish(q, batch, nil, nil)
}

// runBatch calls run with the calls of batch, under a context that ends when
// every caller of the batch has given up (see mergedContext).
func (g *Group[K, S, Req, Res]) runBatch(key K, q *queue[S, Req, Res], batch []*waiter[Req, Res],
	run func(ctx context.Context, key K, state *S, batch []*Call[Req, Res])) {
	calls := make([]*Call[Req, Res], len(batch))
	for i, w := range batch {
		calls[i] = &w.call
	}
	ctx, release := mergedContext(batch)
	defer release()
	run(ctx, key, &q.state, calls)
}

// take moves up to maxBatch calls from the head of q's queue into a batch,
// in order, starting with the call of leader, which is first; if leader's
// context has ended, it takes nothing: leader resigns, and take returns its
// error. Any other call whose context has ended never reaches run: it is
// done.
func (g *Group[K, S, Req, Res]) take(q *queue[S, Req, Res], leader *waiter[Req, Res]) ([]*waiter[Req, Res], error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := leader.ctx.Err(); err != nil {
		// It ended as the wait for notBefore did, or since Do looked.
		return nil, g.resign(q, leader, err)
	}
	var batch []*waiter[Req, Res]
	i := 0
	for ; i < len(q.waiting) && len(batch) < g.maxBatch; i++ {
		w := q.waiting[i]
		// The leader's context was looked at above: it is taken even if
		// it ended since, so that the batch is never empty (the run's
		// context tells it the end; see mergedContext).
		if err := w.ctx.Err(); err != nil && w != leader {
			w.call.Err = w.leave(err, q.cause)
			w.status = done
			w.signal()
			continue
		}
		w.status = inBatch
		batch = append(batch, w)
	}
	clear(q.waiting[:i]) // let the backing array drop them
	q.waiting = q.waiting[i:]
	return batch, nil
}

// finish settles the calls of a batch that has run: each one is done, or,
// put back (Again) and its caller still in Do, first in q's queue again. It
// records the batch's NotBefore and the cause of its put back (a batch that
// stored nothing and put nothing back keeps the cause before it), and
// passes the lead on. If run failed
// (failed, after a panic), every call fails with that error and q's
// state, which run was changing, is reset; p, the panic's value if not nil,
// goes to the first caller still in Do, and finish reports whether there was
// one.
func (g *Group[K, S, Req, Res]) finish(q *queue[S, Req, Res], batch []*waiter[Req, Res], failed error, p any) (passed bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	kept := q.cause // the callers queued still wait for what it says, unless run stored something
	stored := false
	q.notBefore, q.fill, q.cause = time.Time{}, 0, nil
	if failed != nil {
		var zero S
		q.state = zero
	}
	var again []*waiter[Req, Res]
	for _, w := range batch {
		c := &w.call
		if failed != nil {
			c.Err, c.Again = failed, false
		} else {
			stored = stored || !c.Again && c.Err == nil
			if c.NotBefore.After(q.notBefore) {
				q.notBefore = c.NotBefore
			}
			q.fill = max(q.fill, c.Fill)
			if q.cause == nil && !c.NotBefore.IsZero() {
				q.cause = c.Cause
			}
		}
		if c.Again && !c.gone {
			// Back in the queue as it came, but for Req (run may have
			// changed it) and the cause its caller may need.
			w.cause = c.Cause
			if q.cause == nil {
				q.cause = c.Cause
			}
			c.reset()
			w.status = queued
			w.signal() // its caller watches its context again
			again = append(again, w)
			continue
		}
		if p != nil && !passed && !c.gone {
			w.panic, passed = p, true
		}
		g.settleUnsent(w, failed, q.cause)
		w.status = done
		w.signal()
	}
	if q.cause == nil && !stored {
		// A run that stored nothing and put nothing back (every caller
		// of the batch left, as through an outage) says nothing new:
		// the calls queued behind it still wait after the cause before.
		q.cause = kept
	}
	if len(again) > 0 {
		q.waiting = append(again, q.waiting...)
	}
	g.handOff(q)
	return passed
}

// settleUnsent gives w's call, which run failed without publishing it (so
// nothing was sent for it), the error its caller leaves with (see abandon)
// if its context has ended already: with a grace, that caller leaves at
// once with its context's error, and which of the two it is told must not
// depend on whether its goroutine woke before run's ended (run's context
// ends only once its callers' have). failed is finish's. The caller holds
// g.mu.
func (g *Group[K, S, Req, Res]) settleUnsent(w *waiter[Req, Res], failed, queued error) {
	c := &w.call
	if g.grace == nil || failed != nil || c.published || c.gone || c.Err == nil {
		return
	}
	if err := w.ctx.Err(); err != nil {
		var zero Res
		c.Res, c.Err = zero, w.leave(err, queued)
	}
}

// handOff passes the lead of q to its oldest waiting caller, or gives it up
// if there is none. The caller holds the lead and g.mu.
func (g *Group[K, S, Req, Res]) handOff(q *queue[S, Req, Res]) {
	if len(q.waiting) > 0 {
		next := q.waiting[0]
		next.status = promoted
		next.signal()
		return
	}
	q.leading = false
	q.waiting = nil // let the old backing array go
	q.idle = true
	g.idle++
	if g.idle > g.maxIdle {
		g.evict()
	}
}

// evict drops idle keys, arbitrary ones, until at most maxIdle are left,
// but never one whose notBefore is still ahead: its next run must wait for
// it, and a dropped key's next run would start at once. If every idle key
// is delayed so, more than maxIdle are kept until a later call finds their
// time passed. The caller holds g.mu.
func (g *Group[K, S, Req, Res]) evict() {
	now := time.Now()
	for k, q := range g.keys {
		if q.idle && !q.notBefore.After(now) {
			delete(g.keys, k)
			g.idle--
			if g.idle <= g.maxIdle {
				return
			}
		}
	}
}

// mergedContext returns a context with the values of the first caller's
// context that is cancelled once every caller's context has ended, so that
// one impatient caller cannot fail the writes of the others, and release,
// which must be called when the run is over.
func mergedContext[Req, Res any](batch []*waiter[Req, Res]) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(batch[0].ctx))
	var remaining atomic.Int64
	remaining.Store(int64(len(batch)))
	stops := make([]func() bool, len(batch))
	for i, w := range batch {
		stops[i] = context.AfterFunc(w.ctx, func() {
			if remaining.Add(-1) == 0 {
				cancel()
			}
		})
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}

// Call is one caller's request inside a batch, and the slot for its outcome.
// While the call is in a batch, its exported fields belong to run (and to
// no one else); Publish may be called from run only.
type Call[Req, Res any] struct {
	Req Req
	Res Res   // set by run
	Err error // set by run
	// Again, set by run instead of an outcome, puts the call back at the
	// head of its key's queue: the next run takes it again, first, with
	// the calls that arrived meanwhile. run may change Req for that run.
	// run must put a call back only if nothing was stored for it.
	Again bool
	// NotBefore, set by run on any call of its batch, asks that the key's
	// next run start no earlier than then (the latest of the batch counts;
	// the zero time asks nothing). See the package comment.
	NotBefore time.Time
	// Fill, set by run with NotBefore, lets the key's next run start
	// before NotBefore as soon as Fill calls wait in the key's queue (the
	// leader's among them): a run that waits for the callers it has just
	// answered to call again stops waiting once they are back. The
	// largest of the batch counts; 0 (the default) waits for NotBefore.
	Fill int
	// Cause, set by run with Again, says why the call was put back (for
	// example a throttled write): if the caller's context ends before the
	// call is written again, Do's error matches Cause as well as the
	// context's error (errors.Is). Set with NotBefore on a call that is
	// done, it says why the key's next run waits (for example a pace
	// after throttles), for the callers queued meanwhile.
	Cause error

	// The publication (see Publish), shared by run and the call's caller:
	// guarded by mu, the Group's mutex.
	mu        *sync.Mutex
	published bool // run has published pending
	pending   Res
	gone      bool // the caller has left Do while the call was in a batch

	deadline time.Time // the caller's context's (see Deadline)
}

// Deadline is when the context of the call's caller ends; the zero time if
// it has no deadline, or the call was made outside a Group.
func (c *Call[Req, Res]) Deadline() time.Time { return c.deadline }

// ErrUnknownOutcome is the error (joined with its context's error) of a
// caller that gave up, after GroupOptions.Grace, while the write of its call
// was in flight or about to be sent: the call may or may not have been
// stored. Do returns it with the result run published (Call.Publish).
var ErrUnknownOutcome = errors.New("combine: the caller gave up with its write in flight: outcome unknown")

// Publish records pending (for example the number the call's item is about
// to be written at) as the result Do returns, with ErrUnknownOutcome, if
// the caller gives up while the call's write is in flight. run calls it
// just before it sends the call's write, and again before each resend of
// the call at another value.
//
// Publish reports false when the caller has already left Do: then run
// must not send the call's write (again). A caller that leaves before any
// Publish is told that nothing was stored, and Publish is how run learns
// it. So with GroupOptions.Grace, run must publish every call before sending
// its write; without a grace, callers stay until the outcome and Publish
// always reports true. A Call made outside a Group has no caller to lose.
func (c *Call[Req, Res]) Publish(pending Res) bool {
	if c.mu == nil {
		c.published, c.pending = true, pending
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gone {
		return false
	}
	c.published, c.pending = true, pending
	return true
}

// reset readies a call put back for its next run: only Req is kept. The
// caller holds the Group's mutex.
func (c *Call[Req, Res]) reset() {
	var zero Res
	c.Res, c.Err, c.Again, c.NotBefore, c.Fill, c.Cause = zero, nil, false, time.Time{}, 0, nil
	c.published, c.pending = false, zero
}

// errRunPanicked is the error of the calls of a run that panicked.
var errRunPanicked = errors.New("combine: run panicked")

// Limits of one TransactWriteItems call.
const (
	MaxTransactItems = 100
	MaxTransactBytes = 4 * 1024 * 1024
)

// BatchLen returns how many of the n calls at the head of a batch fit in
// one transaction: at most maxItems, and, beyond the first, at most
// MaxTransactBytes, counting size(i) for each call and, with copyLast, the
// last one's size once more (Latest's 'latest' item holds a copy of it).
func BatchLen(n, maxItems int, size func(i int) int, copyLast bool) int {
	k, bytes := 0, 0
	for k < n && k < maxItems {
		add := size(k)
		total := bytes + add
		if copyLast {
			total += add
		}
		if k > 0 && total > MaxTransactBytes {
			break
		}
		bytes += add
		k++
	}
	return k
}

// OneByOne writes the calls of a batch that DynamoDB refused as a whole
// without naming the item at fault, one per write, so that only the caller
// of the bad item fails. It costs a round trip per item, for this batch
// only.
func OneByOne[Req any](calls []*Call[Req, int64], write func([]*Call[Req, int64])) {
	for i := range calls {
		write(calls[i : i+1])
		if PutBack(calls[i:i+1], calls[i+1:]) {
			return
		}
	}
}

// PutBack reports whether a call of written, which a run has just written,
// was put back in the queue (Call.Again) after a lost race or to
// wait for capacity, and if so puts back rest too, unwritten, with the
// same cause: the calls of one process to one name are written in the
// order they arrived.
func PutBack[Req any](written, rest []*Call[Req, int64]) bool {
	for _, c := range written {
		if c.Again {
			for _, r := range rest {
				r.Again, r.Cause = true, c.Cause
			}
			return true
		}
	}
	return false
}

// lingerShare is the share of a round trip that the next run of a hot name
// waits at most for its callers (see Linger): usually they are all back
// long before, and the wait ends then; a caller that stopped calling costs
// the whole wait once.
const lingerShare = 5

// Linger asks, after a run of batch, that the name's next run wait for the
// callers the run has just answered if the batch held more than one call
// (the name is hot): until as many calls wait as the batch held, for at
// most lingerShare of rtt. They call again at once, and so join one batch,
// instead of a leader sending its own call alone the moment the run ends
// and the others waiting a round trip for the next. A caller alone on a
// name never waits (one left alone by callers that stopped waits once),
// and neither does a batch put back (its wait for capacity stands), nor
// one paced (Capacity.Won) to a time still ahead, whose wait the callers
// join. A pace whose time has passed by the end of the run (the write's
// round trip outlasted it) no longer holds the next run: it is dropped,
// and the batch lingers as one unpaced; kept, it let the first caller
// back send its call alone at once, the others a round trip later, and
// the name's callers stayed split so, a lone call and the rest, write
// after write (the model's 20 ms bucket: a third of the transactions).
func Linger[Req any](batch []*Call[Req, int64], rtt time.Duration) {
	if len(batch) < 2 {
		return
	}
	now := time.Now()
	for _, c := range batch {
		if c.Again || c.NotBefore.After(now) { // put back, or paced (Capacity.Won) still
			return
		}
	}
	for _, c := range batch {
		if !c.NotBefore.IsZero() { // a pace that has passed
			c.NotBefore, c.Cause = time.Time{}, nil
		}
	}
	batch[0].NotBefore, batch[0].Fill = now.Add(rtt/lingerShare), len(batch)
}

// ErrCallerLeft is the outcome of a call whose caller left before its
// write was sent (Call.Publish reported false); nobody reads it.
var ErrCallerLeft = errors.New("the caller left before its write was sent")

// Publish tells the callers of calls, just before their write is sent,
// what they are about to get: first, first+step, first+2*step...
// (Call.Publish: what a caller whose context ends while the write
// is in flight is told, with the root's ErrUnknownOutcome; the numbers of
// a SortKey's or a Latest's items, step 1, and 0 for a Counter's ranges,
// step 0). A caller that has left already is not written: Publish returns
// the calls to write, in order, and calls itself when every caller is
// still there.
func Publish[Req any](calls []*Call[Req, int64], first, step int64) []*Call[Req, int64] {
	next := first
	var kept []*Call[Req, int64] // nil while every caller is there
	for i, c := range calls {
		if !c.Publish(next) {
			if kept == nil {
				kept = append(make([]*Call[Req, int64], 0, len(calls)), calls[:i]...)
			}
			c.Err = ErrCallerLeft
			continue
		}
		next += step
		if kept != nil {
			kept = append(kept, c)
		}
	}
	if kept == nil {
		return calls
	}
	return kept
}

// Racer is a write call's request, which counts the races its call lost
// (a pointer to it, so that a run can count one more).
type Racer[Req any] interface {
	*Req
	Lose() int // counts one more lost race and returns the count
}

// RaceLost puts back in the queue (Call.Again) the calls of a
// write that has just lost a race, so that they are written again as soon
// as the lead passes on, with the calls that arrived meanwhile: while a
// process waits for its turn, its next write grows. A call that has lost
// maxAttempts races fails with contention (the root's ErrContention)
// instead, wrapping err, the last race's error. It reports whether it put
// any call back.
func RaceLost[Req any, R Racer[Req]](calls []*Call[Req, int64], maxAttempts int, contention, err error) (again bool) {
	for _, c := range calls {
		if n := R(&c.Req).Lose(); n >= maxAttempts {
			c.Err = fmt.Errorf("%w: lost %d races to other writers: %w", contention, n, err)
		} else {
			c.Again, again = true, true
		}
	}
	return again
}

// Fail sets err as the outcome of every call.
func Fail[Req any](calls []*Call[Req, int64], err error) {
	for _, c := range calls {
		c.Err = err
	}
}

// Batched is a write call's request as RunBatches reads it (a pointer to
// it).
type Batched[Req any] interface {
	*Req
	Bytes() int  // the item's size in bytes, keys included
	Races() int  // races lost so far (see RaceLost)
	Key() string // the partition key value of the call's key item (see KeyAttribute); "" for none
}

// RunBatches writes the calls of one run in order, in as few writes as
// DynamoDB's limits allow (maxItems; copyLast as for BatchLen), counting
// each batch once with counted, and stops when a write put its calls back
// in the queue (see PutBack). Key items must fit too: a batch holding a
// call with a key takes at most half of maxItems calls (each may bring its
// key item), and a call whose key repeats an earlier call's of the batch
// starts the next one (DynamoDB refuses two actions on one item in a
// transaction; the second meets the first's key item, and replays it).
func RunBatches[Req any, R Batched[Req]](batch []*Call[Req, int64], maxItems int, copyLast bool, counted func(n int), write func([]*Call[Req, int64])) {
	for len(batch) > 0 {
		k, limit := keyed[Req, R](batch, maxItems)
		n := BatchLen(k, limit, func(i int) int { return R(&batch[i].Req).Bytes() }, copyLast)
		if R(&batch[0].Req).Races() == 0 { // a batch put back is counted once
			counted(n)
		}
		write(batch[:n])
		if PutBack(batch[:n], batch[n:]) {
			return
		}
		batch = batch[n:]
	}
}

// keyed returns how many calls at the head of batch may share one write as
// far as their key items go, and the most calls that write may hold:
// maxItems, or half of it once a call brings a key item (see RunBatches).
func keyed[Req any, R Batched[Req]](batch []*Call[Req, int64], maxItems int) (n, limit int) {
	limit = maxItems
	var seen map[string]bool // made at the first key: calls without one allocate nothing
	for ; n < len(batch) && n < limit; n++ {
		k := R(&batch[n].Req).Key()
		if k == "" {
			continue
		}
		if seen == nil {
			seen, limit = map[string]bool{}, max(maxItems/2, 1)
		}
		if seen[k] {
			break
		}
		seen[k] = true
	}
	return min(n, limit), limit
}
