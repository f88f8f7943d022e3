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
// a name: the engine's pace (the table's share among them), Retry.MaxWait
// and the strategy's figures. On a write's way, a run holds late callers
// (late) before it asks engine.Slot, and again before it sends, and calls
// engine.WonBatch (or Pace.Won) after it; pacing holds what follows a
// refusal or a wait.
type pacing struct {
	engine.Pace
	maxWait time.Duration
	stats   *appendStats
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
	if sharedRefusal(p.Share, &w.Seat, calls, sent, engine.Charged(p.Pace, calls), p.maxWait, &p.stats.waits, err) {
		w.Capacity.Shared() // the last refusal is a throttle (see late)
		return
	}
	waitForCapacity(calls, &w.Capacity, sent, w.RoundTrip(), p.maxWait, engine.BatchUnits(calls, p.CopyLast), &p.stats.waits, err)
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

// errLate is why a call is held back (see late).
var errLate = errors.New("its deadline came within a round trip while DynamoDB refused the name's writes")

// late holds back the calls whose caller's deadline comes within a round
// trip, while DynamoDB refuses the name's writes (w.Refused) and calls
// hold one that a refusal, or a wait for the table's turn, put back; it
// returns the others, to send: a write sent for them would most likely be
// refused, and still be in flight when the caller leaves, who would learn
// only ErrUnknownOutcome. Held, the caller leaves at its deadline with
// ErrThrottled, or ErrContention when the last refusal was a conflict
// (RetryAfter: the round trip). The calls held ask the name's next run to
// wait until their callers have left; the wait is not a refusal's
// (Stats.WaitTime). A call whose deadline has passed gets its deadline's
// error and that kind at once: held, the next run would take it again, at
// once, before its caller, whose context's timer may lag the clock, has
// left. Calls that no refusal put back are sent: otherwise callers that
// all have short deadlines would never send the write that tells the
// refusals are over.
func (p pacing) late(w *engine.NameWriter, calls []*engine.Call[appendReq, int64]) []*engine.Call[appendReq, int64] {
	if !w.Refused() || !putBack(calls) {
		return calls
	}
	rtt := w.RoundTrip()
	if p.RTT != nil {
		rtt = max(rtt, p.RTT.Grace()) // the grace a caller waits past its deadline
	}
	kind := ErrThrottled
	if w.RefusedConflict() {
		kind = ErrContention
	}
	cause := &capacityError{kind: kind, wait: rtt, err: errLate} // RetryAfter: a round trip
	now := time.Now()
	var send, held []*engine.Call[appendReq, int64]
	var last time.Time // the last deadline of the calls held
	for _, c := range calls {
		switch d := c.Deadline(); {
		case d.IsZero() || !d.Before(now.Add(rtt)):
			send = append(send, c)
		case !d.After(now): // its context ends, or has: as if it left waiting
			c.Err = fmt.Errorf("%w (waiting to write again after: %w)", context.DeadlineExceeded, cause)
		default:
			held = append(held, c)
			if d.After(last) {
				last = d
			}
		}
	}
	if len(send) == len(calls) {
		return calls
	}
	if len(held) > 0 {
		var uncounted capacityWaits
		holdCalls[appendReq](held, last.Sub(now), p.maxWait, &uncounted, cause)
	}
	return send
}

// putBack reports whether a refusal of the name's writes, or a wait for
// the table's turn, put one of calls back in the queue (see holdCalls).
func putBack(calls []*engine.Call[appendReq, int64]) bool {
	for _, c := range calls {
		if !c.Req.waitingSince.IsZero() {
			return true
		}
	}
	return false
}

// errPaced is why the callers queued behind a paced write wait (see paced).
var errPaced = errors.New("the name's writes are paced at the rate DynamoDB admitted them after a throttle")

// paced makes the name's next run, after the write of calls that DynamoDB
// stored, start no earlier than next (engine.WonBatch's): the callers
// queued meanwhile wait for capacity, and one whose context ends first
// gets ErrThrottled, as behind a throttle.
func (p pacing) paced(calls []*engine.Call[appendReq, int64], next time.Time) {
	calls[0].NotBefore, calls[0].Cause = next, &capacityError{kind: ErrThrottled, wait: time.Until(next), err: errPaced}
}

// The table's share: the writes of a strategy's names take turns in one
// write budget of the table (engine.Share, one per SortKey, Latest and
// Counter) once DynamoDB throttled them at a ceiling the names share.
// A run asks for the name's slot before each write (engine.Slot, or
// Share.Take for a Counter); the two helpers below hold the calls when it
// must wait.

// errShared is why the calls of a name wait for their turn in the table's
// share (see seatWait).
var errShared = errors.New("the table's writes take turns after DynamoDB throttled them at a ceiling its names share")

// seatWait puts calls back in the queue until at, the name's slot in the
// table's share (see engine.Share.Take): a caller whose context ends
// first gets ErrThrottled, as behind a throttle, and the wait counts
// toward Retry.MaxWait (maxWait) as a wait for capacity does (see
// holdCalls); it is not a wait after a refusal of the call's, which
// Stats.WaitTime counts.
func seatWait[Req any, R refusable[Req]](calls []*engine.Call[Req, int64], at time.Time, maxWait time.Duration) {
	wait := time.Until(at)
	var uncounted capacityWaits
	holdCalls[Req, R](calls, wait, maxWait, &uncounted, &capacityError{kind: ErrThrottled, wait: wait, err: errShared})
}

// sharedRefusal reports whether err, DynamoDB's refusal of the write of
// calls (units write units) sent at sent, is a throttle at a ceiling the
// table's names share (engine.Share.Throttled, from the throttle's scope),
// and if so puts calls back in the queue until the name's slot in the
// table's share, as waitForCapacity does after a refusal (the wait counted
// in waits). Any other refusal is left to the caller: the name's Capacity.
func sharedRefusal[Req any, R refusable[Req]](share *engine.Share, seat *engine.Seat, calls []*engine.Call[Req, int64], sent time.Time, units float64, maxWait time.Duration, waits *capacityWaits, err error) bool {
	if engine.Decide(err, ErrUnknownOutcome) != engine.Throttled {
		return false
	}
	now := time.Now()
	at, shared := share.Throttled(seat, sent, now, units, engine.ThrottleScope(err))
	if !shared {
		return false
	}
	wait := at.Sub(now)
	holdCalls[Req, R](calls, wait, maxWait, waits, capacityCause(err, wait))
	return true
}
