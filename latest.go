package dynamoseq

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/dynamoseq/dynamoseq/internal/backoff"
	"github.com/dynamoseq/dynamoseq/internal/engine"
)

// latestMaxBatch is the most appends one transaction carries: one action per
// version item plus one for 'latest' fit DynamoDB's limit of 100 actions.
const latestMaxBatch = engine.MaxTransactItems - 1

// latestMaxIdle is how many idle documents a Latest remembers the latest
// version of.
const latestMaxIdle = 4096

// Latest keeps numbered versions of documents: version items 1, 2, 3, ...
// and one 'latest' item per document that holds a copy of the newest
// version, so that the current state is one GetItem away and the history is
// a Query away. Append writes both in one TransactWriteItems whose
// condition on 'latest' makes concurrent writers take turns.
//
// Guarantees: the versions of a document are 1, 2, 3, ... with no gap and
// no duplicate, across every process that shares the table; 'latest' holds
// a copy of the highest version. The content of one Append is stored under
// one version only, even when the answer is lost and the write is resent.
//
// Cost: 4 write units per Append of an item under 1 KB (a transaction
// charges double), and a strongly consistent GetItem of 'latest' when the
// writer is cold. Appends to one document from one process are batched, k
// of them in one transaction. With NoTransactions, two conditional
// PutItems: half the write units, and a 'latest' at most one version
// behind until the next Append (GetLatest is never behind).
//
// A Latest is safe for concurrent use by any number of goroutines and
// needs no Close. docs/latest.md describes the mechanism.
type Latest struct {
	client   Client // the writes and the reads of 'latest', in runs (see capacity.go)
	reads    Client // the read methods' reads, which wait out throttles
	table    string
	opts     LatestOptions // resolved: defaults applied
	single   bool          // writes without transactions (NoTransactions, or GlobalTableMRSC)
	policy   backoff.Policy
	resolver engine.Resender
	layout   docLayout
	group    *engine.Group[string, latestHint, appendReq, int64]
	rtt      engine.RoundTrip // the writes' round trips, across documents
	pace     pacing
	stats    appendStats

	// overhead is the size of what the library adds to an item apart from
	// the partition key value: the attribute names, the sort key and the
	// version number at their longest.
	overhead int
	// maxVersion is the highest version the sort key can hold.
	maxVersion int64
	// reserved are the attributes an item may not set.
	reserved []string
}

// latestHint is what a Latest remembers about one document between batches.
type latestHint struct {
	known   bool    // version is what the last transaction of this process left
	version int64   // the version 'latest' holds; 0 for none
	behind  *behind // without transactions: 'latest' to move before the next version
	engine.NameWriter
}

// NewLatest returns a Latest over table, with the options optFns set; the
// Layout says which key schema the table has. GlobalTableMREC is refused.
//
// It makes no call to DynamoDB. It returns an error wrapping
// ErrInvalidArgument when client is nil or the table name breaks DynamoDB's
// rules, and an *OptionError for an option out of range, a VersionAttribute
// or TokenAttribute that is a key attribute or both the same, or a key
// format of LayoutPartitionKey without the verbs it needs.
func NewLatest(client Client, table string, optFns ...func(*LatestOptions)) (*Latest, error) {
	fail := func(err error) (*Latest, error) {
		return nil, &Error{Op: "NewLatest", Table: table, Err: err}
	}
	if client == nil {
		return fail(invalidf("nil client"))
	}
	if err := validateTable(table); err != nil {
		return fail(err)
	}
	o := apply(optFns)
	layout, err := o.resolve()
	if err != nil {
		return fail(err)
	}
	l := &Latest{
		table:      table,
		opts:       o,
		single:     singleItemWrites(o.NoTransactions, o.GlobalTable),
		layout:     layout,
		policy:     o.policy(),
		maxVersion: layout.maxVersion(),
		// 'latest' carries a write token in a turn (see turns), and so
		// do the version items without transactions (see putVersion).
		reserved: append(layout.keyAttrs(), o.VersionAttribute, o.TokenAttribute),
		overhead: layout.extraKeyBytes() + len(o.VersionAttribute) + maxNumberBytes + len(o.TokenAttribute) + engine.TokenBytes,
	}
	l.group = engine.NewGroup[string, latestHint, appendReq, int64](latestMaxBatch, latestMaxIdle, graceOf(o.Retry, &l.rtt))
	l.client = countingClient{Client: client, n: &l.stats.requests}
	l.reads = patientClient{Client: l.client, p: patience{maxWait: o.MaxWait, rtt: &l.rtt, waits: &l.stats.waits}}
	l.resolver = o.resender(&l.stats.resends)
	l.pace = pacing{Pace: engine.Pace{RTT: &l.rtt, Turns: &l.stats.turns, Share: new(engine.Share), Single: l.single, CopyLast: true}, maxWait: o.MaxWait, stats: &l.stats}
	return l, nil
}

// Next appends a version with no attributes to the document name and
// returns its number: a gap-free sequence whose current value is one
// GetItem away. It is Append(ctx, name, nil).
func (l *Latest) Next(ctx context.Context, name string) (int64, error) {
	return l.append(ctx, "Latest.Next", name, nil)
}

// Append stores item as the next version of the document name, moves
// 'latest' to it, and returns the version number: 1 for a new document.
// item is anything attributevalue.MarshalMap accepts (a struct, a map), or
// a map[string]types.AttributeValue; nil means no attributes. It must not
// set the key attributes, VersionAttribute or TokenAttribute, and must fit
// in 400 KB with the keys.
//
// When Append returns a version, the item is stored under it, once. When
// it returns an error, nothing was stored, but for ErrUnknownOutcome: the
// write was sent and its outcome could not be found out before ctx ended
// (or Retry.ResolveTimeout passed); the *Error's Number is the version
// that may hold the item. Without transactions it returns the version once
// the version item is stored, even if moving 'latest' then fails.
//
// Errors: ErrInvalidArgument for a bad name or item (one DynamoDB refuses
// included); ErrContention after MaxAttempts races lost to other
// processes; ErrThrottled when throttles or conflicts outlast ctx or
// Retry.MaxWait; ErrTableMismatch; ErrTableNotFound; ErrUnknownOutcome;
// the context's error. Cost: see Latest. docs/latest.md tells how a write
// is settled, batched and retried.
func (l *Latest) Append(ctx context.Context, name string, item any) (int64, error) {
	return l.append(ctx, "Latest.Append", name, item)
}

func (l *Latest) append(ctx context.Context, op, name string, item any) (_ int64, err error) {
	defer func() { l.stats.record(1, err) }()
	fail := func(err error) (int64, error) {
		return 0, &Error{Op: op, Table: l.table, Sequence: name, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	base, err := l.base(name)
	if err != nil {
		return fail(err)
	}
	attrs, size, err := marshalItem(item, l.overhead+l.layout.keyBytes(base), l.reserved...)
	if err != nil {
		return fail(err)
	}
	v, err := l.group.Do(ctx, base, appendReq{attrs: attrs, size: size + l.overhead + l.layout.keyBytes(base)}, l.run)
	if err != nil {
		return 0, callError(ctx, op, l.table, name, v, err)
	}
	return v, nil
}

// base checks name and returns KeyPrefix+name, from which the keys of a
// document are formed.
func (l *Latest) base(name string) (string, error) {
	base, err := partitionValue(l.opts.KeyPrefix, name)
	if err != nil {
		return "", err
	}
	if n := l.layout.keyBytes(base); n > maxKeyBytes {
		return "", invalidf("the keys of the document are up to %d bytes, DynamoDB's limit for a partition key is %d", n, maxKeyBytes)
	}
	return base, nil
}

// run writes one batch of appends to the document base, in as many
// transactions as DynamoDB's limits on actions and bytes require.
func (l *Latest) run(ctx context.Context, base string, hint *latestHint, batch []*engine.Call[appendReq, int64]) {
	defer engine.Linger(batch, l.rtt.Load())
	if l.single {
		l.appendEach(ctx, base, hint, batch)
		return
	}
	// Late callers are held before the batch is cut, and so before the
	// table's share counts them (see pacing.late): one held in a write
	// would put the later writes back (engine.PutBack).
	if hint.Refused() {
		batch = l.pace.late(&hint.NameWriter, batch)
	}
	engine.RunBatches(batch, latestMaxBatch, true, l.stats.batch, func(calls []*engine.Call[appendReq, int64]) { l.write(ctx, base, hint, calls) })
}

// write appends the versions of calls in one transaction and sets the
// outcome of every call, or puts the calls back in the queue: after a lost
// race (see engine.RaceLost), or to wait for capacity (see waitForCapacity).
func (l *Latest) write(ctx context.Context, base string, hint *latestHint, calls []*engine.Call[appendReq, int64]) {
	if at := engine.Slot(l.pace.Pace, &hint.NameWriter, calls); !at.IsZero() {
		seatWait(calls, at, l.pace.maxWait)
		return // the table's writes take turns (see engine.Share)
	}
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
	if hint.Refused() { // a hold for late callers (see pacing.late)
		if calls = l.pace.late(&hint.NameWriter, calls); len(calls) == 0 {
			return
		}
	}
	if calls = engine.Publish(calls, prev+1, 1); len(calls) == 0 {
		return
	}
	in := l.transaction(base, prev, calls, tn)
	start := time.Now()
	err = l.commit(ctx, in)
	switch engine.DecideWrite(err, ErrUnknownOutcome, calls, l.opts.PartitionKey) {
	case engine.Stored:
		if next := engine.WonBatch(l.pace.Pace, &hint.NameWriter, start, tn, calls); !next.IsZero() {
			l.pace.paced(calls, next)
		}
		for i, c := range calls {
			c.Res = prev + 1 + int64(i)
		}
		hint.version = prev + int64(len(calls))
	case engine.Unknown:
		hint.known = false // the version this process knew may be stale
		for i, c := range calls {
			c.Res, c.Err = prev+1+int64(i), err // the version that may hold the item
		}
	case engine.Throttled:
		// Nothing was written: the hint still holds.
		l.pace.refused(&hint.NameWriter, calls, start, err)
	case engine.Conflict:
		// Nothing was written; another writer's write is in flight.
		hint.known = false
		l.pace.conflicted(&hint.NameWriter, calls, start, err)
	case engine.LostRace:
		hint.known = false
		l.lostRace(ctx, hint, calls, start, err)
	case engine.KeyTaken:
		// Nothing was written: the hint still holds. The calls whose key
		// another call holds leave; the others are written again.
		if rest := heldKeys(calls, l.opts.PartitionKey, err); len(rest) > 0 {
			l.write(ctx, base, hint, rest)
		}
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
		engine.Fail(calls, l.writeError(err, len(calls)))
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
	// returned with it) is the first one write looks at; the key items of
	// the calls with an idempotency key go last.
	items[0] = types.TransactWriteItem{Put: latest}
	for i, c := range calls {
		if k := c.Req.key; k != nil {
			items = append(items, types.TransactWriteItem{Put: k.put(l.table, o.PartitionKey, l.keyItemKey(k.pk), prev+1+int64(i), token)})
		}
	}
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

// writeError explains a transaction of versions versions that failed for a
// reason other than a lost race, a want of capacity or an item DynamoDB
// refused, naming the item of each reason: 'latest', a version item, or a
// key item (those follow the versions).
func (l *Latest) writeError(err error, versions int) error {
	if reasons, ok := engine.Reasons(err); ok {
		var codes []string
		for i, r := range reasons {
			if c := engine.Code(r); c != engine.ReasonNone {
				what := "'latest'"
				switch {
				case i > versions: // the key items follow the versions (see transaction)
					what = fmt.Sprintf("key item %d of the transaction", i-versions)
				case i > 0:
					what = fmt.Sprintf("version item %d of the transaction", i)
				}
				codes = append(codes, c+" on "+what)
			}
		}
		return fmt.Errorf("transaction cancelled: %s: %w", strings.Join(codes, ", "), err)
	}
	return classify(err)
}

// docLayout places the items of a document: the keys of its versions and
// of its 'latest' item. NewLatest makes one from LatestOptions.Layout.
type docLayout interface {
	versionKey(base string, v int64) map[string]types.AttributeValue
	latestKey(base string) map[string]types.AttributeValue
	// keyBytes is the longest partition key value of the document base.
	keyBytes(base string) int
	// keyAttrs are the key attributes, which an item may not set.
	keyAttrs() []string
	// keyField returns the option that names the key attribute attr, if
	// one does.
	keyField(attr string) (string, bool)
	// extraKeyBytes is the size of the keys apart from the partition key
	// value: the attribute names and the sort key at its longest.
	extraKeyBytes() int
	// maxVersion is the highest version the keys can hold.
	maxVersion() int64
	// schema describes the key schema the layout needs, and names the
	// Layout that fits a table of the other shape, for errors.
	schema() string
}

// maxNumberBytes is the size of a Number attribute holding an int64, as
// attributeSize counts it.
const maxNumberBytes = 21

// sortKeyLayout is LayoutSortKey: version n at sort key n, 'latest' at 0.
type sortKeyLayout struct {
	pk, sk string
	codec  numberCodec
}

func (d sortKeyLayout) versionKey(base string, v int64) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{d.pk: &types.AttributeValueMemberS{Value: base}, d.sk: d.codec.key(v)}
}

func (d sortKeyLayout) latestKey(base string) map[string]types.AttributeValue {
	return d.versionKey(base, 0)
}

func (d sortKeyLayout) keyBytes(base string) int { return len(base) }
func (d sortKeyLayout) keyAttrs() []string       { return []string{d.pk, d.sk} }
func (d sortKeyLayout) extraKeyBytes() int       { return len(d.pk) + len(d.sk) + maxNumberBytes }
func (d sortKeyLayout) maxVersion() int64        { return d.codec.max() }

func (d sortKeyLayout) keyField(attr string) (string, bool) {
	switch attr {
	case d.pk:
		return "PartitionKey", true
	case d.sk:
		return "Layout.SortKey", true
	}
	return "", false
}

func (d sortKeyLayout) schema() string {
	return fmt.Sprintf("partition key %q of type S and sort key %q of type %s; a table with only a partition key needs LayoutPartitionKey", d.pk, d.sk, d.codec.typ)
}

// partitionKeyLayout is LayoutPartitionKey: every item under its own
// partition key value.
type partitionKeyLayout struct {
	pk, versionFormat, latestFormat string
}

func (d partitionKeyLayout) versionKey(base string, v int64) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{d.pk: &types.AttributeValueMemberS{Value: fmt.Sprintf(d.versionFormat, base, v)}}
}

func (d partitionKeyLayout) latestKey(base string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{d.pk: &types.AttributeValueMemberS{Value: fmt.Sprintf(d.latestFormat, base)}}
}

func (d partitionKeyLayout) keyBytes(base string) int {
	return max(len(fmt.Sprintf(d.versionFormat, base, int64(math.MaxInt64))), len(fmt.Sprintf(d.latestFormat, base)))
}

func (d partitionKeyLayout) keyAttrs() []string { return []string{d.pk} }
func (d partitionKeyLayout) extraKeyBytes() int { return len(d.pk) }
func (d partitionKeyLayout) maxVersion() int64  { return math.MaxInt64 }

func (d partitionKeyLayout) keyField(attr string) (string, bool) {
	return "PartitionKey", attr == d.pk
}

func (d partitionKeyLayout) schema() string {
	return fmt.Sprintf("partition key %q of type S and no sort key; a table with a sort key needs LayoutSortKey", d.pk)
}
