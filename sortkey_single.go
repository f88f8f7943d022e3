package dynamoseq

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dynamoseq/dynamoseq/internal/settle"
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
// per call, and sets every call's outcome. Each call may lose up to
// MaxAttempts races before ErrContention.
func (s *SortKey) writeEach(ctx context.Context, pk string, h *hint, calls []*sortKeyCall) {
	races := 0
	for len(calls) > 0 {
		if err := ctx.Err(); err != nil {
			failCalls(calls, err)
			return
		}
		if races == 0 {
			s.stats.batch(1) // each call is written alone
		}
		n, tn, err := s.place(ctx, pk, h)
		if err != nil {
			failCalls(calls, err)
			return
		}
		if n > s.max {
			failCalls(calls, fmt.Errorf("%w: the sequence holds numbers up to %d (MaxValue, or the widest String sort key)", ErrExhausted, s.max))
			return
		}
		start := time.Now()
		err = s.put(ctx, pk, n, calls[:1], tn)
		switch {
		case err == nil:
			if h.Won(start, tn) {
				s.stats.turns.Add(1)
			}
			calls[0].Res, h.last = n, n
			calls, races = calls[1:], 0
		case errors.Is(err, ErrUnknownOutcome):
			h.known = false
			calls[0].Res, calls[0].Err = n, err // the number that may hold the item
			failCalls(calls[1:], fmt.Errorf("not sent: the write of number %d, queued before it, has an unknown outcome, and gap-free numbering lets no later number be written before it is settled", n))
			return
		case writeLostRace(err) || settle.ReplicatedConflict(err):
			// A failed condition: another writer took n, query again. A
			// replicated write conflict: another Region is writing n at
			// this moment and nothing was written; try n again after the
			// backoff, and the condition will tell who got it.
			s.stats.lostRaces.Add(1)
			h.known = h.known && settle.ReplicatedConflict(err)
			h.Lost(start)
			if _, tn, ok := s.headOf(err); ok {
				h.Saw(tn, s.opts.MaxDelay) // another writer's turn: wait for its end
			}
			races++
			if races >= s.opts.MaxAttempts {
				failCalls(calls, fmt.Errorf("%w: lost %d races to other writers: %w", ErrContention, races, err))
				return
			}
			if err := s.policy.Wait(ctx, races); err != nil {
				failCalls(calls, err)
				return
			}
			s.stats.retries.Add(1)
		default:
			werr := s.writeError(err)
			if !errors.Is(werr, ErrInvalidArgument) {
				h.known = false
				failCalls(calls, werr)
				return
			}
			// DynamoDB refused this item alone and stored nothing: the
			// next call takes n.
			calls[0].Err = werr
			calls = calls[1:]
			races = 0 // the next call has all its attempts
		}
	}
}
