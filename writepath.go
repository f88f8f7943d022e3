package dynamoseq

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/internal/backoff"
	"github.com/dynamoseq/dynamoseq/internal/combine"
	"github.com/dynamoseq/dynamoseq/internal/engine"
	"github.com/dynamoseq/dynamoseq/internal/turns"
)

// Limits of one TransactWriteItems call.
const (
	maxTransactItems = 100
	maxTransactBytes = 4 * 1024 * 1024
)

// The pieces of the write path that SortKey and Latest share. Their retry
// algorithms differ (a SortKey queries the last number, a Latest reads the
// version from the failed condition), and each keeps its own.

// appendReq is one call to Append, of a SortKey or a Latest, waiting for its
// number.
type appendReq struct {
	attrs map[string]types.AttributeValue // the item without its keys; the run adds them
	size  int                             // the item's size in bytes, keys included
	races int                             // races lost so far (see raceLost)
	// waitingSince is when DynamoDB first refused the call's write for
	// want of capacity or for a conflict (see waitForCapacity); zero if
	// it never did.
	waitingSince time.Time
}

func (r *appendReq) refusedSince() *time.Time { return &r.waitingSince }

func (r *appendReq) lose() int {
	r.races++
	return r.races
}

// runBatches writes the calls of one run in order, in as few writes as
// DynamoDB's limits allow (maxItems; copyLast as for batchLen), counting
// each batch once in stats, and stops when a write put its calls back in
// the queue (see putBack).
func runBatches(batch []*combine.Call[appendReq, int64], maxItems int, copyLast bool, stats *appendStats, write func([]*combine.Call[appendReq, int64])) {
	for len(batch) > 0 {
		n := batchLen(len(batch), maxItems, func(i int) int { return batch[i].Req.size }, copyLast)
		if batch[0].Req.races == 0 { // a batch put back is counted once
			stats.batch(n)
		}
		write(batch[:n])
		if putBack(batch[:n], batch[n:]) {
			return
		}
		batch = batch[n:]
	}
}

// batchLen returns how many of the n calls at the head of a batch fit in one
// transaction: at most maxItems, and, beyond the first, at most
// maxTransactBytes, counting size(i) for each call and, with copyLast, the
// last one's size once more (Latest's 'latest' item holds a copy of it).
func batchLen(n, maxItems int, size func(i int) int, copyLast bool) int {
	k, bytes := 0, 0
	for k < n && k < maxItems {
		add := size(k)
		total := bytes + add
		if copyLast {
			total += add
		}
		if k > 0 && total > maxTransactBytes {
			break
		}
		bytes += add
		k++
	}
	return k
}

// oneByOne writes the calls of a batch that DynamoDB refused as a whole
// without naming the item at fault, one per write, so that only the caller
// of the bad item fails. It costs a round trip per item, for this batch
// only.
func oneByOne[Req any](calls []*combine.Call[Req, int64], write func([]*combine.Call[Req, int64])) {
	for i := range calls {
		write(calls[i : i+1])
		if putBack(calls[i:i+1], calls[i+1:]) {
			return
		}
	}
}

// putBack reports whether a call of written, which a run has just written,
// was put back in the queue (combine.Call.Again) after a lost race or to
// wait for capacity, and if so puts back rest too, unwritten, with the
// same cause: the calls of one process to one name are written in the
// order they arrived.
func putBack[Req any](written, rest []*combine.Call[Req, int64]) bool {
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
// waits at most for its callers (see linger): usually they are all back
// long before, and the wait ends then; a caller that stopped calling costs
// the whole wait once.
const lingerShare = 5

// linger asks, after a run of batch, that the name's next run wait for the
// callers the run has just answered if the batch held more than one call
// (the name is hot): until as many calls wait as the batch held, for at
// most lingerShare of rtt. They call again at once, and so join one batch,
// instead of a leader sending its own call alone the moment the run ends
// and the others waiting a round trip for the next. A caller alone on a
// name never waits (one left alone by callers that stopped waits once),
// and neither does a batch put back (its wait for capacity stands).
func linger[Req any](batch []*combine.Call[Req, int64], rtt time.Duration) {
	if len(batch) < 2 {
		return
	}
	for _, c := range batch {
		if c.Again {
			return
		}
	}
	batch[0].NotBefore, batch[0].Fill = time.Now().Add(rtt/lingerShare), len(batch)
}

// errCallerLeft is the outcome of a call whose caller left before its
// write was sent (combine.Call.Publish reported false); nobody reads it.
var errCallerLeft = errors.New("the caller left before its write was sent")

// publish tells the callers of calls, just before their write is sent,
// what they are about to get: first, first+step, first+2*step...
// (combine.Call.Publish: what a caller whose context ends while the write
// is in flight is told, with ErrUnknownOutcome; the numbers of a SortKey's
// or a Latest's items, step 1, and 0 for a Counter's ranges, step 0). A
// caller that has left already is not written: publish returns the calls
// to write, in order, and calls itself when every caller is still there.
func publish[Req any](calls []*combine.Call[Req, int64], first, step int64) []*combine.Call[Req, int64] {
	next := first
	var kept []*combine.Call[Req, int64] // nil while every caller is there
	for i, c := range calls {
		if !c.Publish(next) {
			if kept == nil {
				kept = append(make([]*combine.Call[Req, int64], 0, len(calls)), calls[:i]...)
			}
			c.Err = errCallerLeft
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

// racer is a write call's request, which counts the races its call lost
// (a pointer to it, so that a run can count one more).
type racer[Req any] interface {
	*Req
	lose() int // counts one more lost race and returns the count
}

// raceLost puts back in the queue (combine.Call.Again) the calls of a write
// that has just lost a race, so that they are written again as soon as the
// lead passes on, with the calls that arrived meanwhile: while a process
// waits for its turn, its next write grows. A call that has lost
// maxAttempts races fails with ErrContention instead, wrapping err, the
// last race's error. It reports whether it put any call back.
func raceLost[Req any, R racer[Req]](calls []*combine.Call[Req, int64], maxAttempts int, err error) (again bool) {
	for _, c := range calls {
		if n := R(&c.Req).lose(); n >= maxAttempts {
			c.Err = fmt.Errorf("%w: lost %d races to other writers: %w", ErrContention, n, err)
		} else {
			c.Again, again = true, true
		}
	}
	return again
}

// decide is the verdict on the outcome of a write that returned err (see
// engine.Decide): every write path of every strategy takes it, and only it.
func decide(err error) engine.Verdict { return engine.Decide(err, ErrUnknownOutcome) }

// failCalls sets err as the outcome of every call.
func failCalls[Req any](calls []*combine.Call[Req, int64], err error) {
	for _, c := range calls {
		c.Err = err
	}
}

// callError is the error a write call returns for err, the error its run
// set; n is the number its run set with it, which an unknown outcome may
// have stored. When the caller's context has ended too, an unknown outcome
// carries the context's error as well.
func callError(ctx context.Context, op, table, name string, n int64, err error) error {
	if errors.Is(err, combine.ErrUnknownOutcome) && !errors.Is(err, ErrUnknownOutcome) {
		// The caller left after the grace, with the number its run
		// published (see publish).
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

// graceOf is the option of a SortKey's or a Latest's combine.Group: with
// ResolveTimeout 0 (the caller's deadline bounds the call), a caller whose
// context ends while its write is in flight waits about one round trip
// (rtt's grace) for the outcome, and then returns ErrUnknownOutcome with
// the number published for it (see publish). With ResolveTimeout set, it
// waits for the outcome, which the resends settle, detached.
func graceOf(r Retry, rtt *roundTrip) func(*combine.Options) {
	return func(o *combine.Options) {
		if r.ResolveTimeout == 0 {
			o.Grace = rtt.grace
		}
	}
}

// nameWriter is what a SortKey or a Latest knows of the writes of one
// name, beside its last number: the waits for capacity and the turns with
// other processes (see turns). Only the run in progress for the name
// touches it (see combine.Group).
type nameWriter struct {
	capacity    backoff.Capacity // the waits after throttles and conflicts
	turns.State                  // with writers of other processes
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
func (p pacing) won(w *nameWriter, start time.Time, tn turns.Turn) {
	p.rtt.add(time.Since(start))
	w.capacity.Reset()
	if w.Won(start, tn) {
		p.stats.turns.Add(1)
	}
}

// headFailed handles calls whose write could not be placed: the read of
// the name's head failed with err (or a wait for turns ended with the
// context).
func (p pacing) headFailed(w *nameWriter, calls []*combine.Call[appendReq, int64], err error) {
	if capacityRefused(err) {
		p.waitForCapacity(w, calls, err)
		return
	}
	failCalls(calls, unsent(err))
}

// waitForCapacity puts calls back in the queue after DynamoDB refused
// their write (or a read before it) with err, a throttle or a conflict
// (see waitForCapacity).
func (p pacing) waitForCapacity(w *nameWriter, calls []*combine.Call[appendReq, int64], err error) {
	waitForCapacity(calls, &w.capacity, w.RoundTrip(), p.maxWait, &p.stats.waits, err)
}
