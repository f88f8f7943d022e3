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

// SortKey numbers the items of an item collection: the items of sequence
// name share the partition key KeyPrefix+name, and each one's sort key is
// its number, 1, 2, 3... Append stores the caller's item under the next
// number, so the number and the item are written together.
//
// Guarantees: gap-free and unique. A number exists only if its item was
// written, and every number from 1 to Last exists, across all processes
// sharing the table, as long as nothing else writes or deletes numbered
// items of the collection. Numbers increase in the order DynamoDB applied
// the writes; one process writes the calls for a name in their order.
//
// Cost per call: one conditional PutItem and one write unit per KB when
// warm, a strongly consistent Query more when cold. Calls waiting for the
// same name are written together, up to 100 in one TransactWriteItems (two
// write units per KB each); NoTransactions writes them one by one.
//
// A SortKey is safe for concurrent use by any number of goroutines, and
// several SortKeys, in one process or many, may share a table and a name.
// It starts no goroutine. docs/sortkey.md describes the mechanism.
type SortKey struct {
	client    Client // the writes and the reads of the head, in runs (see capacity.go)
	reads     Client // the read methods' reads, which wait out throttles
	table     string
	opts      SortKeyOptions // resolved: defaults applied
	single    bool           // writes one PutItem per item, no transactions (NoTransactions, or GlobalTableMRSC)
	codec     numberCodec
	max       int64 // the largest number the sort key can hold
	lo, hi    types.AttributeValue
	policy    backoff.Policy
	resolver  engine.Resender
	qNames    map[string]string // expression attribute names of the Query
	headNames map[string]string // expression attribute names of the Query of the last number
	putNames  map[string]string // expression attribute names of the Puts
	calls     *engine.Group[string, hint, appendReq, int64]
	rtt       engine.RoundTrip // the writes' round trips, across names
	pace      pacing
	stats     sortKeyStats
}

// hint is what a SortKey knows of a name between calls: the last number
// written to it, when known. Only the run in progress for the name touches
// it (see engine.Group).
type hint struct {
	last  int64
	known bool
	engine.NameWriter
}

// sortKeyHints is the number of idle names whose hint is kept. A name whose
// hint was dropped pays one Query on its next call.
const sortKeyHints = 10_000

// NewSortKey returns a SortKey over table, with the options optFns set.
// The table must have a String partition key named PartitionKey and a sort
// key named SortKey, a Number (or a String of SortKeyDigits digits).
// GlobalTableMREC is refused; with GlobalTableMRSC or NoTransactions it
// writes without transactions (see SortKey).
//
// It makes no call to DynamoDB: a table of another shape is reported by the
// first call that queries it, with ErrTableMismatch. It returns an error
// wrapping ErrInvalidArgument when client is nil or the table name breaks
// DynamoDB's rules, and an *OptionError for an option out of range.
func NewSortKey(client Client, table string, optFns ...func(*SortKeyOptions)) (*SortKey, error) {
	fail := func(err error) (*SortKey, error) {
		return nil, &Error{Op: "NewSortKey", Table: table, Err: err}
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
	s := &SortKey{
		table:     table,
		opts:      o,
		single:    singleItemWrites(o.NoTransactions, o.GlobalTable),
		codec:     newNumberCodec(o.SortKey, o.SortKeyDigits),
		policy:    o.policy(),
		qNames:    map[string]string{"#pk": o.PartitionKey, "#sk": o.SortKey},
		headNames: map[string]string{"#pk": o.PartitionKey, "#sk": o.SortKey, "#tok": o.TokenAttribute},
		putNames:  map[string]string{"#pk": o.PartitionKey, "#tok": o.TokenAttribute},
	}
	s.calls = engine.NewGroup[string, hint, appendReq, int64](engine.MaxTransactItems, sortKeyHints, graceOf(o.Retry, &s.rtt))
	s.client = countingClient{Client: client, n: &s.stats.requests}
	s.reads = patientClient{Client: s.client, p: patience{maxWait: o.MaxWait, rtt: &s.rtt, waits: &s.stats.waits}}
	s.resolver = o.resender(&s.stats.resends)
	s.pace = pacing{Pace: engine.Pace{RTT: &s.rtt, Turns: &s.stats.turns, Share: new(engine.Share), Single: s.single}, maxWait: o.MaxWait, stats: &s.stats.appendStats}
	s.max = min(s.codec.max(), o.MaxValue)
	s.lo, s.hi = s.codec.key(1), s.codec.key(s.max)
	return s, nil
}

// Next appends an item with no attributes other than its keys and returns
// its number: Append(ctx, name, nil).
func (s *SortKey) Next(ctx context.Context, name string) (int64, error) {
	return s.append(ctx, "SortKey.Next", name, nil)
}

// Append stores item under the next number of the sequence name and returns
// that number. item is a struct or a map that attributevalue.Marshal
// accepts, a map[string]types.AttributeValue, or nil for no attributes; it
// must not set the partition or the sort key attribute.
//
// When Append returns a number, the item is stored under it, once. When it
// returns an error, nothing was stored, but for ErrUnknownOutcome: the
// write was sent and its outcome could not be found out before ctx ended
// (or Retry.ResolveTimeout passed); the *Error's Number may hold the item.
// Throttles and conflicts with other transactions are waited out while ctx
// lasts, for at most Retry.MaxWait, then ErrThrottled.
//
// Errors: ErrInvalidArgument for a bad name or item (one over 400 KB, or
// one DynamoDB refuses); ErrContention after MaxAttempts races lost to
// other processes; ErrThrottled; ErrExhausted; ErrTableMismatch;
// ErrTableNotFound; ErrUnknownOutcome; the context's error. RetryAfter
// tells which may succeed later; docs/sortkey.md how a write is settled.
func (s *SortKey) Append(ctx context.Context, name string, item any) (int64, error) {
	return s.append(ctx, "SortKey.Append", name, item)
}

func (s *SortKey) append(ctx context.Context, op, name string, item any) (_ int64, err error) {
	defer func() { s.stats.record(1, err) }()
	fail := func(err error) (int64, error) {
		return 0, &Error{Op: op, Table: s.table, Sequence: name, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	pk, err := partitionValue(s.opts.KeyPrefix, name)
	if err != nil {
		return fail(err)
	}
	keyBytes := len(s.opts.PartitionKey) + len(pk) + len(s.opts.SortKey) + attributeSize(s.hi) + len(s.opts.TokenAttribute) + engine.TokenBytes
	attrs, size, err := marshalItem(item, keyBytes, s.owned()...)
	if err != nil {
		return fail(err)
	}
	n, err := s.calls.Do(ctx, pk, appendReq{attrs: attrs, size: size + keyBytes}, s.run)
	if err != nil {
		return 0, callError(ctx, op, s.table, name, n, err)
	}
	return n, nil
}

// owned are the attributes a SortKey writes itself on every item, which
// the reads leave out of the caller's attributes.
func (s *SortKey) owned() []string {
	return []string{s.opts.PartitionKey, s.opts.SortKey, s.opts.TokenAttribute}
}

// Last returns the largest number of the sequence name, with one strongly
// consistent Query (descending, Limit 1, projecting the sort key only; 1
// read unit). It returns ErrNotFound when the sequence has no item. The
// answer is a snapshot: other writers may append at any moment.
func (s *SortKey) Last(ctx context.Context, name string) (int64, error) {
	fail := func(err error) (int64, error) {
		return 0, &Error{Op: "SortKey.Last", Table: s.table, Sequence: name, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	pk, err := partitionValue(s.opts.KeyPrefix, name)
	if err != nil {
		return fail(err)
	}
	last, _, err := s.queryHead(ctx, s.reads, pk)
	if err != nil {
		return fail(err)
	}
	return last, nil
}

type sortKeyCall = engine.Call[appendReq, int64]

// run writes a batch of calls for the partition key pk, in order, as few
// transactions as DynamoDB's limits allow. It is called by engine.Group,
// one run per key at a time.
func (s *SortKey) run(ctx context.Context, pk string, h *hint, batch []*sortKeyCall) {
	defer engine.Linger(batch, s.rtt.Load())
	if s.single {
		s.writeEach(ctx, pk, h, batch)
		return
	}
	// Late callers are held before the batch is cut, and so before the
	// table's share counts them (see pacing.late): one held in a write
	// would put the later writes back (engine.PutBack).
	if h.Refused() {
		batch = s.pace.late(&h.NameWriter, batch)
	}
	engine.RunBatches(batch, engine.MaxTransactItems, false, s.stats.batch, func(calls []*sortKeyCall) { s.write(ctx, pk, h, calls) })
}

// write stores the items of calls at the numbers that follow the last one
// and sets every call's outcome, or puts the calls back in the queue: after
// a lost race (see engine.RaceLost), or to wait for capacity (see
// waitForCapacity).
func (s *SortKey) write(ctx context.Context, pk string, h *hint, calls []*sortKeyCall) {
	races := calls[0].Req.races // the oldest call has lost the most
	if at := engine.Slot(s.pace.Pace, &h.NameWriter, calls); !at.IsZero() {
		seatWait(calls, at, s.pace.maxWait)
		return // the table's writes take turns (see engine.Share)
	}
	for len(calls) > 0 {
		warm := h.known && races == 0 // the hint is from this writer's own last win
		first, tn, err := s.place(ctx, pk, h)
		if err != nil {
			s.pace.headFailed(&h.NameWriter, calls, err)
			return
		}
		if room := s.max - (first - 1); int64(len(calls)) > room {
			engine.Fail(calls[max(room, 0):], fmt.Errorf("%w: the sequence holds numbers up to %d (MaxValue, or the widest String sort key)", ErrExhausted, s.max))
			calls = calls[:max(room, 0)]
			continue
		}
		if h.Refused() { // a hold for late callers (see pacing.late)
			if calls = s.pace.late(&h.NameWriter, calls); len(calls) == 0 {
				return
			}
		}
		if calls = engine.Publish(calls, first, 1); len(calls) == 0 {
			return
		}
		start := time.Now()
		err = s.put(ctx, pk, first, calls, tn)
		switch engine.DecideWrite(err, ErrUnknownOutcome, calls, s.opts.PartitionKey) {
		case engine.Stored:
			if next := engine.WonBatch(s.pace.Pace, &h.NameWriter, start, tn, calls); !next.IsZero() {
				s.pace.paced(calls, next)
			}
			for i, c := range calls {
				c.Res = first + int64(i)
			}
			h.last = first - 1 + int64(len(calls))
			return
		case engine.Unknown:
			h.known = false // the last number may have moved
			for i, c := range calls {
				c.Res, c.Err = first+int64(i), err // the number that may hold the item
			}
			return
		case engine.Throttled:
			// Nothing was written: the hint still holds.
			s.pace.refused(&h.NameWriter, calls, start, err)
			return
		case engine.Conflict:
			// Nothing was written; another writer's write is in flight.
			h.known = false
			s.pace.conflicted(&h.NameWriter, calls, start, err)
			return
		case engine.LostRace:
			h.known = false
			s.lostRace(ctx, h, calls, start, warm, races, err)
			return
		case engine.KeyTaken:
			// Nothing was written: the hint still holds. The calls whose
			// key another call holds leave; the others are written again.
			calls = heldKeys(calls, s.opts.PartitionKey, err)
		default: // engine.RefusedItem, engine.Other
			h.known = false
			calls = s.settleRefused(ctx, pk, h, calls, first, err)
		}
	}
}

// lostRace handles a write of calls, started at start, that lost race
// number races+1 to another writer (err): it learns the last number from
// the items returned, and puts the calls back in the queue (see engine.RaceLost).
func (s *SortKey) lostRace(ctx context.Context, h *hint, calls []*sortKeyCall, start time.Time, warm bool, races int, err error) {
	s.stats.lostRaces.Add(1)
	h.Lost(start)
	switch {
	case warm || races%3 == 2:
		// Query instead of learning: a hint of this writer's own may be
		// old (other processes may have written many times since, and
		// learning would step through their writes one round trip at a
		// time), and a third lost race in a row may be such a walk
		// (through items written before tokens told where a write ended).
	case !s.learn(h, err):
		// A failed condition that returned no item: nothing to learn but
		// that the name is busy.
		if err := s.policy.Wait(ctx, races+1); err != nil {
			engine.Fail(calls, err)
			return
		}
	}
	if engine.RaceLost(calls, s.opts.MaxAttempts, ErrContention, err) {
		s.stats.retries.Add(1)
	}
}

// place returns where the next write goes: first, the number of its first
// item, and the turn it belongs to (see turns). It first waits while
// another writer has its turn, or after its own, and queries the last
// number (and the turn of its write) unless the hint knows it.
func (s *SortKey) place(ctx context.Context, pk string, h *hint) (first int64, tn engine.Turn, err error) {
	tn, err = h.Take(ctx, &h.known, s.opts.MaxDelay, s.stats.waited, func() (engine.Turn, error) {
		last, end, err := s.queryHead(ctx, s.client, pk)
		if errors.Is(err, ErrNotFound) {
			last, err = s.opts.Start-1, nil // an empty sequence starts at Start
		}
		if err == nil {
			h.last = last
		}
		return end, err
	})
	return h.last + 1, tn, err
}

// settleRefused handles a write that DynamoDB refused for a reason other
// than a lost race (it stored nothing): it sets the outcome of the calls it
// can settle and returns those to write again.
func (s *SortKey) settleRefused(ctx context.Context, pk string, h *hint, calls []*sortKeyCall, first int64, err error) []*sortKeyCall {
	faults := engine.Faults(err)
	if len(faults) == 0 {
		if len(calls) > 1 && engine.Decide(err, ErrUnknownOutcome) == engine.RefusedItem {
			// DynamoDB refused the transaction as a whole without saying
			// which item was at fault (DynamoDB Local does so for an item
			// that nests too deep or holds an empty set).
			engine.OneByOne(calls, func(one []*sortKeyCall) { s.write(ctx, pk, h, one) })
			return nil
		}
		engine.Fail(calls, s.writeError(err))
		return nil
	}
	// DynamoDB named the items it would not store. A ValidationError
	// concerns that item alone: its caller gets the error, the others are
	// written again without it, which costs one more round trip and cannot
	// loop (the batch shrinks). Any other reason, such as a full item
	// collection, fails the whole batch at once, each caller's error
	// naming the item DynamoDB gave.
	refused := make(map[int]bool, len(faults))
	for _, f := range faults {
		i := keyedIndex(calls, f.Index)
		what := fmt.Sprintf("item %d of %d in the transaction (number %d)", f.Index+1, len(calls), first+int64(i))
		if i != f.Index {
			what = fmt.Sprintf("item %d in the transaction (the key item of number %d)", f.Index+1, first+int64(i))
		}
		if !f.Invalid || i < 0 { // i < 0: an action the request did not hold; nothing to leave out
			engine.Fail(calls, fmt.Errorf("transaction cancelled because of %s: %s: %s: %w", what, f.Code, f.Message, err))
			return nil
		}
		refused[i] = true
		calls[i].Err = fmt.Errorf("%w: DynamoDB refused %s: %s: %s: %w", ErrInvalidArgument, what, f.Code, f.Message, err)
	}
	var kept []*sortKeyCall
	for i, c := range calls {
		if !refused[i] {
			kept = append(kept, c)
		}
	}
	return kept
}

// put writes the items of calls at first, first+1...: one PutItem for a
// single call (one write unit per KB), one TransactWriteItems for several
// (two per KB), or for one with an idempotency key, whose key item follows
// the numbered items. Every item carries a new write token, and every Put is
// conditioned on its number being free or holding that token, so that an
// attempt of this request that was applied already makes the others
// succeed, and one that lands late changes nothing. The token also names
// the turn the write belongs to (see turns). An
// outcome left unknown is resolved by resending (see engine.Resender).
func (s *SortKey) put(ctx context.Context, pk string, first int64, calls []*sortKeyCall, tn engine.Turn) error {
	token := engine.RequestToken()
	pkValue := &types.AttributeValueMemberS{Value: pk}
	tok := &types.AttributeValueMemberS{Value: engine.Token(token, first+int64(len(calls))-1, tn)}
	cond, values := aws.String("attribute_not_exists(#pk) OR #tok = :tok"), map[string]types.AttributeValue{":tok": tok}
	item := func(i int) map[string]types.AttributeValue {
		attrs := calls[i].Req.attrs // owned by this call; the keys are set again on every write
		attrs[s.opts.PartitionKey] = pkValue
		attrs[s.opts.SortKey] = s.codec.key(first + int64(i))
		attrs[s.opts.TokenAttribute] = tok
		return attrs
	}
	if len(calls) == 1 && calls[0].Req.key == nil {
		in := &dynamodb.PutItemInput{
			TableName:                 aws.String(s.table),
			Item:                      item(0),
			ConditionExpression:       cond,
			ExpressionAttributeNames:  s.putNames,
			ExpressionAttributeValues: values,
			// A lost race returns the item in the way (see headOf).
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}
		return s.resolver.Send(ctx, func(ctx context.Context, optFn func(*dynamodb.Options)) error {
			_, err := s.client.PutItem(ctx, in, optFn)
			return err
		})
	}
	actions := make([]types.TransactWriteItem, 0, len(calls))
	for i := range calls {
		actions = append(actions, types.TransactWriteItem{Put: &types.Put{
			TableName:                           aws.String(s.table),
			Item:                                item(i),
			ConditionExpression:                 cond,
			ExpressionAttributeNames:            s.putNames,
			ExpressionAttributeValues:           values,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}})
	}
	for i, c := range calls { // the key items follow the numbered items (see keyedIndex)
		if k := c.Req.key; k != nil {
			key := map[string]types.AttributeValue{s.opts.PartitionKey: &types.AttributeValueMemberS{Value: k.pk}, s.opts.SortKey: s.codec.key(0)}
			actions = append(actions, types.TransactWriteItem{Put: k.put(s.table, s.opts.PartitionKey, key, first+int64(i), tok.Value)})
		}
	}
	in := &dynamodb.TransactWriteItemsInput{TransactItems: actions, ClientRequestToken: aws.String(token)}
	return s.resolver.Send(ctx, func(ctx context.Context, optFn func(*dynamodb.Options)) error {
		_, err := s.client.TransactWriteItems(ctx, in, optFn)
		return err
	})
}

// writeError explains a failed write that was not a lost race and named no
// item.
func (s *SortKey) writeError(err error) error {
	if engine.Decide(err, ErrUnknownOutcome) == engine.RefusedItem {
		// The table's shape was checked by the Query that preceded the
		// first write, and the items' sizes before it, so what is left
		// is an item DynamoDB will not store.
		return fmt.Errorf("%w: DynamoDB refused the item: %w", ErrInvalidArgument, err)
	}
	return classify(err)
}

// queryHead returns the largest number stored under pk, or ErrNotFound,
// and the end of the turn of the write that stored it, if any (see turns),
// read with client (s.client in a run, s.reads otherwise). The key
// condition keeps to the range of numbers (1 to max), so that other items
// of a single-table design that share the partition (a String sort key
// such as "META", or a Number 0) are not mistaken for numbers, and so that
// a table without the sort key the options describe is refused by
// DynamoDB instead of being used wrongly.
func (s *SortKey) queryHead(ctx context.Context, client Client, pk string) (int64, engine.Turn, error) {
	in := s.rangeQuery(pk, s.lo, s.hi, NewestFirst, 1)
	in.ProjectionExpression = aws.String("#sk, #tok")
	in.ExpressionAttributeNames = s.headNames
	out, err := client.Query(ctx, in)
	if err != nil {
		return 0, engine.Turn{}, s.readError(err)
	}
	if len(out.Items) == 0 {
		return 0, engine.Turn{}, ErrNotFound
	}
	last, err := s.codec.parse(out.Items[0][s.opts.SortKey])
	if err != nil {
		return 0, engine.Turn{}, err
	}
	_, tn, _ := s.storedUpTo(out.Items[0])
	return last, tn, nil
}
