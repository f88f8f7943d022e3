package dynamoseq

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/internal/engine"
)

// The calls with an idempotency key: AppendOnce (SortKey, Latest,
// SortKeyIDMinter) and NextOnce (Counter, IDMinter). keys.go holds the key
// item; docs/idempotency.md the design and its costs.

// AppendOnce is Append with an idempotency key, such as an HTTP request's
// Idempotency-Key: the first call with key on the sequence name stores item
// and returns its number; a call with the same key and the same content
// (the item's attributes, in any order) within Table.KeyWindow stores
// nothing and returns that number with replayed true, across retries,
// processes and restarts. The same key with other content returns
// ErrKeyReused; an empty key, or one too long for a partition key with the
// name, ErrInvalidArgument, as does a SortKey with NoTransactions.
//
// Cost: the item and a key item of about 200 bytes in one
// TransactWriteItems (2 write units per KB of each, one round trip when
// warm); a replay costs the same round trip and stores nothing. Errors
// are Append's; a returned ErrUnknownOutcome is settled by calling again
// with the same key.
func (s *SortKey) AppendOnce(ctx context.Context, name, key string, item any) (n int64, replayed bool, err error) {
	rec, err := s.appendOnce(ctx, "SortKey.AppendOnce", name, onceArgs{key: key, kind: keyKindSortKey}, item)
	return rec.n, rec.replayed, err
}

// onceArgs is an idempotency key as a call passes it to the write path.
type onceArgs struct {
	key     string
	name    string // the name the caller passed ("" for the sequence's own)
	kind    string // the kind of caller (keyKind*)
	at      int64  // an IDMinter's instant, Unix nanoseconds; 0 for none
	content map[string]types.AttributeValue
	hashed  bool // content is what is hashed (an IDMinter's item before its TTL); else the item's attributes
}

// minted is how many numbers a call that returned rec handed out: a replay
// hands out none.
func minted(rec keyRecord) int64 {
	if rec.replayed {
		return 0
	}
	return 1
}

// appendOnce is AppendOnce for the operation op, with the key a.
func (s *SortKey) appendOnce(ctx context.Context, op, name string, a onceArgs, item any) (rec keyRecord, err error) {
	defer func() { s.stats.record(minted(rec), err) }()
	fail := func(err error) (keyRecord, error) {
		return keyRecord{}, &Error{Op: op, Table: s.table, Sequence: name, Err: err}
	}
	if err := onceAllowed(ctx, s.single, "SortKey", "item"); err != nil {
		return fail(err)
	}
	pk, err := partitionValue(s.opts.KeyPrefix, name)
	if err != nil {
		return fail(err)
	}
	keyBytes := len(s.opts.PartitionKey) + len(pk) + len(s.opts.SortKey) + attributeSize(s.hi) + len(s.opts.TokenAttribute) + engine.TokenBytes
	req, err := a.request(&s.opts.Table, name, item, keyBytes, len(s.opts.SortKey)+attributeSize(s.hi), s.owned())
	if err != nil {
		return fail(err)
	}
	n, err := s.calls.Do(ctx, pk, req, s.run)
	at := keyItemAt{client: s.reads, table: s.table, key: map[string]types.AttributeValue{
		s.opts.PartitionKey: &types.AttributeValueMemberS{Value: req.key.pk}, s.opts.SortKey: s.codec.key(0)}}
	return req.key.outcome(ctx, op, s.table, name, n, err, at)
}

// onceAllowed is the check a keyed append of a kind ("SortKey", "Latest")
// makes before anything else: a context still live, and transactions, since
// the what ("item", "version") and its key item are stored together.
func onceAllowed(ctx context.Context, single bool, kind, what string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if single {
		return invalidf("an idempotency key needs transactions (the %s and its key item are stored together), and this %s writes without them (NoTransactions, or GlobalTableMRSC)", what, kind)
	}
	return nil
}

// request marshals a keyed append's item, whose own key and write token
// take keyBytes, and returns its request to the engine: the attributes,
// their key item a (whose sort key takes keySortBytes) and the bytes of
// both. The item may not set reserved.
func (a onceArgs) request(t *Table, name string, item any, keyBytes, keySortBytes int, reserved []string) (appendReq, error) {
	attrs, size, err := marshalItem(item, keyBytes, reserved...)
	if err != nil {
		return appendReq{}, err
	}
	k, err := a.idemKey(t, name, attrs)
	if err != nil {
		return appendReq{}, err
	}
	size += keyBytes + k.bytes(t.PartitionKey) + keySortBytes
	return appendReq{attrs: attrs, size: size, key: k}, nil
}

// idemKey is the key of a call on the sequence seq whose item's attributes
// are attrs.
func (a onceArgs) idemKey(t *Table, seq string, attrs map[string]types.AttributeValue) (*idemKey, error) {
	content := attrs
	if a.hashed {
		content = a.content
	}
	name := a.name
	if name == "" {
		name = seq
	}
	k, err := newIdemKey(t, name, a.kind, seq, a.key, content)
	if err != nil {
		return nil, err
	}
	k.at = a.at
	return k, nil
}

// outcome is the result of a keyed Append whose write returned n and err:
// the number stored, the first call's when the key was held (a replay, read
// from the refusal, or from the key item at at when the call failed
// before its key was consulted: see recall), or the error.
func (k *idemKey) outcome(ctx context.Context, op, table, name string, n int64, err error, at keyItemAt) (keyRecord, error) {
	var held *keyHeldError
	if errors.As(err, &held) {
		rec, err := k.settle(held.item, "")
		if err != nil {
			return keyRecord{}, &Error{Op: op, Table: table, Sequence: name, Err: err}
		}
		return rec, nil
	}
	if rec, ok, rerr := k.recall(ctx, at, err); ok {
		if rerr != nil {
			return keyRecord{}, &Error{Op: op, Table: table, Sequence: name, Err: rerr}
		}
		return rec, nil
	}
	if err != nil {
		return keyRecord{}, callError(ctx, op, table, name, n, err)
	}
	return keyRecord{n: n, seq: k.seq, at: k.at}, nil
}

// AppendOnce is Append with an idempotency key, as SortKey.AppendOnce:
// the same key and content on the document name within Table.KeyWindow
// returns the first call's version with replayed true, stores nothing new
// and leaves 'latest' where it is; other content returns ErrKeyReused.
// NoTransactions (and GlobalTableMRSC) refuse it with ErrInvalidArgument:
// the version and the key item must be stored together.
//
// Cost: Append's transaction with one more item of about 200 bytes (2
// write units), one round trip when warm; a replay costs the same round
// trip and stores nothing. docs/idempotency.md has the design.
func (l *Latest) AppendOnce(ctx context.Context, name, key string, item any) (n int64, replayed bool, err error) {
	rec, err := l.appendOnce(ctx, "Latest.AppendOnce", name, onceArgs{key: key, kind: keyKindLatest}, item)
	return rec.n, rec.replayed, err
}

func (l *Latest) appendOnce(ctx context.Context, op, name string, a onceArgs, item any) (rec keyRecord, err error) {
	defer func() { l.stats.record(minted(rec), err) }()
	fail := func(err error) (keyRecord, error) {
		return keyRecord{}, &Error{Op: op, Table: l.table, Sequence: name, Err: err}
	}
	if err := onceAllowed(ctx, l.single, "Latest", "version"); err != nil {
		return fail(err)
	}
	base, err := l.base(name)
	if err != nil {
		return fail(err)
	}
	req, err := a.request(&l.opts.Table, name, item, l.overhead+l.layout.keyBytes(base), l.layout.extraKeyBytes(), l.reserved)
	if err != nil {
		return fail(err)
	}
	v, err := l.group.Do(ctx, base, req, l.run)
	return req.key.outcome(ctx, op, l.table, name, v, err, keyItemAt{client: l.reads, table: l.table, key: l.keyItemKey(req.key.pk)})
}

// keyItemKey is the key of the key item whose partition key value is pk:
// in the sort key layout at sort key 0, as a 'latest' item.
func (l *Latest) keyItemKey(pk string) map[string]types.AttributeValue {
	key := l.layout.latestKey(pk)
	key[l.opts.PartitionKey] = &types.AttributeValueMemberS{Value: pk}
	return key
}

// NextOnce is Next with an idempotency key, such as an HTTP request's
// Idempotency-Key: the first call with key on the sequence name returns a
// new number; a call with the same key within Table.KeyWindow returns that
// number with replayed true, across retries, processes and restarts. An
// empty key, or one too long for a partition key with the name, returns
// ErrInvalidArgument, as does GlobalTableMREC (a key's condition holds in
// one Region only).
//
// Cost: Next's UpdateItem, then a conditional PutItem of a key item of
// about 200 bytes: two round trips and two write units. A replay costs the
// same and leaves the number its UpdateItem took as a gap, which a Counter
// allows. A returned ErrUnknownOutcome is settled by calling again with
// the same key.
func (c *Counter) NextOnce(ctx context.Context, name, key string) (n int64, replayed bool, err error) {
	rec, err := c.nextOnce(ctx, "Counter.NextOnce", name, onceArgs{key: key, name: name, kind: keyKindCounter}, func(ctx context.Context) (int64, error) {
		return c.reserve(ctx, "Counter.NextOnce", name, 1, nil)
	})
	return rec.n, rec.replayed, err
}

// nextOnce takes a number with next for the sequence name, then stores the
// key a, or returns the number it holds.
func (c *Counter) nextOnce(ctx context.Context, op, name string, a onceArgs, next func(context.Context) (int64, error)) (keyRecord, error) {
	fail := func(err error) (keyRecord, error) {
		return keyRecord{}, &Error{Op: op, Table: c.table, Sequence: name, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	if c.opts.GlobalTable == GlobalTableMREC {
		return fail(invalidf("an idempotency key needs a condition that holds across Regions, which GlobalTableMREC does not give"))
	}
	if _, err := c.key(name); err != nil {
		return fail(err)
	}
	k, err := a.idemKey(&c.opts.Table, name, nil)
	if err != nil {
		return fail(err)
	}
	at := keyItemAt{client: c.reads, table: c.table, key: c.itemKey(k.pk)}
	n, err := next(ctx)
	if err != nil {
		// The number was not taken: the key may still name a number.
		if rec, ok, rerr := k.recall(ctx, at, err); ok {
			if rerr != nil {
				return fail(rerr)
			}
			return rec, nil
		}
		return keyRecord{}, err // an *Error already
	}
	rec, err := c.putKey(ctx, k, n)
	if rec, ok, rerr := k.recall(ctx, at, err); ok {
		if rerr != nil {
			return fail(rerr)
		}
		return rec, nil
	}
	if err != nil {
		e := &Error{Op: op, Table: c.table, Sequence: name, Err: err}
		if errors.Is(err, ErrUnknownOutcome) {
			e.Number = n
		}
		return keyRecord{}, e
	}
	return rec, nil
}

// putKey stores the key item of k naming n with a conditional PutItem, or
// returns the number of the call that holds the key.
func (c *Counter) putKey(ctx context.Context, k *idemKey, n int64) (keyRecord, error) {
	token := engine.RequestToken()
	p := k.put(c.table, c.opts.PartitionKey, c.itemKey(k.pk), n, token)
	in := &dynamodb.PutItemInput{
		TableName:                           p.TableName,
		Item:                                p.Item,
		ConditionExpression:                 p.ConditionExpression,
		ExpressionAttributeNames:            p.ExpressionAttributeNames,
		ExpressionAttributeValues:           p.ExpressionAttributeValues,
		ReturnValuesOnConditionCheckFailure: p.ReturnValuesOnConditionCheckFailure,
	}
	// On an MRSC table a write of the key item from another Region at the
	// same moment is refused with nothing written: resent, as the
	// counter's UpdateItem is (see resendConflicts).
	err := c.resendConflicts(ctx, func() error {
		return c.resolver.Send(ctx, func(ctx context.Context, optFn func(*dynamodb.Options)) error {
			return c.patience.do(ctx, func() error {
				_, err := c.client.PutItem(ctx, in, optFn)
				return err
			})
		})
	})
	switch engine.Decide(err, ErrUnknownOutcome) {
	case engine.Stored:
		return keyRecord{n: n, seq: k.seq, at: k.at}, nil
	case engine.KeyTaken:
		return k.settle(engine.KeyItems(err)[0], token)
	case engine.LostRace:
		// Conflicts past MaxAttempts (resendConflicts wraps them in
		// ErrContention), or a failed condition without its item.
		if !errors.Is(err, ErrContention) {
			err = fmt.Errorf("%w: the key item's write kept failing: %w", ErrContention, err)
		}
		return keyRecord{}, fmt.Errorf("%w (number %d was taken and is a gap)", err, n)
	case engine.Unknown:
		return keyRecord{}, fmt.Errorf("%w (number %d was taken; if the key item was stored, a call with the same key returns it)", err, n)
	}
	return keyRecord{}, classify(err)
}

// AppendOnce is Append with an idempotency key, as SortKey.AppendOnce: the
// first call with key on the sequence name stores item under a new ID; a
// call with the same key and item within the SortKey's Table.KeyWindow
// returns that ID with replayed true, even from another period (a retry
// after midnight names the first call's ID), and stores nothing. The item
// is compared without the TTL and TimeAttribute. Other content returns
// ErrKeyReused. Cost: SortKey.AppendOnce's.
func (m *SortKeyIDMinter) AppendOnce(ctx context.Context, name, key string, item any) (id string, replayed bool, err error) {
	const op = "SortKeyIDMinter.AppendOnce"
	t := m.now().In(m.loc)
	seq, end, err := m.periodOf(ctx, name, t)
	var content map[string]types.AttributeValue
	if err == nil {
		content, _, err = marshalItem(item, 0)
	}
	if err == nil {
		item, err = m.withStamps(item, t, end)
	}
	if err != nil {
		id, err := m.fail(op, seq, err)
		return id, false, err
	}
	a := onceArgs{key: key, name: name, kind: keyKindID, at: t.UnixNano(), content: content, hashed: true}
	rec, err := m.sortKey.appendOnce(ctx, op, seq, a, item)
	if err != nil {
		var e *Error
		if errors.Is(err, ErrUnknownOutcome) && errors.As(err, &e) && e.Number > 0 {
			return m.format.ID(t, e.Number), false, err
		}
		id, err := m.fail(op, seq, err)
		return id, false, err
	}
	return m.format.ID(time.Unix(0, rec.at).In(m.loc), rec.n), rec.replayed, nil
}

// NextOnce is Next with an idempotency key, as Counter.NextOnce: the first
// call with key on the sequence name mints a new ID; a call with the same
// key within the Counter's Table.KeyWindow returns that ID with replayed
// true, even from another period, across retries, processes and restarts.
// Over a Block the number comes from its range and the key item is stored
// in the Counter's table. Cost: Next's, then one conditional PutItem (one
// round trip, one write unit); a replay leaves its number as a gap. An
// ErrUnknownOutcome comes with the ID that its number took (the key item
// may name it), as SortKeyIDMinter.AppendOnce returns; calling again with
// the same key settles it.
func (m *IDMinter) NextOnce(ctx context.Context, name, key string) (id string, replayed bool, err error) {
	const op = "IDMinter.NextOnce"
	t, seq, end, err := m.current(ctx, name)
	if err != nil {
		id, err := m.fail(op, seq, err)
		return id, false, err
	}
	var exp *expiry
	if m.ttlAttr != "" {
		exp = &expiry{attr: m.ttlAttr, unix: ceilUnix(end.Add(m.retention))}
	}
	a := onceArgs{key: key, name: name, kind: keyKindID, at: t.UnixNano()}
	rec, err := m.counter.nextOnce(ctx, op, seq, a, func(ctx context.Context) (int64, error) { return m.next(ctx, seq, exp) })
	if err != nil {
		var e *Error
		if errors.Is(err, ErrUnknownOutcome) && errors.As(err, &e) && e.Number > 0 {
			// The ID the number took, as SortKeyIDMinter.AppendOnce returns.
			return m.format.ID(t, e.Number), false, err
		}
		id, err := m.fail(op, seq, err)
		return id, false, err
	}
	return m.format.ID(time.Unix(0, rec.at).In(m.loc), rec.n), rec.replayed, nil
}
