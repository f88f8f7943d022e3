// Package combine batches concurrent calls that share a key, so that the
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
// both the context's error and the cause. Without a cause, ctx.Err().
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
package combine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
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
	state  S // read and written only by the lead's run
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
			err := w.leave(ctx.Err())
			g.mu.Unlock()
			return zero, err
		case st == inBatch && ended && g.grace != nil && (!w.call.published || graceOver):
			res, err := w.abandon(ctx.Err())
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
// call's last put back if run gave one. The caller holds g.mu.
func (w *waiter[Req, Res]) leave(err error) error {
	if w.cause == nil {
		return err
	}
	return fmt.Errorf("%w (waiting to write again after: %w)", err, w.cause)
}

// abandon is what Do returns when w's caller gives up (err, its context's
// error) while its call is in a running batch, and marks the call gone, so
// that Publish reports false from now on: the result run published, with
// ErrUnknownOutcome; or, if run published nothing, and so will send
// nothing, err as leave has it. The caller holds g.mu.
func (w *waiter[Req, Res]) abandon(err error) (Res, error) {
	w.call.gone = true
	if !w.call.published {
		var zero Res
		return zero, w.leave(err)
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
