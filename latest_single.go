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
	"github.com/dynamoseq/dynamoseq/internal/combine"
	"github.com/dynamoseq/dynamoseq/internal/settle"
	"github.com/dynamoseq/dynamoseq/internal/turns"
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

// appendEach appends the versions of calls one after the other, two
// PutItems each, and sets every call's outcome. Each call may lose up to
// MaxAttempts races before ErrContention.
func (l *Latest) appendEach(ctx context.Context, base string, hint *latestHint, calls []*combine.Call[appendReq, int64]) {
	races := 0
	for len(calls) > 0 {
		if err := ctx.Err(); err != nil {
			failCalls(calls, err)
			return
		}
		if races == 0 {
			l.stats.batch(1) // each call is written alone
		}
		tn, err := l.place(ctx, base, hint)
		if err != nil {
			failCalls(calls, err)
			return
		}
		v := hint.version + 1
		if v > l.maxVersion {
			failCalls(calls, fmt.Errorf("%w: version %d is the highest the sort key holds", ErrExhausted, l.maxVersion))
			return
		}
		start := time.Now()
		tok := &types.AttributeValueMemberS{Value: turns.Token(settle.RequestToken(), v, tn)}
		err = l.putVersion(ctx, base, v, calls[0].Req.attrs, tok)
		var ccf *types.ConditionalCheckFailedException
		switch {
		case err == nil:
			attrs := calls[0].Req.attrs
			calls[0].Res = v
			calls, races = calls[1:], 0
			// The item is stored under v: the call has its version
			// whatever happens to 'latest'. If 'latest' did not move,
			// read it before writing v+1.
			hint.version = v
			hint.known = l.moveLatest(ctx, base, v, attrs, tok) == nil
			if hint.Won(start, tn) { // both writes: the turn's round trip
				l.stats.turns.Add(1)
			}
		case errors.Is(err, ErrUnknownOutcome):
			hint.known = false
			calls[0].Res, calls[0].Err = v, err // the version that may hold the item
			failCalls(calls[1:], fmt.Errorf("not sent: the write of version %d, queued before it, has an unknown outcome, and no later version may be written before it is settled", v))
			return
		case errors.As(err, &ccf) || settle.ReplicatedConflict(err):
			races++
			if err := l.lostVersion(ctx, base, hint, v, start, ccf, races, err); err != nil {
				failCalls(calls, err)
				return
			}
		case settle.IsValidation(err):
			// This item alone is refused and nothing was stored: the next
			// call takes v.
			calls[0].Err = fmt.Errorf("%w: DynamoDB refused the version item: %w", ErrInvalidArgument, err)
			calls = calls[1:]
			races = 0 // the next call has all its attempts
		default:
			hint.known = false
			failCalls(calls, classify(err))
			return
		}
	}
}

// lostVersion handles the write of version v, started at start, that lost
// race number races, err: a failed condition ccf (another writer stored v;
// make sure 'latest' holds it before writing v+1), or, with ccf nil, a
// replicated write conflict (another Region is writing v at this moment and
// nothing was written; try v again after the backoff). It returns
// ErrContention after MaxAttempts races, ctx's error if ctx ends during the
// backoff, and nil when the next attempt may go.
func (l *Latest) lostVersion(ctx context.Context, base string, hint *latestHint, v int64, start time.Time, ccf *types.ConditionalCheckFailedException, races int, err error) error {
	took := time.Since(start)
	l.stats.lostRaces.Add(1)
	hint.Lost(start)
	if ccf != nil {
		hint.Saw(turns.OfItem(ccf.Item, l.opts.TokenAttribute), l.opts.MaxDelay)
	}
	if races >= l.opts.MaxAttempts {
		return fmt.Errorf("%w: %d attempts: %w", ErrContention, races, err)
	}
	wait := l.policy.Delay(races)
	if ccf != nil {
		// The winner stored v and is now moving 'latest' to it; a write
		// of v+1 sent at once has its chance before the winner's next
		// one. During a wait longer than a write the winner has likely
		// moved on: read 'latest' again then.
		repaired := l.repairLatest(ctx, base, v, ccf.Item) == nil
		hint.version, hint.known = v, repaired && wait <= took
		if hint.known {
			wait = 0
		}
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
// left unknown is resolved by resending (see settle.Resender).
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

// repairLatest moves 'latest' to version v, which another writer stored:
// item is the version item, as a failed condition returned it, or nil to
// read it (one strongly consistent GetItem).
func (l *Latest) repairLatest(ctx context.Context, base string, v int64, item map[string]types.AttributeValue) error {
	if item == nil {
		var err error
		if item, err = l.getItem(ctx, l.layout.versionKey(base, v)); err != nil {
			return err
		}
	}
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
