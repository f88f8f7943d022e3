package dynamoseq

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/internal/backoff"
	"github.com/dynamoseq/dynamoseq/internal/engine"
)

// The single-item write path of a Latest: LatestOptions.NoTransactions, and every
// Latest on a multi-Region strongly consistent table (GlobalTableMRSC),
// which refuses TransactWriteItems.
//
// An Append of version v makes two conditional PutItems, one after the
// other:
//
//  1. the version item v, with attribute_not_exists on its key (or its own
//     write token, so that a resend of a write that was applied succeeds
//     instead of storing the content twice). The version item is the
//     lock: whoever stores it owns v.
//  2. the 'latest' item, holding a copy of v, with the condition that it is
//     absent or holds a lower version: it never moves back.
//
// A version item v+1 is written only once 'latest' holds at least v, so
// 'latest' is never more than one version behind the newest version item.
// It is one behind while a writer is between its two writes, and after a
// writer stopped there (a crash, a lost network, a failed second write).
// The next Append repairs it: its version write at v fails its condition
// and returns the item found there, which it copies to 'latest' (same
// condition) before writing v+1. So does the next GetLatest, which reads the
// version after the one 'latest' holds.

// storedVersion records that calls[0], sent at start in the turn tn with
// units for the version and 'latest', stored its item under v with the
// token tok, and moves 'latest' to it. The call has its version whatever
// happens to 'latest', which the next write moves first if it did not move
// now (see catchUp). It reports whether the run ends there, for want of
// capacity: the calls after the first wait for it.
func (l *Latest) storedVersion(ctx context.Context, base string, hint *latestHint, calls []*engine.Call[appendReq, int64],
	v int64, tok types.AttributeValue, start time.Time, tn engine.Turn, units float64) bool {
	hint.version, hint.behind = v, &behind{v: v, attrs: calls[0].Req.attrs, tok: tok}
	calls[0].Res = v
	if err := l.catchUp(ctx, base, hint); capacityRefused(err) {
		hint.Won(start, tn) // the turn's bookkeeping; capacity is still short
		if len(calls) > 1 { // else the next run moves 'latest' first
			l.pace.waitForCapacity(&hint.NameWriter, calls[1:], err)
		}
		return true
	}
	l.pace.Won(&hint.NameWriter, start, tn, units, units) // both writes: the turn's round trip, the share; not paced
	return false
}

// eachReady takes appendEach's steps before the write of calls[0]: the
// context, late callers held before the table's share counts them (see
// pacing.late), the name's slot in the share, the batch counted (races
// 0: a call's first try), 'latest' caught up. It returns the calls to
// write; none when appendEach must return, their outcomes set or the
// calls put back in the queue.
func (l *Latest) eachReady(ctx context.Context, base string, hint *latestHint, calls []*engine.Call[appendReq, int64], races int) []*engine.Call[appendReq, int64] {
	if err := ctx.Err(); err != nil {
		engine.Fail(calls, err)
		return nil
	}
	if hint.Refused() {
		if calls = l.pace.late(&hint.NameWriter, calls); len(calls) == 0 {
			return nil
		}
	}
	if at := engine.Slot(l.pace.Pace, &hint.NameWriter, calls); !at.IsZero() {
		seatWait(calls, at, l.pace.maxWait)
		return nil // the table's writes take turns (see engine.Share)
	}
	if races == 0 {
		l.stats.batch(1) // each call is written alone
	}
	if err := l.catchUp(ctx, base, hint); capacityRefused(err) {
		l.pace.waitForCapacity(&hint.NameWriter, calls, err)
		return nil
	}
	return calls
}

// appendEach appends the versions of calls one after the other, two
// PutItems each, and sets every call's outcome, or puts the calls not yet
// written back in the queue to wait for capacity (see waitForCapacity).
// Each call may lose up to MaxAttempts races before ErrContention.
func (l *Latest) appendEach(ctx context.Context, base string, hint *latestHint, calls []*engine.Call[appendReq, int64]) {
	races := 0
	for len(calls) > 0 {
		if calls = l.eachReady(ctx, base, hint, calls, races); len(calls) == 0 {
			return
		}
		tn, err := l.place(ctx, base, hint)
		if err != nil {
			l.pace.headFailed(&hint.NameWriter, calls, err)
			return
		}
		v := hint.version + 1
		if v > l.maxVersion {
			engine.Fail(calls, fmt.Errorf("%w: version %d is the highest the sort key holds", ErrExhausted, l.maxVersion))
			return
		}
		if hint.Refused() { // a hold for late callers (see pacing.late)
			if calls = l.pace.late(&hint.NameWriter, calls); len(calls) == 0 {
				return
			}
		}
		if !calls[0].Publish(v) { // its caller left: nothing to write
			calls[0].Err, calls = engine.ErrCallerLeft, calls[1:]
			continue
		}
		start, units := time.Now(), engine.Charged(l.pace.Pace, calls) // the version and 'latest'
		tok := &types.AttributeValueMemberS{Value: engine.Token(engine.RequestToken(), v, tn)}
		err = l.putVersion(ctx, base, v, calls[0].Req.attrs, tok)
		switch engine.DecideWrite(err, ErrUnknownOutcome, calls[:1], l.opts.PartitionKey) {
		case engine.Stored:
			if l.storedVersion(ctx, base, hint, calls, v, tok, start, tn, units) {
				return
			}
			calls, races = calls[1:], 0
		case engine.Unknown:
			hint.known = false
			calls[0].Res, calls[0].Err = v, err // the version that may hold the item
			engine.Fail(calls[1:], &unsentError{fmt.Errorf("the write of version %d, queued before it, has an unknown outcome, and no later version may be written before it is settled", v)})
			return
		case engine.Throttled:
			l.pace.waitForCapacity(&hint.NameWriter, calls, err)
			return
		case engine.Conflict:
			hint.known = false
			l.pace.conflicted(&hint.NameWriter, calls, start, err)
			return
		case engine.LostRace:
			races++
			if err := l.lostVersion(ctx, base, hint, v, start, races, err); capacityRefused(err) {
				l.pace.waitForCapacity(&hint.NameWriter, calls, err)
				return
			} else if err != nil {
				engine.Fail(calls, err)
				return
			}
		case engine.RefusedItem:
			// This item alone is refused and nothing was stored: the next
			// call takes v.
			calls[0].Err = fmt.Errorf("%w: DynamoDB refused the version item: %w", ErrInvalidArgument, err)
			calls = calls[1:]
			races = 0 // the next call has all its attempts
		default:
			hint.known = false
			engine.Fail(calls, classify(err))
			return
		}
	}
}

// behind is a version item that a writer stored, or found stored, and
// that 'latest' may not hold yet: its version, the caller's attributes and
// its write token, to copy to 'latest'.
type behind struct {
	v     int64
	attrs map[string]types.AttributeValue
	tok   types.AttributeValue
}

// catchUp moves 'latest' to the version hint.behind names, which must hold
// it before the next version is written (so that 'latest' is never more
// than one version behind). It returns nil when 'latest' holds that version
// or a later one, and then hint knows it; a throttle or a conflict leaves
// hint.behind for the next try (a run that waits for capacity first);
// another error leaves 'latest' to the next read of it (hint.known false:
// a write of the version after it fails its condition and repairs it).
func (l *Latest) catchUp(ctx context.Context, base string, hint *latestHint) error {
	b := hint.behind
	if b == nil {
		return nil
	}
	err := l.moveLatest(ctx, base, b.v, b.attrs, b.tok)
	switch {
	case err == nil:
		hint.behind, hint.known, hint.version = nil, true, b.v
	case capacityRefused(err):
		// appendEach calls catchUp again before it writes.
	default:
		hint.behind, hint.known = nil, false
	}
	return err
}

// lostVersion handles the write of version v, started at start, that lost
// race number races, err: a failed condition (another writer stored v;
// make sure 'latest' holds it before writing v+1), or a
// replicated write conflict (another Region is writing v at this moment and
// nothing was written; try v again after the backoff). It returns
// ErrContention after MaxAttempts races, ctx's error if ctx ends during the
// backoff, the error of moving 'latest' to v when DynamoDB refused it for
// capacity (hint.behind then holds v, to move first), and nil when the next
// attempt may go.
func (l *Latest) lostVersion(ctx context.Context, base string, hint *latestHint, v int64, start time.Time, races int, err error) error {
	took := time.Since(start)
	var ccf *types.ConditionalCheckFailedException
	errors.As(err, &ccf) // nil for a replicated write conflict
	l.stats.lostRaces.Add(1)
	hint.Lost(start)
	if ccf != nil {
		hint.Saw(engine.TurnOfItem(ccf.Item, l.opts.TokenAttribute), l.opts.MaxDelay)
	}
	if races >= l.opts.MaxAttempts {
		return fmt.Errorf("%w: %d attempts: %w", ErrContention, races, err)
	}
	wait := l.policy.Delay(races)
	switch {
	case ccf != nil && ccf.Item != nil:
		// The winner stored v and is now moving 'latest' to it; a write
		// of v+1 sent at once has its chance before the winner's next
		// one. During a wait longer than a write the winner has likely
		// moved on: read 'latest' again then.
		hint.behind = &behind{v: v, attrs: l.attributes(ccf.Item), tok: ccf.Item[l.opts.TokenAttribute]}
		if rerr := l.catchUp(ctx, base, hint); capacityRefused(rerr) {
			return rerr
		}
		hint.known = hint.known && wait <= took
		if hint.known {
			wait = 0
		}
	case ccf != nil: // no item returned: read 'latest', and the next write at v tells more
		hint.known = false
	}
	if err := backoff.Sleep(ctx, wait); err != nil {
		return err
	}
	l.stats.retries.Add(1)
	return nil
}

// putVersion stores attrs as version v of base with a PutItem conditioned
// on the version being free or holding this request's write token tok
// (see itemToken), so that a resend of a write that was applied succeeds.
// A failed condition returns the item found there (ALL_OLD). An outcome
// left unknown is resolved by resending (see engine.Resender).
func (l *Latest) putVersion(ctx context.Context, base string, v int64, attrs map[string]types.AttributeValue, tok types.AttributeValue) error {
	item := l.item(l.layout.versionKey(base, v), attrs, v)
	item[l.opts.TokenAttribute] = tok
	in := &dynamodb.PutItemInput{
		TableName:                           aws.String(l.table),
		Item:                                item,
		ConditionExpression:                 aws.String("attribute_not_exists(#pk) OR #tok = :tok"),
		ExpressionAttributeNames:            map[string]string{"#pk": l.opts.PartitionKey, "#tok": l.opts.TokenAttribute},
		ExpressionAttributeValues:           map[string]types.AttributeValue{":tok": tok},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	return l.resolver.Send(ctx, func(ctx context.Context, optFn func(*dynamodb.Options)) error {
		_, err := l.client.PutItem(ctx, in, optFn)
		return err
	})
}

// moveLatest puts attrs and the write token tok of version v (nil for
// none) as the 'latest' item of base at version v, with one PutItem
// conditioned on 'latest' being absent or holding a lower version, so that
// it never moves back; the token tells the readers of 'latest' the turn of
// the write (see turns). It returns nil when 'latest' holds v or a
// higher version afterwards (a failed condition says that another writer
// moved it there first), and the error otherwise: then 'latest' may still
// be one version behind, which the next Append or GetLatest repairs.
func (l *Latest) moveLatest(ctx context.Context, base string, v int64, attrs map[string]types.AttributeValue, tok types.AttributeValue) error {
	item := l.item(l.layout.latestKey(base), attrs, v)
	if tok != nil {
		item[l.opts.TokenAttribute] = tok
	}
	_, err := l.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                 aws.String(l.table),
		Item:                      item,
		ConditionExpression:       aws.String("attribute_not_exists(#pk) OR #v < :v"),
		ExpressionAttributeNames:  map[string]string{"#pk": l.opts.PartitionKey, "#v": l.opts.VersionAttribute},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": number(v)},
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return nil
	}
	return err
}

// repairLatest moves 'latest' to version v, which a writer stored but did
// not (yet) copy to 'latest': item is the version item.
func (l *Latest) repairLatest(ctx context.Context, base string, v int64, item map[string]types.AttributeValue) error {
	return l.moveLatest(ctx, base, v, l.attributes(item), item[l.opts.TokenAttribute])
}

// readNewest returns the item of the newest version of base: the 'latest'
// item, or the version item after the one 'latest' holds when a writer
// stored it and has not (yet) moved 'latest' to it, which it then moves
// 'latest' to. It costs two strongly consistent GetItems (1 read unit per
// 4 KB each, 2 round trips), plus one PutItem when it repairs; a failed
// repair is left to the next call. ErrNotFound when the document has no
// version.
func (l *Latest) readNewest(ctx context.Context, base string) (map[string]types.AttributeValue, error) {
	latest, err := l.getItem(ctx, l.layout.latestKey(base))
	v := int64(0)
	switch {
	case errors.Is(err, ErrNotFound):
		latest = nil // a writer may have stopped after storing version 1
	case err != nil:
		return nil, err
	default:
		if v, err = l.version(latest); err != nil {
			return nil, err
		}
		if v >= l.maxVersion {
			return latest, nil
		}
	}
	next, err := l.getItem(ctx, l.layout.versionKey(base, v+1))
	switch {
	case errors.Is(err, ErrNotFound) && latest != nil:
		return latest, nil
	case err != nil:
		return nil, err
	}
	_ = l.repairLatest(ctx, base, v+1, next) // best effort: see above
	return next, nil
}
