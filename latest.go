package dynamoseq

import (
	"context"

	"github.com/dynamoseq/dynamoseq/internal/backoff"
	"github.com/dynamoseq/dynamoseq/internal/combine"
	"github.com/dynamoseq/dynamoseq/internal/engine"
	"github.com/dynamoseq/dynamoseq/internal/settle"
	"github.com/dynamoseq/dynamoseq/internal/turns"
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
	policy   backoff.Policy
	resolver settle.Resender
	layout   docLayout
	group    *combine.Group[string, latestHint, appendReq, int64]
	rtt      roundTrip // the writes' round trips, across documents
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
	nameWriter
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
		layout:     layout,
		policy:     o.policy(),
		maxVersion: layout.maxVersion(),
		// 'latest' carries a write token in a turn (see turns), and so
		// do the version items without transactions (see putVersion).
		reserved: append(layout.keyAttrs(), o.VersionAttribute, o.TokenAttribute),
		overhead: layout.extraKeyBytes() + len(o.VersionAttribute) + maxNumberBytes + len(o.TokenAttribute) + turns.TokenBytes,
	}
	l.group = combine.New[string, latestHint, appendReq, int64](latestMaxBatch, latestMaxIdle, graceOf(o.Retry, &l.rtt))
	l.client = countingClient{Client: client, n: &l.stats.requests}
	l.reads = patientClient{Client: l.client, p: patience{maxWait: o.MaxWait, rtt: &l.rtt, waits: &l.stats.waits}}
	l.resolver = o.resender(&l.stats.resends)
	l.pace = pacing{maxWait: o.MaxWait, rtt: &l.rtt, stats: &l.stats}
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
