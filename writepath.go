package dynamoseq

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dynamoseq/dynamoseq/internal/engine"
)

// The pieces of the write path that SortKey and Latest share. Their retry
// algorithms differ (a SortKey queries the last number, a Latest reads the
// version from the failed condition), and each keeps its own.

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
func graceOf(r Retry, rtt *engine.RoundTrip) func(*engine.GroupOptions) {
	return func(o *engine.GroupOptions) {
		if r.ResolveTimeout == 0 {
			o.Grace = rtt.Grace
		}
	}
}

// pacing is what a SortKey's or a Latest's runs need to pace the writes of
// a name: the engine's pace (its Won records a write that succeeded),
// Retry.MaxWait and the strategy's figures.
type pacing struct {
	engine.Pace
	share    *engine.Share // the table's write budget, shared by its names
	maxWait  time.Duration
	stats    *appendStats
	copyLast bool // a write carries the last item twice (Latest's 'latest')
	single   bool // writes one item a request, no transactions
}

// headFailed handles calls whose write could not be placed: the read of
// the name's head failed with err (or a wait for turns ended with the
// context).
func (p pacing) headFailed(w *engine.NameWriter, calls []*engine.Call[appendReq, int64], err error) {
	if capacityRefused(err) {
		p.waitForCapacity(w, calls, err)
		return
	}
	engine.Fail(calls, unsent(err))
}

// waitForCapacity puts calls back in the queue after DynamoDB refused
// their write (or a read before it) with err, a throttle or a conflict
// (see waitForCapacity).
func (p pacing) waitForCapacity(w *engine.NameWriter, calls []*engine.Call[appendReq, int64], err error) {
	p.refused(w, calls, time.Now(), err)
}

// refused is waitForCapacity for the write of calls sent at sent: a
// throttle at a ceiling that the table's names share (engine.Share.Throttled)
// waits for the name's turn in the table's share, any other refusal as
// the name's Capacity says.
func (p pacing) refused(w *engine.NameWriter, calls []*engine.Call[appendReq, int64], sent time.Time, err error) {
	if sharedRefusal(p.share, &w.Seat, calls, sent, p.charged(calls), p.maxWait, &p.stats.waits, err) {
		return
	}
	waitForCapacity(calls, &w.Capacity, sent, w.RoundTrip(), p.maxWait, engine.BatchUnits(calls, p.copyLast), &p.stats.waits, err)
}

// seated reports whether calls, about to be written, must wait for the
// name's turn in the table's share instead, and if so puts them back in
// the queue until then (see takeSlot).
func (p pacing) seated(w *engine.NameWriter, calls []*engine.Call[appendReq, int64]) bool {
	return takeSlot(p.share, &w.Seat, calls, p.charged(calls), p.maxWait)
}

// charged is the write units DynamoDB charges the write of calls, as the
// table's share counts them: twice the items' for a transaction (see
// engine.Units); without transactions, the first call's write alone (see
// oneWrite).
func (p pacing) charged(calls []*engine.Call[appendReq, int64]) float64 {
	if p.single {
		return p.oneWrite(calls)
	}
	u := engine.BatchUnits(calls, p.copyLast)
	if p.copyLast || len(calls) > 1 || calls[0].Req.key != nil {
		u *= 2 // a TransactWriteItems (see SortKey.put, Latest.transaction)
	}
	return u
}

// oneWrite is the write units DynamoDB charges the write of calls' first
// call without transactions, which writes one item a request: its item's,
// twice with the copy to 'latest' (a Latest's two PutItems). The table's
// share takes a slot and records an admitted write of that many.
func (p pacing) oneWrite(calls []*engine.Call[appendReq, int64]) float64 {
	return engine.BatchUnits(calls[:1], p.copyLast)
}

// Won records a write of one item a request (without transactions) that
// DynamoDB stored (see engine.Pace.Won), in the table's share too.
func (p pacing) Won(w *engine.NameWriter, start time.Time, tn engine.Turn, units float64) time.Time {
	p.share.Admitted(&w.Seat, start, units)
	return p.Pace.Won(w, start, tn, units)
}

// conflicted is refused for a write of calls, sent at sent, that met
// another writer's transaction in flight (err, a conflict): the turns
// count it as a lost race, and the writer reads the head once that write
// has landed, to learn its turn (see engine.Turns.Conflicted); the wait
// before the calls are sent again is a conflict's first, not one that
// doubles per conflict in a row, since the turns order the writers.
// The caller must read the head before the name's next write.
func (p pacing) conflicted(w *engine.NameWriter, calls []*engine.Call[appendReq, int64], sent time.Time, err error) {
	w.Conflicted(sent)
	w.Capacity.Reset()
	p.refused(w, calls, sent, err)
}

// errPaced is why the callers queued behind a paced write wait (see won).
var errPaced = errors.New("the name's writes are paced at the rate DynamoDB admitted them after a throttle")

// won records a write of calls that DynamoDB stored, started at start in
// turn tn (see engine.Pace.Won), and paces the name's next run: it starts
// no earlier than Capacity.Won says.
func (p pacing) won(w *engine.NameWriter, calls []*engine.Call[appendReq, int64], start time.Time, tn engine.Turn) {
	p.share.Admitted(&w.Seat, start, p.charged(calls))
	if next := p.Pace.Won(w, start, tn, engine.BatchUnits(calls, p.copyLast)); !next.IsZero() {
		// The callers queued meanwhile wait for capacity: one whose
		// context ends first gets ErrThrottled, as behind a throttle.
		calls[0].NotBefore, calls[0].Cause = next, &capacityError{kind: ErrThrottled, wait: time.Until(next), err: errPaced}
	}
}
