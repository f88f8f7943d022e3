package dynamoseq

import (
	"context"
	"fmt"
	"time"

	"github.com/dynamoseq/dynamoseq/internal/engine"
)

// The single-item write path of a SortKey: SortKeyOptions.NoTransactions, and every
// SortKey on a multi-Region strongly consistent table (GlobalTableMRSC),
// which refuses TransactWriteItems.
//
// The calls queued for one name are written one after the other by the
// leading caller, each with its own conditional PutItem at the number after
// the previous one, without a Query between them: k queued calls cost k
// PutItem round trips, one write unit per KB each, and one Query only when
// the hint is cold or stale. They are not written in parallel: a later
// number stored while an earlier one failed (throttled, refused, outcome
// unknown) would be a gap that nothing fills, and no condition of one item
// can check another without a transaction. Writers of several processes
// take turns as on the transactional path (see turns), and a writer that
// lost a race also backs off before it writes again.

// writeEach stores the items of calls at consecutive numbers, one PutItem
// per call, and sets every call's outcome, or puts the calls not yet
// written back in the queue to wait for capacity (see waitForCapacity).
// Each call may lose up to MaxAttempts races before ErrContention.
func (s *SortKey) writeEach(ctx context.Context, pk string, h *hint, calls []*sortKeyCall) {
	races := 0
	for len(calls) > 0 {
		if err := ctx.Err(); err != nil {
			engine.Fail(calls, err)
			return
		}
		if h.Refused() { // late callers are held before the table's share counts them (see pacing.late)
			if calls = s.pace.late(&h.NameWriter, calls); len(calls) == 0 {
				return
			}
		}
		if at := engine.Slot(s.pace.Pace, &h.NameWriter, calls); !at.IsZero() {
			seatWait(calls, at, s.pace.maxWait)
			return // the table's writes take turns (see engine.Share)
		}
		if races == 0 {
			s.stats.batch(1) // each call is written alone
		}
		n, tn, err := s.place(ctx, pk, h)
		if err != nil {
			s.pace.headFailed(&h.NameWriter, calls, err)
			return
		}
		if n > s.max {
			engine.Fail(calls, fmt.Errorf("%w: the sequence holds numbers up to %d (MaxValue, or the widest String sort key)", ErrExhausted, s.max))
			return
		}
		if h.Refused() { // a hold for late callers (see pacing.late)
			if calls = s.pace.late(&h.NameWriter, calls); len(calls) == 0 {
				return
			}
		}
		if !calls[0].Publish(n) { // its caller left: nothing to write
			calls[0].Err, calls = engine.ErrCallerLeft, calls[1:]
			continue
		}
		start, units := time.Now(), engine.BatchUnits(calls[:1], false)
		err = s.put(ctx, pk, n, calls[:1], tn)
		switch engine.DecideWrite(err, ErrUnknownOutcome, calls[:1], s.opts.PartitionKey) {
		case engine.Stored:
			s.pace.Won(&h.NameWriter, start, tn, units, units) // one item a write: not paced
			calls[0].Res, h.last = n, n
			calls, races = calls[1:], 0
		case engine.Unknown:
			h.known = false
			calls[0].Res, calls[0].Err = n, err // the number that may hold the item
			engine.Fail(calls[1:], &unsentError{fmt.Errorf("the write of number %d, queued before it, has an unknown outcome, and gap-free numbering lets no later number be written before it is settled", n)})
			return
		case engine.Throttled:
			s.pace.waitForCapacity(&h.NameWriter, calls, err)
			return
		case engine.Conflict:
			h.known = false
			s.pace.conflicted(&h.NameWriter, calls, start, err)
			return
		case engine.LostRace:
			races++
			if err := s.lostEach(ctx, h, start, races, err); err != nil {
				engine.Fail(calls, err)
				return
			}
		case engine.RefusedItem:
			// DynamoDB refused this item alone and stored nothing: the
			// next call takes n.
			calls[0].Err = s.writeError(err)
			calls = calls[1:]
			races = 0 // the next call has all its attempts
		default:
			h.known = false
			engine.Fail(calls, s.writeError(err))
			return
		}
	}
}

// lostEach handles a PutItem, started at start, that lost race number
// races (err): a failed condition (another writer took the number: query
// again) or a replicated write conflict (another Region is writing the
// number at this moment and nothing was written: try it again after the
// backoff, and the condition will tell who got it). It returns
// ErrContention after MaxAttempts races, ctx's error if ctx ends during
// the backoff, and nil when the next attempt may go.
func (s *SortKey) lostEach(ctx context.Context, h *hint, start time.Time, races int, err error) error {
	s.stats.lostRaces.Add(1)
	h.known = h.known && engine.ReplicatedConflict(err)
	h.Lost(start)
	if _, tn, ok := s.headOf(err); ok {
		h.Saw(tn, s.opts.MaxDelay) // another writer's turn: wait for its end
	}
	if races >= s.opts.MaxAttempts {
		return fmt.Errorf("%w: lost %d races to other writers: %w", ErrContention, races, err)
	}
	if err := s.policy.Wait(ctx, races); err != nil {
		return err
	}
	s.stats.retries.Add(1)
	return nil
}
