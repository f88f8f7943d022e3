package combine

import (
	"context"
	"sync/atomic"
	"time"
)

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
	return w.leave(err)
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
		if err := w.ctx.Err(); err != nil {
			w.call.Err = w.leave(err)
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
// records the batch's NotBefore and passes the lead on. If run failed
// (failed, after a panic), every call fails with that error and q's
// state, which run was changing, is reset; p, the panic's value if not nil,
// goes to the first caller still in Do, and finish reports whether there was
// one.
func (g *Group[K, S, Req, Res]) finish(q *queue[S, Req, Res], batch []*waiter[Req, Res], failed error, p any) (passed bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	q.notBefore, q.fill = time.Time{}, 0
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
			if c.NotBefore.After(q.notBefore) {
				q.notBefore = c.NotBefore
			}
			q.fill = max(q.fill, c.Fill)
		}
		if c.Again && !c.gone {
			// Back in the queue as it came, but for Req (run may have
			// changed it) and the cause its caller may need.
			w.cause = c.Cause
			c.reset()
			w.status = queued
			w.signal() // its caller watches its context again
			again = append(again, w)
			continue
		}
		if p != nil && !passed && !c.gone {
			w.panic, passed = p, true
		}
		w.status = done
		w.signal()
	}
	if len(again) > 0 {
		q.waiting = append(again, q.waiting...)
	}
	g.handOff(q)
	return passed
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
