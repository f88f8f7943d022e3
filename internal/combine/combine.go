// Package combine batches concurrent calls that share a key, so that the
// callers writing to one sequence take turns through DynamoDB as one writer
// instead of racing each other, and so that one round trip can serve many of
// them.
//
// There is no goroutine of its own: the first caller of an idle key leads,
// runs one batch (which holds its own call), hands the lead to the oldest
// caller still waiting, and returns. Every caller therefore waits for at most
// the batches queued ahead of it plus its own.
package combine

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
)

// Call is one caller's request inside a batch, and the slot for its outcome.
type Call[Req, Res any] struct {
	Req Req
	Res Res   // set by run
	Err error // set by run
	// Again, set by run instead of an outcome, puts the call back at the
	// head of its key's queue: the next run takes it again, first, with
	// the calls that arrived meanwhile. run may change Req for that run.
	Again bool
}

// Group batches concurrent calls per key. It is safe for concurrent use.
type Group[K comparable, S, Req, Res any] struct {
	maxBatch, maxIdle int

	mu   sync.Mutex // protects keys, idle, and every queue and waiter reached from them
	keys map[K]*queue[S, Req, Res]
	idle int // how many queues in keys are idle
}

// queue is the state of one key.
type queue[S, Req, Res any] struct {
	waiting []*waiter[Req, Res] // calls not yet in a batch, oldest first
	leading bool                // some caller holds the lead for this key
	idle    bool                // counted in Group.idle: no lead, nothing waiting
	state   S                   // read and written only by the lead's run
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
	wake   chan struct{} // capacity 1: status changed to promoted or done
}

// New returns a Group that passes at most maxBatch calls to one run and keeps
// the state of at most maxIdle keys that have no call in progress. Beyond
// that, an idle key is dropped (an arbitrary one, as Go's map iteration
// yields it) and the next run of that key starts from the zero S.
func New[K comparable, S, Req, Res any](maxBatch, maxIdle int) *Group[K, S, Req, Res] {
	if maxBatch < 1 {
		panic("combine: maxBatch < 1")
	}
	return &Group[K, S, Req, Res]{maxBatch: maxBatch, maxIdle: maxIdle, keys: make(map[K]*queue[S, Req, Res])}
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
// ctx.Err() without reaching run again). Only the leading caller's run is used for
// a batch, so every caller of one key must pass the same run, and run must not
// call Do for its own key, which would wait for itself. If run panics, its
// calls fail, the key's state is reset to the zero S, the lead passes on, and
// the panic continues up the leading caller's stack.
//
// If ctx ends before req joins a batch, Do returns ctx.Err() and req never
// reaches run. Once req is in a running batch, Do waits for its outcome
// even if ctx ends, so that the caller learns what was written; run's
// context ends when every caller of the batch has given up, so a run that
// honours it ends promptly. When ctx has ended and the outcome's error is
// context.Canceled (run's context ending), Do returns ctx.Err() instead, so
// that a caller whose deadline passed sees context.DeadlineExceeded.
func (g *Group[K, S, Req, Res]) Do(ctx context.Context, key K, req Req,
	run func(ctx context.Context, key K, state *S, batch []*Call[Req, Res])) (Res, error) {
	if err := ctx.Err(); err != nil {
		var zero Res
		return zero, err
	}
	w := &waiter[Req, Res]{ctx: ctx, call: Call[Req, Res]{Req: req}, wake: make(chan struct{}, 1)}

	g.mu.Lock()
	q := g.keys[key]
	if q == nil {
		q = &queue[S, Req, Res]{}
		g.keys[key] = q
	}
	q.waiting = append(q.waiting, w)
	lead := !q.leading
	if lead {
		if q.idle {
			q.idle = false
			g.idle--
		}
		q.leading = true
		w.status = promoted
	}
	g.mu.Unlock()

	gaveUp := ctx.Done() // nil once req is in a batch: then only its outcome counts
	for {
		if lead {
			g.lead(key, q, run)
			// The lead's own call was the oldest in its queue, so it was in
			// the batch just run: it is done, or back in the queue (Again)
			// and then the oldest, promoted to lead the next run.
			g.mu.Lock()
			again := w.status != done
			g.mu.Unlock()
			if !again {
				return w.outcome()
			}
			lead, gaveUp = false, ctx.Done()
			continue
		}
		select {
		case <-w.wake:
		case <-gaveUp:
		}
		g.mu.Lock()
		switch w.status {
		case done:
			g.mu.Unlock()
			return w.outcome()
		case promoted:
			if ctx.Err() != nil {
				// Give up the call and pass the lead straight on: the
				// callers behind this one still need a turn, but not on
				// the goroutine of a caller that has given up.
				q.remove(w)
				g.handOff(q)
				g.mu.Unlock()
				var zero Res
				return zero, ctx.Err()
			}
			lead = true
			g.mu.Unlock()
		case queued:
			if ctx.Err() == nil {
				g.mu.Unlock()
				continue // put back (Again), still waiting
			}
			q.remove(w)
			g.mu.Unlock()
			var zero Res
			return zero, ctx.Err()
		case inBatch:
			g.mu.Unlock()
			gaveUp = nil
		}
	}
}

// outcome is the result of w's call, with the caller's own context error in
// place of the batch's cancellation.
func (w *waiter[Req, Res]) outcome() (Res, error) {
	err := w.call.Err
	if cerr := w.ctx.Err(); cerr != nil && err != nil && errors.Is(err, context.Canceled) && !errors.Is(err, cerr) {
		err = cerr
	}
	return w.call.Res, err
}

// lead runs one batch of q, then hands the lead on or gives it up. The
// caller holds the lead and not g.mu.
func (g *Group[K, S, Req, Res]) lead(key K, q *queue[S, Req, Res],
	run func(ctx context.Context, key K, state *S, batch []*Call[Req, Res])) {
	g.mu.Lock()
	var batch []*waiter[Req, Res]
	i := 0
	for ; i < len(q.waiting) && len(batch) < g.maxBatch; i++ {
		w := q.waiting[i]
		if err := w.ctx.Err(); err != nil {
			// Gave up before joining a batch: never reaches run.
			w.call.Err = err
			w.status = done
			w.signal()
			continue
		}
		w.status = inBatch
		batch = append(batch, w)
	}
	clear(q.waiting[:i]) // let the backing array drop them
	q.waiting = q.waiting[i:]
	g.mu.Unlock()

	finished := false
	defer func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if !finished {
			// run panicked: fail its calls rather than report zero
			// results as successes, and distrust the state it was
			// changing. The panic goes on up the leader's stack.
			for _, w := range batch {
				w.call.Err = errRunPanicked
			}
			var zero S
			q.state = zero
		}
		var again []*waiter[Req, Res]
		for _, w := range batch {
			if w.call.Again && finished {
				w.call.Again = false
				w.status = queued
				again = append(again, w)
				continue
			}
			w.status = done
			w.signal()
		}
		if len(again) > 0 {
			q.waiting = append(again, q.waiting...)
		}
		g.handOff(q)
	}()
	if len(batch) > 0 {
		calls := make([]*Call[Req, Res], len(batch))
		for i, w := range batch {
			calls[i] = &w.call
		}
		ctx, release := mergedContext(batch)
		defer release()
		run(ctx, key, &q.state, calls)
	}
	finished = true
}

var errRunPanicked = errors.New("combine: run panicked")

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
		for k, other := range g.keys {
			if other.idle {
				delete(g.keys, k)
				g.idle--
				break
			}
		}
	}
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
