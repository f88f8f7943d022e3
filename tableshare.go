package dynamoseq

import (
	"errors"
	"time"

	"github.com/dynamoseq/dynamoseq/internal/engine"
)

// The table's share: the writes of a strategy's names take turns in one
// write budget of the table (engine.Share, one per SortKey, Latest and
// Counter) once DynamoDB throttled them at a ceiling the names share.
// SortKey and Latest reach it through pacing (writepath.go), the Counter
// from its runs (counter_batch.go); the two helpers below are the part
// they have in common.

// errShared is why the calls of a name wait for their turn in the table's
// share (see takeSlot).
var errShared = errors.New("the table's writes take turns after DynamoDB throttled them at a ceiling its names share")

// takeSlot reports whether calls, about to be written with units write
// units, must wait for the name's slot in the table's share (seat's, see
// engine.Share.Take) instead, and if so puts them back in the queue until
// then: a caller whose context ends first gets ErrThrottled, as behind a
// throttle, and the wait counts toward Retry.MaxWait (maxWait) as a wait
// for capacity does (see holdCalls); it is not a wait after a refusal of
// the call's, which Stats.WaitTime counts.
func takeSlot[Req any, R refusable[Req]](share *engine.Share, seat *engine.Seat, calls []*engine.Call[Req, int64], units float64, maxWait time.Duration) bool {
	now := time.Now()
	at := share.Take(seat, now, units)
	if !at.After(now) {
		return false
	}
	wait := at.Sub(now)
	var uncounted capacityWaits
	holdCalls[Req, R](calls, wait, maxWait, &uncounted, &capacityError{kind: ErrThrottled, wait: wait, err: errShared})
	return true
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
