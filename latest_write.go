package dynamoseq

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/internal/engine"
)

// run writes one batch of appends to the document base, in as many
// transactions as DynamoDB's limits on actions and bytes require.
func (l *Latest) run(ctx context.Context, base string, hint *latestHint, batch []*engine.Call[appendReq, int64]) {
	defer engine.Linger(batch, l.rtt.Load())
	if l.single {
		l.appendEach(ctx, base, hint, batch)
		return
	}
	engine.RunBatches(batch, latestMaxBatch, true, l.stats.batch, func(calls []*engine.Call[appendReq, int64]) { l.write(ctx, base, hint, calls) })
}

// write appends the versions of calls in one transaction and sets the
// outcome of every call, or puts the calls back in the queue: after a lost
// race (see engine.RaceLost), or to wait for capacity (see waitForCapacity).
func (l *Latest) write(ctx context.Context, base string, hint *latestHint, calls []*engine.Call[appendReq, int64]) {
	tn, err := l.place(ctx, base, hint)
	if err != nil {
		l.pace.headFailed(&hint.NameWriter, calls, err)
		return
	}
	prev := hint.version
	if int64(len(calls)) > l.maxVersion-prev {
		engine.Fail(calls, fmt.Errorf("%w: version %d is the highest the sort key holds", ErrExhausted, l.maxVersion))
		return
	}
	if calls = engine.Publish(calls, prev+1, 1); len(calls) == 0 {
		return
	}
	in := l.transaction(base, prev, calls, tn)
	start := time.Now()
	err = l.commit(ctx, in)
	switch engine.Decide(err, ErrUnknownOutcome) {
	case engine.Stored:
		l.pace.Won(&hint.NameWriter, start, tn)
		for i, c := range calls {
			c.Res = prev + 1 + int64(i)
		}
		hint.version = prev + int64(len(calls))
	case engine.Unknown:
		hint.known = false // the version this process knew may be stale
		for i, c := range calls {
			c.Res, c.Err = prev+1+int64(i), err // the version that may hold the item
		}
	case engine.Throttled, engine.Conflict:
		// Nothing was written: the hint still holds.
		l.pace.waitForCapacity(&hint.NameWriter, calls, err)
	case engine.LostRace:
		hint.known = false
		l.lostRace(ctx, hint, calls, start, err)
	case engine.RefusedItem:
		hint.known = false
		if len(calls) > 1 {
			// One item DynamoDB refuses must not fail the others of the
			// batch: find it by writing them one at a time.
			engine.OneByOne(calls, func(one []*engine.Call[appendReq, int64]) { l.write(ctx, base, hint, one) })
			return
		}
		calls[0].Err = fmt.Errorf("%w: DynamoDB refused the item: %w", ErrInvalidArgument, err)
	default:
		hint.known = false
		engine.Fail(calls, l.writeError(err))
	}
}

// lostRace handles a transaction of calls, started at start, that lost a
// race to another writer (err): 'latest' is the first action, and its
// failed condition returns the item, which tells the version to write
// after, at once and without another read; a failed condition that
// returned no item waits, and reads. The calls go back in the queue (see
// engine.RaceLost).
func (l *Latest) lostRace(ctx context.Context, hint *latestHint, calls []*engine.Call[appendReq, int64], start time.Time, err error) {
	l.stats.lostRaces.Add(1)
	hint.Lost(start)
	reasons, _ := engine.Reasons(err)
	if len(reasons) > 0 {
		if v, ok := l.versionOf(reasons[0].Item); ok {
			hint.known, hint.version = true, v
			hint.Saw(engine.TurnOfItem(reasons[0].Item, l.opts.TokenAttribute), l.opts.MaxDelay)
		}
	}
	if !hint.known {
		if werr := l.policy.Wait(ctx, calls[0].Req.races+1); werr != nil {
			engine.Fail(calls, werr)
			return
		}
	}
	if engine.RaceLost(calls, l.opts.MaxAttempts, ErrContention, err) {
		l.stats.retries.Add(1)
	}
}

// place waits while another writer has its turn, or after its own (see
// turns), makes sure hint knows the version 'latest' holds, reading it when
// it does not (one strongly consistent GetItem), and returns the turn the
// next write belongs to (see engine.Turns.Take).
func (l *Latest) place(ctx context.Context, base string, hint *latestHint) (engine.Turn, error) {
	return hint.Take(ctx, &hint.known, l.opts.MaxDelay, l.stats.waited, func() (engine.Turn, error) {
		v, tn, err := l.readHead(ctx, l.client, base)
		if err == nil {
			hint.version = v
		}
		return tn, err
	})
}

// commit sends a transaction, which carries a ClientRequestToken: DynamoDB
// applies it at most once for 10 minutes whatever the number of sends, so
// an outcome left unknown is resolved by sending it again (see engine.Resender).
func (l *Latest) commit(ctx context.Context, in *dynamodb.TransactWriteItemsInput) error {
	return l.resolver.Send(ctx, func(ctx context.Context, optFn func(*dynamodb.Options)) error {
		_, err := l.client.TransactWriteItems(ctx, in, optFn)
		return err
	})
}

// transaction builds the TransactWriteItems that appends calls after
// version prev. In a turn (see turns), 'latest' carries a write token that
// names the turn's end.
func (l *Latest) transaction(base string, prev int64, calls []*engine.Call[appendReq, int64], tn engine.Turn) *dynamodb.TransactWriteItemsInput {
	token := engine.RequestToken()
	o := &l.opts
	items := make([]types.TransactWriteItem, 1, len(calls)+1)
	pkName := map[string]string{"#pk": o.PartitionKey}
	for i, c := range calls {
		v := prev + 1 + int64(i)
		items = append(items, types.TransactWriteItem{Put: &types.Put{
			TableName:                aws.String(l.table),
			Item:                     l.item(l.layout.versionKey(base, v), c.Req.attrs, v),
			ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
			ExpressionAttributeNames: pkName,
		}})
	}
	last := prev + int64(len(calls))
	latest := &types.Put{
		TableName:                           aws.String(l.table),
		Item:                                l.item(l.layout.latestKey(base), calls[len(calls)-1].Req.attrs, last),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	if !tn.IsZero() {
		latest.Item[o.TokenAttribute] = &types.AttributeValueMemberS{Value: engine.Token(token, last, tn)}
	}
	if prev == 0 {
		latest.ConditionExpression = aws.String("attribute_not_exists(#pk)")
		latest.ExpressionAttributeNames = pkName
	} else {
		latest.ConditionExpression = aws.String("#v = :prev")
		latest.ExpressionAttributeNames = map[string]string{"#v": o.VersionAttribute}
		latest.ExpressionAttributeValues = map[string]types.AttributeValue{":prev": number(prev)}
	}
	// 'latest' goes first, so that its cancellation reason (and the item
	// returned with it) is the first one write looks at.
	items[0] = types.TransactWriteItem{Put: latest}
	return &dynamodb.TransactWriteItemsInput{
		TransactItems:      items,
		ClientRequestToken: aws.String(token),
	}
}

// item returns attrs with key and the version number added.
func (l *Latest) item(key map[string]types.AttributeValue, attrs map[string]types.AttributeValue, v int64) map[string]types.AttributeValue {
	m := make(map[string]types.AttributeValue, len(attrs)+len(key)+1)
	for k, av := range attrs {
		m[k] = av
	}
	for k, av := range key {
		m[k] = av
	}
	m[l.opts.VersionAttribute] = number(v)
	return m
}

// writeError explains a transaction that failed for a reason other than a
// lost race, a want of capacity or an item DynamoDB refused.
func (l *Latest) writeError(err error) error {
	if reasons, ok := engine.Reasons(err); ok {
		var codes []string
		for i, r := range reasons {
			if c := engine.Code(r); c != engine.ReasonNone {
				what := "'latest'"
				if i > 0 {
					what = fmt.Sprintf("version item %d of the transaction", i)
				}
				codes = append(codes, c+" on "+what)
			}
		}
		return fmt.Errorf("transaction cancelled: %s: %w", strings.Join(codes, ", "), err)
	}
	return classify(err)
}
