package dynamoseq

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/internal/backoff"
	"github.com/dynamoseq/dynamoseq/internal/engine"
)

// Counter hands out numbers from an atomic counter: one item per sequence,
// {PartitionKey: KeyPrefix+name, ValueAttribute: N}, where N is the last
// value handed out. Many sequences share one table; with SortKeyValue set
// the item sits in a single-table design beside other entities.
//
// Guarantees: every value is handed out at most once, across all processes
// sharing the table, and the values of one sequence increase in the order
// DynamoDB applied the writes. Not gap-free: a number whose caller fails
// to use it is lost, and so is one of an update resent after its answer
// was lost. A caller never waits for an outcome past its context; a call
// that ends in ErrUnknownOutcome or the context's error may be retried.
//
// Cost: one UpdateItem round trip and one write unit per call, whatever
// the count reserved. Calls of one process to one sequence that wait for
// each other share one UpdateItem (up to 100 calls); for millions of
// numbers a second, use a Block.
//
// A Counter is safe for concurrent use by any number of goroutines; under
// a throttle at the table's ceiling its sequences take turns (docs/capacity.md).
// docs/counter.md has the details.
type Counter struct {
	client   Client // every request; the updates wait out throttles (see capacity.go)
	reads    Client // the reads, which wait out throttles
	table    string
	opts     CounterOptions       // resolved: defaults applied
	update   string               // the update expression; see NewCounter
	base     types.AttributeValue // Start-Step, the value a new sequence starts from; nil with ADD
	names    map[string]string    // expression attribute names, shared read-only by every call
	first    int64                // the first value of a new sequence: Start, or this Region's first
	stride   int64                // the distance between values: Step, or Step times the Regions
	slice    *regionSlice         // this Region's numbers with GlobalTableMREC; nil otherwise
	maxSpan  int64                // the largest span one update may add; see maxSpan
	stats    counterStats
	group    *engine.Group[counterKey, counterLane, counterReq, int64] // the calls sharing an update; see counter_batch.go
	resolver engine.Resender                                           // sends again an update the SDK gave up on
	patience patience                                                  // the waits for capacity
	rtt      engine.RoundTrip                                          // the updates' round trips, across names
	share    engine.Share                                              // the table's write budget, shared by the names (see writepath.go's seatWait)
}

// counterMaxResends is how many times a Counter sends again an update
// whose outcome is unknown, beyond the attempts of the SDK's retryer
// (with ResolveTimeout 0). A lost answer is most often a single broken
// connection, which one resend settles; a second covers a second one.
// Beyond that DynamoDB is most likely out of reach, and each resend that
// lands burns one more number and one more write unit for an answer the
// caller can get by calling again.
const counterMaxResends = 2

// NewCounter returns a Counter over table, with the options optFns set.
//
// With GlobalTableMREC each Region hands out its own slice of every
// sequence, from its own counter item (KeyPrefix+name+"#"+Region): with
// Start 1 and Step 1, Region i of R (its position in Regions) hands out
// i+1, i+1+R, i+1+2R, ... Numbers of different Regions never collide,
// numbers of one Region increase; the cost per call is unchanged. See
// docs/global-tables.md, also for adding a Region.
//
// It makes no call to DynamoDB. It returns an error wrapping
// ErrInvalidArgument when client is nil or the table name breaks DynamoDB's
// rules, and an *OptionError for an option out of range.
func NewCounter(client Client, table string, optFns ...func(*CounterOptions)) (*Counter, error) {
	fail := func(err error) (*Counter, error) {
		return nil, &Error{Op: "NewCounter", Table: table, Err: err}
	}
	if client == nil {
		return fail(invalidf("nil client"))
	}
	if err := validateTable(table); err != nil {
		return fail(err)
	}
	o := apply(optFns)
	if err := o.resolve(); err != nil {
		return fail(err)
	}
	slice, err := newRegionSlice(&o)
	if err != nil {
		return fail(err)
	}
	c := &Counter{table: table, opts: o, names: map[string]string{"#v": o.ValueAttribute},
		first: o.Start, stride: o.Step, slice: slice}
	c.client = countingClient{Client: client, n: &c.stats.roundTrips}
	c.patience = patience{maxWait: o.MaxWait, rtt: &c.rtt, waits: &c.stats.waits}
	c.reads = patientClient{Client: c.client, p: c.patience}
	c.resolver = o.resender(&c.stats.resends)
	c.resolver.Attached = true // a caller that gave up need not wait: an unknown outcome only loses a number
	if o.ResolveTimeout == 0 {
		c.resolver.MaxResends = counterMaxResends
	}
	if slice != nil {
		c.first, c.stride = slice.first, slice.stride
	}
	c.maxSpan = maxSpan((o.MaxValue-c.first)/c.stride+1, c.stride)
	// A caller never waits for its update's outcome past its context and a
	// grace, whatever ResolveTimeout (as the resolver is Attached): the
	// others in its batch may have later deadlines, and for a Counter an
	// unknown outcome only loses numbers. A lone update ends with its
	// caller's context (AloneHere).
	c.group = engine.NewGroup[counterKey, counterLane, counterReq, int64](maxCounterBatch, counterIdle,
		func(o *engine.GroupOptions) { o.Grace, o.AloneHere = c.rtt.Grace, true })
	if base := c.first - c.stride; base == 0 { // cannot overflow: first >= 1, stride >= 1
		// The plain atomic counter: ADD treats a missing attribute as 0.
		c.update = "ADD #v :n"
	} else {
		c.update = "SET #v = if_not_exists(#v, :base) + :n"
		c.base = &types.AttributeValueMemberN{Value: strconv.FormatInt(base, 10)}
	}
	return c, nil
}

// Next returns the next value of the sequence name. It issues one
// UpdateItem with ADD (SET with if_not_exists when Start is not 1) and
// ReturnValues UPDATED_NEW; it never reads before writing. When MaxValue is
// set, a condition on the same UpdateItem keeps the value at or below it and
// the counter does not move past it; with the default (math.MaxInt64) no
// condition is sent, and a counter that passes the int64 limit returns
// ErrExhausted from then on.
//
// It returns ErrExhausted when the sequence has reached MaxValue,
// ErrTableMismatch when the stored value is not a Number,
// ErrTableNotFound when the table does not exist, and the context's error
// when ctx ends first.
func (c *Counter) Next(ctx context.Context, name string) (int64, error) {
	return c.reserve(ctx, "Counter.Next", name, 1, nil)
}

// NextN reserves n consecutive values of the sequence name in one
// UpdateItem and returns the first: the caller owns first, first+Step, ...,
// first+(n-1)*Step, and no other caller receives any of them. A request for
// more values than remain below MaxValue fails with ErrExhausted and
// reserves nothing. n must be at least 1. With GlobalTableMREC the values
// are this Region's next n: first, first+R*Step, ..., for R Regions.
func (c *Counter) NextN(ctx context.Context, name string, n int64) (first int64, err error) {
	return c.reserve(ctx, "Counter.NextN", name, n, nil)
}

// expiry is a TTL attribute that a reservation also sets, in the same
// UpdateItem: attr = unix, a Number of seconds since the Unix epoch.
type expiry struct {
	attr string
	unix int64
}

// reserve is NextN for the operation op. With exp not nil, the same
// UpdateItem also sets the TTL attribute exp.attr to exp.unix, so that
// DynamoDB deletes the counter item after that instant (IDMinter does this).
func (c *Counter) reserve(ctx context.Context, op, name string, n int64, exp *expiry) (first int64, err error) {
	defer func() { c.stats.record(n, err) }()
	fail := func(err error) (int64, error) {
		return 0, &Error{Op: op, Table: c.table, Sequence: name, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	pk, err := c.key(name)
	if err != nil {
		return fail(err)
	}
	if n < 1 {
		return fail(invalidf("n is %d, want at least 1", n))
	}
	o := &c.opts
	// How many values the sequence can hold in all; n above that can never
	// be served, and checking it here keeps the arithmetic below in range.
	capacity := (o.MaxValue-c.first)/c.stride + 1
	hi, span := bits.Mul64(uint64(n), uint64(c.stride))
	if n > capacity || hi != 0 || span > 1<<63-1 {
		return fail(fmt.Errorf("%w: %d values requested, the sequence holds %d in all", ErrExhausted, n, capacity))
	}
	key := counterKey{pk: pk}
	if exp != nil {
		key.exp = *exp
	}
	first, err = c.group.Do(ctx, key, counterReq{span: int64(span)}, c.run)
	if errors.Is(err, engine.ErrUnknownOutcome) {
		// The context ended with the update in flight: for a Counter, only
		// a gap if it was applied.
		err = fmt.Errorf("%w (the update was in flight: if it was applied, its numbers are a gap)", ctx.Err())
	}
	if err != nil {
		return fail(err)
	}
	return first, nil
}

// updateItem issues the counter's UpdateItem, resending it after a
// throttle (see patience) and after a replicated write conflict (see
// resendConflicts).
func (c *Counter) updateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	var out *dynamodb.UpdateItemOutput
	err := c.patience.do(ctx, func() error {
		return c.resendConflicts(ctx, func() error {
			var err error
			out, err = c.client.UpdateItem(ctx, in, optFns...)
			return err
		})
	})
	return out, err
}

// resendConflicts calls write, which makes one write of the counter. On an
// MRSC table a write to the same item from another Region at the same
// moment makes DynamoDB refuse it with ReplicatedWriteConflictException,
// having written nothing; resendConflicts calls write again after a backoff
// (BaseDelay, MaxDelay), at most MaxAttempts times in all, and then returns
// ErrContention. The SDK's retryer does not retry that exception. Each call
// of write is a new request as far as the resolver is concerned: a write
// that goes through the resolver must be inside write, so that the
// conflicts answered to earlier calls do not count as attempts that may
// have been applied.
func (c *Counter) resendConflicts(ctx context.Context, write func() error) error {
	policy := backoff.Policy{Base: c.opts.BaseDelay, Max: c.opts.MaxDelay}
	for attempt := 1; ; attempt++ {
		err := write()
		if !engine.ReplicatedConflict(err) {
			return err
		}
		if attempt >= c.opts.MaxAttempts {
			return fmt.Errorf("%w: %d writes refused by ReplicatedWriteConflictException: %w", ErrContention, attempt, err)
		}
		if err := policy.Wait(ctx, attempt); err != nil {
			return err
		}
	}
}

// reserveInput is the UpdateItem that adds span to the counter item of the
// partition key value pk, with the MaxValue condition when MaxValue is set
// (limit is the largest stored value that leaves room for span), and the
// TTL attribute of exp when exp is not nil.
func (c *Counter) reserveInput(pk string, span, limit int64, exp *expiry) *dynamodb.UpdateItemInput {
	o := &c.opts
	update, names, values := c.update, c.names, c.values(span)
	if exp != nil {
		if c.base == nil {
			update += " SET #ttl = :ttl"
		} else {
			update += ", #ttl = :ttl"
		}
		names = map[string]string{"#v": o.ValueAttribute, "#ttl": exp.attr}
		values[":ttl"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(exp.unix, 10)}
	}
	in := &dynamodb.UpdateItemInput{
		TableName:                 aws.String(c.table),
		Key:                       c.itemKey(pk),
		UpdateExpression:          aws.String(update),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ReturnValues:              types.ReturnValueUpdatedNew,
	}
	if o.MaxValue != math.MaxInt64 {
		// The condition enforces MaxValue before anything is written. It is
		// left out for the default, where it would only cost server time
		// (README.md, "Counter", has the figure): the int64 limit is checked on
		// the answer instead (firstOf).
		in.ConditionExpression = aws.String("attribute_not_exists(#v) OR #v <= :limit")
		values[":limit"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(limit, 10)}
		// On a failed condition DynamoDB returns the item, which tells an
		// exhausted sequence from a value of the wrong type without a read.
		in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	return in
}

// firstOf returns the first number of a reservation of span from the
// attributes an UpdateItem returned (UPDATED_NEW).
func (c *Counter) firstOf(attrs map[string]types.AttributeValue, span int64) (int64, error) {
	o := &c.opts
	last, err := c.number(attrs)
	if err != nil {
		if nv, ok := attrs[o.ValueAttribute].(*types.AttributeValueMemberN); ok && isInteger(nv.Value) {
			// A whole number that no longer fits in int64: the counter went
			// past math.MaxInt64, the default MaxValue.
			return 0, fmt.Errorf("%w: the counter passed %d", ErrExhausted, int64(math.MaxInt64))
		}
		return 0, err
	}
	if c.slice != nil {
		// After AdvanceTo the watermark need not be one of this Region's
		// numbers; the slice's first number above it is.
		return c.slice.firstAbove(last - span), nil
	}
	return last - span + o.Step, nil
}

// key returns the partition key value of the sequence name's counter item:
// KeyPrefix+name, and with GlobalTableMREC "#"+Region after it.
func (c *Counter) key(name string) (string, error) {
	pk, err := partitionValue(c.opts.KeyPrefix, name)
	if err != nil || c.slice == nil {
		return pk, err
	}
	pk += c.slice.suffix
	if len(pk) > maxKeyBytes {
		return "", invalidf("key prefix, name and Region are %d bytes, DynamoDB's limit for a partition key is %d", len(pk), maxKeyBytes)
	}
	return pk, nil
}

// itemKey returns the key of the counter item whose partition key value is
// pk: with SortKeyValue set, also {SortKey: SortKeyValue}.
func (c *Counter) itemKey(pk string) map[string]types.AttributeValue {
	key := map[string]types.AttributeValue{c.opts.PartitionKey: &types.AttributeValueMemberS{Value: pk}}
	if c.opts.SortKeyValue != "" {
		key[c.opts.SortKey] = &types.AttributeValueMemberS{Value: c.opts.SortKeyValue}
	}
	return key
}

func (c *Counter) values(span int64) map[string]types.AttributeValue {
	v := map[string]types.AttributeValue{
		":n": &types.AttributeValueMemberN{Value: strconv.FormatInt(span, 10)},
	}
	if c.base != nil {
		v[":base"] = c.base
	}
	return v
}

// isInteger reports whether a DynamoDB number is written as a whole number.
func isInteger(n string) bool {
	n = strings.TrimPrefix(n, "-")
	return n != "" && strings.Trim(n, "0123456789") == ""
}

// updateError explains a failed update of the counter item key.
func (c *Counter) updateError(ctx context.Context, key map[string]types.AttributeValue, err error) error {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		if _, nerr := c.number(ccf.Item); errors.Is(nerr, ErrTableMismatch) {
			return nerr
		}
		return fmt.Errorf("%w: MaxValue is %d", ErrExhausted, c.opts.MaxValue)
	}
	if engine.IsValidation(err) {
		// Every input was checked before the call, so DynamoDB rejecting
		// it means the table is not what the options describe: a value
		// that is not a Number (ADD refuses it), or another key schema.
		// Read the item to say which; this costs nothing on success.
		if key != nil {
			out, gerr := c.reads.GetItem(ctx, &dynamodb.GetItemInput{
				TableName: aws.String(c.table), Key: key, ConsistentRead: aws.Bool(true),
			})
			if gerr == nil {
				if _, nerr := c.number(out.Item); errors.Is(nerr, ErrTableMismatch) {
					return nerr
				}
			}
		}
		return fmt.Errorf("%w: want %s and Number attribute %q: %w", ErrTableMismatch, c.keySchema(), c.opts.ValueAttribute, err)
	}
	return classify(err)
}

// keySchema describes the key schema the options call for, for messages.
func (c *Counter) keySchema() string {
	if c.opts.SortKeyValue == "" {
		return fmt.Sprintf("partition key %q of type S and no sort key", c.opts.PartitionKey)
	}
	return fmt.Sprintf("partition key %q and sort key %q, both of type S", c.opts.PartitionKey, c.opts.SortKey)
}

// number reads the value attribute of a returned item.
func (c *Counter) number(item map[string]types.AttributeValue) (int64, error) {
	av, ok := item[c.opts.ValueAttribute]
	if !ok {
		return 0, ErrNotFound
	}
	nv, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("%w: attribute %q holds a %s, want a Number", ErrTableMismatch, c.opts.ValueAttribute, typeName(av))
	}
	v, err := strconv.ParseInt(nv.Value, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: attribute %q holds %s, want an integer that fits in int64", ErrTableMismatch, c.opts.ValueAttribute, nv.Value)
	}
	return v, nil
}

// Current returns the last value handed out for the sequence name (or the
// value the item was seeded with), with one strongly consistent GetItem. It
// returns ErrNotFound when the sequence has never been used. The answer is
// a snapshot: other writers may move the counter at any moment.
//
// With GlobalTableMREC it reads the counter item of every Region, one
// GetItem each, and returns the largest watermark: no number handed out in
// any Region, as far as replication has brought its item here, is above
// it. Once writers have stopped and replication has settled, that is the
// largest number handed out anywhere.
func (c *Counter) Current(ctx context.Context, name string) (_ int64, err error) {
	defer func() { c.stats.record(0, err) }()
	fail := func(err error) (int64, error) {
		return 0, &Error{Op: "Counter.Current", Table: c.table, Sequence: name, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	pk, err := partitionValue(c.opts.KeyPrefix, name)
	if err != nil {
		return fail(err)
	}
	if c.slice == nil {
		v, err := c.read(ctx, pk)
		if err != nil {
			return fail(err)
		}
		return v, nil
	}
	found := false
	var largest int64
	for _, key := range c.slice.keys(pk) {
		v, err := c.read(ctx, key)
		switch {
		case errors.Is(err, ErrNotFound):
			continue
		case err != nil:
			return fail(err)
		case !found || v > largest:
			found, largest = true, v
		}
	}
	if !found {
		return fail(ErrNotFound)
	}
	return largest, nil
}

// read returns the value of the counter item whose partition key value is
// pk, with one strongly consistent GetItem.
func (c *Counter) read(ctx context.Context, pk string) (int64, error) {
	out, err := c.reads.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:                aws.String(c.table),
		Key:                      c.itemKey(pk),
		ConsistentRead:           aws.Bool(true),
		ProjectionExpression:     aws.String("#v"),
		ExpressionAttributeNames: c.names,
	})
	if err != nil {
		return 0, c.updateError(ctx, nil, err)
	}
	return c.number(out.Item)
}

// AdvanceTo moves the sequence name forward so that the next value handed
// out is greater than last, for example when moving a table from a database
// whose ids already reached last. It never moves a counter backwards: when
// the stored value is already last or more, nothing is written. It returns
// the stored value afterwards, which is last or the larger value already
// there.
//
// It issues one UpdateItem with the condition that the stored value is
// missing or below last. last must be at most MaxValue.
//
// With GlobalTableMREC it moves this Region's counter item only: the next
// value this Region hands out is the first of its slice above last, and
// the value returned is the watermark (see Current). To move a sequence in
// every Region, call it in each.
func (c *Counter) AdvanceTo(ctx context.Context, name string, last int64) (_ int64, err error) {
	defer func() { c.stats.record(0, err) }()
	fail := func(err error) (int64, error) {
		return 0, &Error{Op: "Counter.AdvanceTo", Table: c.table, Sequence: name, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	pk, err := c.key(name)
	if err != nil {
		return fail(err)
	}
	if last > c.opts.MaxValue {
		return fail(invalidf("last is %d, above MaxValue %d", last, c.opts.MaxValue))
	}
	_, err = c.updateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           aws.String(c.table),
		Key:                                 c.itemKey(pk),
		UpdateExpression:                    aws.String("SET #v = :last"),
		ConditionExpression:                 aws.String("attribute_not_exists(#v) OR #v < :last"),
		ExpressionAttributeNames:            c.names,
		ExpressionAttributeValues:           map[string]types.AttributeValue{":last": &types.AttributeValueMemberN{Value: strconv.FormatInt(last, 10)}},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &ccf):
		// Already at or past last, or not a number: never move it back.
		v, nerr := c.number(ccf.Item)
		if nerr != nil {
			return fail(nerr)
		}
		return v, nil
	case err != nil:
		return fail(c.updateError(ctx, nil, err))
	}
	return last, nil
}

// Stats returns the Counter's cumulative figures. It reads a few atomic
// counters: cheap enough to call at any rate, from any goroutine. Figures
// read while calls are running may be a moment apart from each other.
func (c *Counter) Stats() Stats { return c.figures().stats() }

// figures are the Counter's figures in full.
func (c *Counter) figures() counterFigures {
	return counterFigures{
		Calls:      c.stats.calls.Load(),
		Numbers:    c.stats.numbers.Load(),
		RoundTrips: c.stats.roundTrips.total(),
		Errors:     c.stats.errors.stats(),
		Resends:    c.stats.resends.Load(),

		capacityFigures: capacityStats(&c.stats.roundTrips, &c.stats.waits),
	}
}
