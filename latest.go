package dynamoseq

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/internal/backoff"
	"github.com/dynamoseq/dynamoseq/internal/combine"
)

// Layout is how a Latest lays out the items of a document; see
// Options.Layout.
type Layout int

const (
	// LayoutSortKey keeps a document in one item collection of a table
	// with a sort key: version n at sort key n, 'latest' at sort key 0.
	LayoutSortKey Layout = iota

	// LayoutPartitionKey is for a table with only a partition key: version
	// n under fmt.Sprintf(Options.VersionKeyFormat, KeyPrefix+name, n) and
	// 'latest' under fmt.Sprintf(Options.LatestKeyFormat, KeyPrefix+name).
	LayoutPartitionKey
)

func (l Layout) String() string {
	switch l {
	case LayoutSortKey:
		return "LayoutSortKey"
	case LayoutPartitionKey:
		return "LayoutPartitionKey"
	}
	return "Layout(" + strconv.Itoa(int(l)) + ")"
}

// latestMaxBatch is the most appends one transaction carries: one action per
// version item plus one for 'latest' fit DynamoDB's limit of 100 actions.
const latestMaxBatch = maxTransactItems - 1

// latestMaxIdle is how many idle documents a Latest remembers the latest
// version of.
const latestMaxIdle = 4096

// Latest keeps numbered versions of documents: version items 1, 2, 3, ...
// and one 'latest' item per document that holds a copy of the newest
// version, so that the current state is one GetItem away and the history is
// a Query away.
//
// Append writes the new version item and the new 'latest' item in one
// TransactWriteItems. The version item is put with attribute_not_exists on
// its key; 'latest' is put with a condition on the version number it holds
// (absent for the first version, equal to the version the writer read
// otherwise). That condition is what makes concurrent writers take turns:
// without it two writers that read the same 'latest' both succeed and
// 'latest' may end up holding the older of the two.
//
// Guarantees: the versions of a document are 1, 2, 3, ... with no gap and
// no duplicate, across every process that shares the table; 'latest' always
// holds a copy of the highest version. The content of one Append is stored
// under one version only, even when the answer to the transaction is lost
// and it is sent again (see Append).
//
// Cost: a transaction writes each item twice internally, so DynamoDB charges
// 2 write units per KB for every item in it: 4 write units for an Append of
// an item under 1 KB (the version and 'latest'). A cold writer adds one
// strongly consistent GetItem of 'latest' (1 read unit per 4 KB); a warm one,
// which knows the latest version from its own last write, skips it, and so
// does a loser that retries at once with the version DynamoDB returned with
// the failed condition (it reads after a longer backoff). Appends
// to one document from goroutines of one process are batched: k of them
// cost one transaction of k+1 items (2(k+1) write units for small items) and
// one round trip.
//
// A Latest is safe for concurrent use by any number of goroutines. No
// goroutine it starts outlives the call that started it (only Versions
// starts any), so it needs no Close.
type Latest struct {
	client Client
	table  string
	opts   Options
	policy backoff.Policy
	group  *combine.Group[string, latestHint, latestAppend, int64]

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
	known   bool  // version is what the last transaction of this process left
	version int64 // the version 'latest' holds; 0 for none
	pacer         // takes turns with writers of other processes
}

// latestAppend is one Append waiting in a batch.
type latestAppend struct {
	attrs map[string]types.AttributeValue
	size  int // the estimated size of the item written, keys included
}

// NewLatest returns a Latest over table. It reads PartitionKey, SortKey,
// SortKeyType and SortKeyWidth (LayoutSortKey), KeyPrefix, Layout,
// VersionKeyFormat and LatestKeyFormat (LayoutPartitionKey),
// VersionAttribute, MaxAttempts, BaseDelay and MaxDelay from the options.
//
// It makes no call to DynamoDB. It returns an error wrapping
// ErrInvalidArgument when client is nil, the table name breaks DynamoDB's
// rules, an option is out of range, VersionAttribute is a key attribute, or
// a key format does not hold the verbs described in Options.
func NewLatest(client Client, table string, optFns ...func(*Options)) (*Latest, error) {
	fail := func(err error) (*Latest, error) {
		return nil, &Error{Op: "NewLatest", Table: table, Err: err}
	}
	if client == nil {
		return fail(invalidf("nil client"))
	}
	if err := validateTable(table); err != nil {
		return fail(err)
	}
	o, err := resolveOptions(optFns)
	if err == nil {
		err = refuseGlobal(&o, "Latest")
	}
	if err != nil {
		return fail(err)
	}
	l := &Latest{
		client:     client,
		table:      table,
		opts:       o,
		policy:     backoff.Policy{Base: o.BaseDelay, Max: o.MaxDelay},
		group:      combine.New[string, latestHint, latestAppend, int64](latestMaxBatch, latestMaxIdle),
		maxVersion: math.MaxInt64,
	}
	const maxNumberBytes = 21 // a Number attribute holding an int64, as attributeSize counts it
	switch o.Layout {
	case LayoutSortKey:
		if o.VersionAttribute == o.PartitionKey || o.VersionAttribute == o.SortKey {
			return fail(invalidf("VersionAttribute %q is also a key attribute", o.VersionAttribute))
		}
		l.reserved = []string{o.PartitionKey, o.SortKey, o.VersionAttribute}
		if o.SortKeyType == types.ScalarAttributeTypeS {
			l.maxVersion = int64(math.Pow10(o.SortKeyWidth)) - 1
			if o.SortKeyWidth == 19 {
				l.maxVersion = math.MaxInt64
			}
		}
		l.overhead = len(o.PartitionKey) + len(o.SortKey) + maxNumberBytes
	case LayoutPartitionKey:
		if o.VersionAttribute == o.PartitionKey {
			return fail(invalidf("VersionAttribute %q is also the partition key", o.VersionAttribute))
		}
		if err := checkKeyFormats(o.VersionKeyFormat, o.LatestKeyFormat); err != nil {
			return fail(err)
		}
		l.reserved = []string{o.PartitionKey, o.VersionAttribute}
		l.overhead = len(o.PartitionKey)
	default:
		return fail(invalidf("Layout is %v, want LayoutSortKey or LayoutPartitionKey", o.Layout))
	}
	l.overhead += len(o.VersionAttribute) + maxNumberBytes
	return l, nil
}

// checkKeyFormats checks the key formats of LayoutPartitionKey: the version
// format must take a string and a number and give every version its own
// key, and the latest format must take a string and give a key no version
// has.
func checkKeyFormats(version, latest string) error {
	v1, v2 := fmt.Sprintf(version, "doc", 1), fmt.Sprintf(version, "doc", 2)
	if strings.Contains(v1, "%!") || v1 == v2 || !strings.Contains(v1, "doc") {
		return invalidf("VersionKeyFormat %q must hold one %%s and then one %%d, as in %q", version, defaultOptions.VersionKeyFormat)
	}
	l := fmt.Sprintf(latest, "doc")
	if strings.Contains(l, "%!") || !strings.Contains(l, "doc") {
		return invalidf("LatestKeyFormat %q must hold one %%s and no other verb, as in %q", latest, defaultOptions.LatestKeyFormat)
	}
	if n, err := strconv.ParseInt(strings.TrimPrefix(l, strings.TrimSuffix(v1, "1")), 10, 64); err == nil && n > 0 {
		return invalidf("LatestKeyFormat %q gives %q, the key of version %d", latest, l, n)
	}
	return nil
}

// Next appends a version with no attributes to the document name and
// returns its number: a gap-free sequence whose current value is one
// GetItem away. It is Append(ctx, name, nil).
func (l *Latest) Next(ctx context.Context, name string) (int64, error) {
	return l.append(ctx, "Latest.Next", name, nil)
}

// Append stores item as the next version of the document name, moves
// 'latest' to it, and returns the version number: 1 for a new document.
//
// item is anything attributevalue.MarshalMap accepts (a struct, a map), or a
// map[string]types.AttributeValue; nil means no attributes. It must not set
// the key attributes or Options.VersionAttribute, and must fit in DynamoDB's
// 400 KB with the keys; otherwise Append returns ErrInvalidArgument and
// writes nothing.
//
// Underneath it issues one TransactWriteItems that puts the version item
// (condition attribute_not_exists) and the 'latest' item (condition on the
// version it holds), preceded by a strongly consistent GetItem of 'latest'
// when this Latest does not know the document's latest version. Appends to
// one document made at the same time in this process are written together,
// up to 99 versions (and 4 MB) per transaction, 'latest' taking the item of
// the last one. When the transaction is cancelled because another process
// wrote first (ConditionalCheckFailed, TransactionConflict), Append takes
// the version DynamoDB returned with the failed condition and tries again,
// with jittered exponential backoff between attempts (reading 'latest' again
// first when the backoff was longer than the transaction, since the
// returned version is stale by then), up to Options.MaxAttempts times; then
// it returns ErrContention. Any other cancellation reason is returned at
// once, wrapped with the SDK's error. So that processes appending to one
// document flat out take turns instead of the last winner winning again, a
// writer that lost a race in the last second pauses for a random part of a
// round trip before each back-to-back transaction (see pacer); a process
// alone on a document never pauses.
//
// When the outcome of the transaction is unknown (a timeout, a connection
// reset, a server error), Append sends the same transaction again with the
// same ClientRequestToken, which DynamoDB treats as the same request for 10
// minutes: it is applied once, so the item is never stored under two
// versions. If ctx ends while the transaction is in flight, Append returns
// ctx's error at once and the version may or may not have been written
// (exactly once if it was): read GetLatest or Versions to find out before
// appending the same content again.
func (l *Latest) Append(ctx context.Context, name string, item any) (int64, error) {
	return l.append(ctx, "Latest.Append", name, item)
}

func (l *Latest) append(ctx context.Context, op, name string, item any) (int64, error) {
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
	attrs, size, err := marshalItem(item, l.overhead+l.keyBytes(base), l.reserved...)
	if err != nil {
		return fail(err)
	}
	v, err := l.group.Do(ctx, base, latestAppend{attrs: attrs, size: size + l.overhead + l.keyBytes(base)}, l.run)
	if err != nil {
		return fail(err)
	}
	return v, nil
}

// keyBytes is the longest partition key value of the document base.
func (l *Latest) keyBytes(base string) int {
	if l.opts.Layout == LayoutPartitionKey {
		return max(len(fmt.Sprintf(l.opts.VersionKeyFormat, base, int64(math.MaxInt64))), len(fmt.Sprintf(l.opts.LatestKeyFormat, base)))
	}
	return len(base)
}

// base checks name and returns KeyPrefix+name, from which the keys of a
// document are formed.
func (l *Latest) base(name string) (string, error) {
	base, err := partitionValue(l.opts.KeyPrefix, name)
	if err != nil {
		return "", err
	}
	if n := l.keyBytes(base); n > maxKeyBytes {
		return "", invalidf("the keys of the document are up to %d bytes, DynamoDB's limit for a partition key is %d", n, maxKeyBytes)
	}
	return base, nil
}

// run writes one batch of appends to the document base, in as many
// transactions as DynamoDB's limits on actions and bytes require.
func (l *Latest) run(ctx context.Context, base string, hint *latestHint, batch []*combine.Call[latestAppend, int64]) {
	for len(batch) > 0 {
		n, bytes := 0, 0
		for n < len(batch) && n < latestMaxBatch {
			// The transaction holds every version item plus a copy of
			// the last one as 'latest'.
			add := batch[n].Req.size
			if n > 0 && bytes+2*add > maxTransactBytes {
				break
			}
			bytes += add
			n++
		}
		l.write(ctx, base, hint, batch[:n])
		batch = batch[n:]
	}
}

// write appends the versions of calls in one transaction, retrying lost
// races, and sets the outcome of every call.
func (l *Latest) write(ctx context.Context, base string, hint *latestHint, calls []*combine.Call[latestAppend, int64]) {
	failAll := func(err error) {
		for _, c := range calls {
			c.Err = err
		}
	}
	for attempt := 1; ; attempt++ {
		warm := hint.known
		if !hint.known {
			v, err := l.readVersion(ctx, base)
			if err != nil {
				failAll(err)
				return
			}
			hint.known, hint.version = true, v
		}
		prev := hint.version
		if int64(len(calls)) > l.maxVersion-prev {
			failAll(fmt.Errorf("%w: version %d is the highest a %d-digit sort key holds", ErrExhausted, l.maxVersion, l.opts.SortKeyWidth))
			return
		}
		if warm && attempt == 1 {
			// Writing again right after its own write: let the
			// writers of other processes have their turn (see pacer).
			if err := hint.pace(ctx, l.policy); err != nil {
				failAll(err)
				return
			}
		}
		in := l.transaction(base, prev, calls)
		start := time.Now()
		err := l.commit(ctx, in)
		took := time.Since(start)
		if err == nil {
			hint.won(start)
			for i, c := range calls {
				c.Res = prev + 1 + int64(i)
			}
			hint.version = prev + int64(len(calls))
			return
		}
		// Whatever happened, the version this process knew may be stale.
		hint.known = false
		reasons, cancelled := cancelReasons(err)
		switch {
		case cancelled && len(reasons) == len(in.TransactItems) && lostRace(reasons):
			hint.lost()
			if attempt >= l.opts.MaxAttempts {
				failAll(fmt.Errorf("%w: %d attempts: %w", ErrContention, attempt, err))
				return
			}
			// 'latest' is the first action; its failed condition returns
			// the item, which tells the version to try next without
			// another read. That holds for a short backoff only: during
			// one longer than a transaction the winner, which writes
			// again at once, has likely moved 'latest' on, and a retry
			// with the returned version would lose again, and again, with
			// ever longer waits. So after a long wait read 'latest' again.
			wait := l.policy.Delay(attempt)
			if v, ok := l.versionOf(reasons[0].Item); ok && wait <= took {
				hint.known, hint.version = true, v
			}
			if werr := backoff.Sleep(ctx, wait); werr != nil {
				failAll(werr)
				return
			}
		case len(calls) > 1 && isValidation(err):
			// One item DynamoDB refuses must not fail the others of the
			// batch: find it by writing them one at a time.
			for i := range calls {
				l.write(ctx, base, hint, calls[i:i+1])
			}
			return
		default:
			failAll(l.writeError(err))
			return
		}
	}
}

// commit sends a transaction. When the outcome is unknown it sends the same
// input again, ClientRequestToken included, so that DynamoDB applies it at
// most once; it gives up after MaxAttempts sends or when ctx ends.
func (l *Latest) commit(ctx context.Context, in *dynamodb.TransactWriteItemsInput) error {
	for send := 1; ; send++ {
		_, err := l.client.TransactWriteItems(ctx, in)
		if err == nil || !unknownOutcome(err) {
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("outcome unknown, the version may have been written: %w", errors.Join(ctx.Err(), err))
		}
		if send >= l.opts.MaxAttempts {
			return fmt.Errorf("outcome unknown after %d sends with the same request token, the version may have been written: %w", send, err)
		}
		if werr := l.policy.Wait(ctx, send); werr != nil {
			return fmt.Errorf("outcome unknown, the version may have been written: %w", errors.Join(werr, err))
		}
	}
}

// transaction builds the TransactWriteItems that appends calls after
// version prev.
func (l *Latest) transaction(base string, prev int64, calls []*combine.Call[latestAppend, int64]) *dynamodb.TransactWriteItemsInput {
	o := &l.opts
	items := make([]types.TransactWriteItem, 1, len(calls)+1)
	pkName := map[string]string{"#pk": o.PartitionKey}
	for i, c := range calls {
		v := prev + 1 + int64(i)
		items = append(items, types.TransactWriteItem{Put: &types.Put{
			TableName:                aws.String(l.table),
			Item:                     l.item(l.versionKey(base, v), c.Req.attrs, v),
			ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
			ExpressionAttributeNames: pkName,
		}})
	}
	last := prev + int64(len(calls))
	latest := &types.Put{
		TableName:                           aws.String(l.table),
		Item:                                l.item(l.latestKey(base), calls[len(calls)-1].Req.attrs, last),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
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
		ClientRequestToken: aws.String(newRequestToken()),
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

func number(v int64) *types.AttributeValueMemberN {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

// versionKey is the key of version v of the document base.
func (l *Latest) versionKey(base string, v int64) map[string]types.AttributeValue {
	o := &l.opts
	if o.Layout == LayoutPartitionKey {
		return map[string]types.AttributeValue{o.PartitionKey: &types.AttributeValueMemberS{Value: fmt.Sprintf(o.VersionKeyFormat, base, v)}}
	}
	return map[string]types.AttributeValue{
		o.PartitionKey: &types.AttributeValueMemberS{Value: base},
		o.SortKey:      l.sortKey(v),
	}
}

// latestKey is the key of the 'latest' item of the document base.
func (l *Latest) latestKey(base string) map[string]types.AttributeValue {
	o := &l.opts
	if o.Layout == LayoutPartitionKey {
		return map[string]types.AttributeValue{o.PartitionKey: &types.AttributeValueMemberS{Value: fmt.Sprintf(o.LatestKeyFormat, base)}}
	}
	return map[string]types.AttributeValue{
		o.PartitionKey: &types.AttributeValueMemberS{Value: base},
		o.SortKey:      l.sortKey(0),
	}
}

// sortKey is the sort key value of version v; 0 is 'latest'.
func (l *Latest) sortKey(v int64) types.AttributeValue {
	if l.opts.SortKeyType == types.ScalarAttributeTypeS {
		return &types.AttributeValueMemberS{Value: fmt.Sprintf("%0*d", l.opts.SortKeyWidth, v)}
	}
	return number(v)
}

// readVersion returns the version the 'latest' item of base holds, 0 when
// there is none, with one strongly consistent GetItem.
func (l *Latest) readVersion(ctx context.Context, base string) (int64, error) {
	out, err := l.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:                aws.String(l.table),
		Key:                      l.latestKey(base),
		ConsistentRead:           aws.Bool(true),
		ProjectionExpression:     aws.String("#v"),
		ExpressionAttributeNames: map[string]string{"#v": l.opts.VersionAttribute},
	})
	if err != nil {
		return 0, l.readError(err)
	}
	if out.Item == nil {
		return 0, nil
	}
	return l.version(out.Item)
}

// version reads the version attribute of an item.
func (l *Latest) version(item map[string]types.AttributeValue) (int64, error) {
	name := l.opts.VersionAttribute
	av, ok := item[name]
	if !ok {
		return 0, fmt.Errorf("%w: the item has no attribute %q", ErrTableMismatch, name)
	}
	nv, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("%w: attribute %q holds a %s, want a Number", ErrTableMismatch, name, typeName(av))
	}
	v, err := strconv.ParseInt(nv.Value, 10, 64)
	if err != nil || v < 1 {
		return 0, fmt.Errorf("%w: attribute %q holds %s, want a positive integer", ErrTableMismatch, name, nv.Value)
	}
	return v, nil
}

// versionOf is version for an item that may be absent.
func (l *Latest) versionOf(item map[string]types.AttributeValue) (int64, bool) {
	if item == nil {
		return 0, false
	}
	v, err := l.version(item)
	return v, err == nil
}

func isValidation(err error) bool {
	if reasons, ok := cancelReasons(err); ok {
		for _, r := range reasons {
			if reasonCode(r) == "ValidationError" {
				return true
			}
		}
		return false
	}
	return apiCode(err) == "ValidationException"
}

// writeError explains a transaction that failed for a reason other than a
// lost race.
func (l *Latest) writeError(err error) error {
	if reasons, ok := cancelReasons(err); ok {
		var codes []string
		for i, r := range reasons {
			if c := reasonCode(r); c != reasonNone {
				what := "'latest'"
				if i > 0 {
					what = fmt.Sprintf("version item %d of the transaction", i)
				}
				codes = append(codes, c+" on "+what)
			}
		}
		return fmt.Errorf("transaction cancelled: %s: %w", strings.Join(codes, ", "), err)
	}
	if apiCode(err) == "ValidationException" {
		// Every input was checked before the call: the table is not what
		// the options describe, or an item is larger than estimated.
		return fmt.Errorf("DynamoDB refused the transaction (the options want %s): %w", l.schema(), err)
	}
	return classify(err)
}

// readError explains a failed read.
func (l *Latest) readError(err error) error {
	if apiCode(err) == "ValidationException" {
		return fmt.Errorf("%w: want %s: %w", ErrTableMismatch, l.schema(), err)
	}
	return classify(err)
}

// schema describes the key schema the options want, and names the Layout
// that fits a table of the other shape.
func (l *Latest) schema() string {
	o := &l.opts
	if o.Layout == LayoutPartitionKey {
		return fmt.Sprintf("partition key %q of type S and no sort key; for a table with a sort key, leave o.Layout at dynamoseq.LayoutSortKey", o.PartitionKey)
	}
	return fmt.Sprintf("partition key %q of type S and sort key %q of type %s; for a table with only a partition key, set o.Layout = dynamoseq.LayoutPartitionKey", o.PartitionKey, o.SortKey, o.SortKeyType)
}

// GetLatest reads the newest version of the document name into out and
// returns its number, with one strongly consistent GetItem of the 'latest'
// item (1 read unit per 4 KB). out is what attributevalue.UnmarshalMap
// accepts, a *map[string]types.AttributeValue, or nil to read only the
// number; it receives the attributes given to Append, without the key
// attributes and the version attribute. It returns ErrNotFound when the
// document has no version.
func (l *Latest) GetLatest(ctx context.Context, name string, out any) (int64, error) {
	fail := func(err error) (int64, error) {
		return 0, &Error{Op: "Latest.GetLatest", Table: l.table, Sequence: name, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	base, err := l.base(name)
	if err != nil {
		return fail(err)
	}
	item, err := l.getItem(ctx, l.latestKey(base))
	if err != nil {
		return fail(err)
	}
	v, err := l.version(item)
	if err != nil {
		return fail(err)
	}
	if err := l.decode(item, out); err != nil {
		return fail(err)
	}
	return v, nil
}

// Get reads version of the document name into out (as GetLatest does),
// with one strongly consistent GetItem. It returns ErrNotFound when that
// version does not exist, and ErrInvalidArgument for a version below 1.
func (l *Latest) Get(ctx context.Context, name string, version int64, out any) error {
	fail := func(err error) error {
		return &Error{Op: "Latest.Get", Table: l.table, Sequence: name, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	base, err := l.base(name)
	if err != nil {
		return fail(err)
	}
	if version < 1 {
		return fail(invalidf("version is %d, want at least 1", version))
	}
	if version > l.maxVersion {
		return fail(fmt.Errorf("%w: version %d", ErrNotFound, version))
	}
	item, err := l.getItem(ctx, l.versionKey(base, version))
	if err != nil {
		return fail(err)
	}
	if err := l.decode(item, out); err != nil {
		return fail(err)
	}
	return nil
}

// getItem reads one item, strongly consistent; ErrNotFound when absent.
func (l *Latest) getItem(ctx context.Context, key map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	out, err := l.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(l.table),
		Key:            key,
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, l.readError(err)
	}
	if out.Item == nil {
		return nil, ErrNotFound
	}
	return out.Item, nil
}

// attributes returns item without the attributes the library wrote.
func (l *Latest) attributes(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	return withoutAttributes(item, l.reserved)
}

// decode stores the caller's attributes of item in out.
func (l *Latest) decode(item map[string]types.AttributeValue, out any) error {
	return decodeAttributes(l.attributes(item), out)
}

func decodeAttributes(attrs map[string]types.AttributeValue, out any) error {
	switch o := out.(type) {
	case nil:
		return nil
	case *map[string]types.AttributeValue:
		if o == nil {
			return invalidf("out is a nil *map[string]types.AttributeValue")
		}
		*o = attrs
		return nil
	}
	if v := reflect.ValueOf(out); v.Kind() != reflect.Pointer || v.IsNil() {
		return invalidf("out is a %T, want a non-nil pointer", out)
	}
	if err := attributevalue.UnmarshalMap(attrs, out); err != nil {
		return fmt.Errorf("%w: the stored item does not fit a %T: %w", ErrTableMismatch, out, err)
	}
	return nil
}

// Version is one stored version of a document, as Versions lists it.
type Version struct {
	Number int64
	// Item holds the attributes given to Append, without the key
	// attributes and the version attribute.
	Item map[string]types.AttributeValue
}

// Decode unmarshals the version's attributes into out, as GetLatest does.
func (v Version) Decode(out any) error {
	return decodeAttributes(v.Item, out)
}

// Versions lists the versions of the document name, newest first: at most
// limit of them (1 to 1000), starting below before (0 for the newest).
// next is the cursor for the following page (pass it as before), or 0 when
// no older version remains:
//
//	for before := int64(0); ; {
//		page, next, err := docs.Versions(ctx, "doc1", before, 50)
//		// use page
//		if err != nil || next == 0 {
//			break
//		}
//		before = next
//	}
//
// A document with no version gives an empty page and no error.
//
// With LayoutSortKey a page is one strongly consistent Query, in descending
// sort key order (1 read unit per 4 KB read). With LayoutPartitionKey every
// version is its own partition: a page is one GetItem of 'latest' (first
// page only) and one strongly consistent GetItem per version, up to 8 at a
// time.
func (l *Latest) Versions(ctx context.Context, name string, before int64, limit int) (page []Version, next int64, err error) {
	fail := func(err error) ([]Version, int64, error) {
		return nil, 0, &Error{Op: "Latest.Versions", Table: l.table, Sequence: name, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	base, err := l.base(name)
	if err != nil {
		return fail(err)
	}
	switch {
	case before < 0:
		return fail(invalidf("before is %d, want 0 (the newest) or a version", before))
	case limit < 1 || limit > 1000:
		return fail(invalidf("limit is %d, want 1 to 1000", limit))
	case before == 1:
		return nil, 0, nil
	}
	top := l.maxVersion
	if before > 0 {
		top = min(before-1, l.maxVersion)
	}
	if l.opts.Layout == LayoutPartitionKey {
		page, err = l.getVersions(ctx, base, before == 0, top, limit)
	} else {
		page, err = l.queryVersions(ctx, base, top, limit)
	}
	if err != nil {
		return fail(err)
	}
	if len(page) == 0 {
		return nil, 0, nil
	}
	if oldest := page[len(page)-1].Number; oldest > 1 {
		next = oldest
	}
	return page, next, nil
}

// queryVersions is a page of Versions with LayoutSortKey.
func (l *Latest) queryVersions(ctx context.Context, base string, top int64, limit int) ([]Version, error) {
	o := &l.opts
	out, err := l.client.Query(ctx, &dynamodb.QueryInput{
		TableName:                aws.String(l.table),
		KeyConditionExpression:   aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
		ExpressionAttributeNames: map[string]string{"#pk": o.PartitionKey, "#sk": o.SortKey},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: base},
			":lo": l.sortKey(1),
			":hi": l.sortKey(top),
		},
		ScanIndexForward: aws.Bool(false),
		ConsistentRead:   aws.Bool(true),
		Limit:            aws.Int32(int32(limit)),
	})
	if err != nil {
		return nil, l.readError(err)
	}
	page := make([]Version, 0, len(out.Items))
	for _, item := range out.Items {
		v, err := l.version(item)
		if err != nil {
			return nil, err
		}
		page = append(page, Version{Number: v, Item: l.attributes(item)})
	}
	return page, nil
}

// getVersions is a page of Versions with LayoutPartitionKey.
func (l *Latest) getVersions(ctx context.Context, base string, newest bool, top int64, limit int) ([]Version, error) {
	if newest {
		latest, err := l.readVersion(ctx, base)
		if err != nil {
			return nil, err
		}
		top = latest
	}
	n := int(min(int64(limit), top))
	if n <= 0 {
		return nil, nil
	}
	page := make([]Version, n)
	errs := make([]error, n)
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			v := top - int64(i)
			item, err := l.getItem(ctx, l.versionKey(base, v))
			if err != nil {
				errs[i] = err
				return
			}
			page[i] = Version{Number: v, Item: l.attributes(item)}
		}()
	}
	wg.Wait()
	// A missing version can only be one deleted by hand: leave it out.
	kept := page[:0]
	for i, err := range errs {
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return nil, err
		default:
			kept = append(kept, page[i])
		}
	}
	return kept, nil
}
