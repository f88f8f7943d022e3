package dynamoseq

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/internal/backoff"
	"github.com/dynamoseq/dynamoseq/internal/engine"
)

// The pieces of the write path that SortKey and Latest share. Their retry
// algorithms differ (a SortKey queries the last number, a Latest reads the
// version from the failed condition), and each keeps its own.

// appendReq is one call to Append, of a SortKey or a Latest, waiting for its
// number.
type appendReq struct {
	attrs map[string]types.AttributeValue // the item without its keys; the run adds them
	size  int                             // the item's size in bytes, keys included
	races int                             // races lost so far (see engine.RaceLost)
	// waitingSince is when DynamoDB first refused the call's write for
	// want of capacity or for a conflict (see waitForCapacity); zero if
	// it never did.
	waitingSince time.Time
}

func (r *appendReq) refusedSince() *time.Time { return &r.waitingSince }

func (r *appendReq) Lose() int {
	r.races++
	return r.races
}

// runBatches writes the calls of one run in order, in as few writes as
// DynamoDB's limits allow (maxItems; copyLast as for engine.BatchLen), counting
// each batch once in stats, and stops when a write put its calls back in
// the queue (see engine.PutBack).
func runBatches(batch []*engine.Call[appendReq, int64], maxItems int, copyLast bool, stats *appendStats, write func([]*engine.Call[appendReq, int64])) {
	for len(batch) > 0 {
		n := engine.BatchLen(len(batch), maxItems, func(i int) int { return batch[i].Req.size }, copyLast)
		if batch[0].Req.races == 0 { // a batch put back is counted once
			stats.batch(n)
		}
		write(batch[:n])
		if engine.PutBack(batch[:n], batch[n:]) {
			return
		}
		batch = batch[n:]
	}
}

// decide is the verdict on the outcome of a write that returned err (see
// engine.Decide): every write path of every strategy takes it, and only it.
func decide(err error) engine.Verdict { return engine.Decide(err, ErrUnknownOutcome) }

// callError is the error a write call returns for err, the error its run
// set; n is the number its run set with it, which an unknown outcome may
// have stored. When the caller's context has ended too, an unknown outcome
// carries the context's error as well.
func callError(ctx context.Context, op, table, name string, n int64, err error) error {
	if errors.Is(err, engine.ErrUnknownOutcome) && !errors.Is(err, ErrUnknownOutcome) {
		// The caller left after the grace, with the number its run
		// published (see engine.Publish).
		err = fmt.Errorf("%w: the caller's context ended while its write was in flight: %w", ErrUnknownOutcome, ctx.Err())
	}
	e := &Error{Op: op, Table: table, Sequence: name, Err: err}
	if errors.Is(err, ErrUnknownOutcome) {
		e.Number = n
		if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			e.Err = errors.Join(err, cerr)
		}
	}
	return e
}

// graceOf is the option of a SortKey's or a Latest's engine.Group: with
// ResolveTimeout 0 (the caller's deadline bounds the call), a caller whose
// context ends while its write is in flight waits about one round trip
// (rtt's grace) for the outcome, and then returns ErrUnknownOutcome with
// the number published for it (see engine.Publish). With ResolveTimeout set, it
// waits for the outcome, which the resends settle, detached.
func graceOf(r Retry, rtt *roundTrip) func(*engine.GroupOptions) {
	return func(o *engine.GroupOptions) {
		if r.ResolveTimeout == 0 {
			o.Grace = rtt.grace
		}
	}
}

// nameWriter is what a SortKey or a Latest knows of the writes of one
// name, beside its last number: the waits for capacity and the turns with
// other processes (see turns). Only the run in progress for the name
// touches it (see engine.Group).
type nameWriter struct {
	capacity     backoff.Capacity // the waits after throttles and conflicts
	engine.Turns                  // with writers of other processes
}

// pacing is what a SortKey's or a Latest's runs need to pace the writes of
// a name: Retry.MaxWait, the strategy's round trips and its figures.
type pacing struct {
	maxWait time.Duration
	rtt     *roundTrip
	stats   *appendStats
}

// won records a write of w's name that started at start, in turn tn, and
// succeeded (both writes, without transactions).
func (p pacing) won(w *nameWriter, start time.Time, tn engine.Turn) {
	p.rtt.add(time.Since(start))
	w.capacity.Reset()
	if w.Won(start, tn) {
		p.stats.turns.Add(1)
	}
}

// headFailed handles calls whose write could not be placed: the read of
// the name's head failed with err (or a wait for turns ended with the
// context).
func (p pacing) headFailed(w *nameWriter, calls []*engine.Call[appendReq, int64], err error) {
	if capacityRefused(err) {
		p.waitForCapacity(w, calls, err)
		return
	}
	engine.Fail(calls, unsent(err))
}

// waitForCapacity puts calls back in the queue after DynamoDB refused
// their write (or a read before it) with err, a throttle or a conflict
// (see waitForCapacity).
func (p pacing) waitForCapacity(w *nameWriter, calls []*engine.Call[appendReq, int64], err error) {
	waitForCapacity(calls, &w.capacity, w.RoundTrip(), p.maxWait, &p.stats.waits, err)
}
