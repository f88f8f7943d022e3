package dynamoseqtest_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// noRetries makes a client answer the first refusal, as a test of the
// model's answers needs.
func noRetries(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} }

func sItem(pk string, size int) map[string]types.AttributeValue {
	// "pk" + pk + "v" + the padding: size bytes in all.
	pad := size - 2 - len(pk) - 1
	return map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk},
		"v":  &types.AttributeValueMemberS{Value: strings.Repeat("x", pad)},
	}
}

func sKey(pk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}
}

func putSized(ctx context.Context, c *dynamodb.Client, table, pk string, size int) error {
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: sItem(pk, size)})
	return err
}

// drain puts until the partition's bucket is empty, and returns when the
// first throttle comes.
func drain(t *testing.T, c *dynamodb.Client, table, pk string, size int) {
	t.Helper()
	for range 10000 {
		if err := putSized(context.Background(), c, table, pk, size); err != nil {
			require.True(t, throttled(err), "a put draining the bucket: got %v, want nil or a throttle", err)
			return
		}
	}
	t.Fatal("never throttled")
}

func throttled(err error) bool {
	var od *types.ThrottlingException
	var pv *types.ProvisionedThroughputExceededException
	return errors.As(err, &od) || errors.As(err, &pv)
}

// A flood on one partition key value is admitted at the configured rate;
// the rest is refused with the throttling exception of the form asked for,
// which the SDK decodes into its typed error, and counted. The model's
// clock is the test's: at each step of it, writers flood the key until
// each is refused, so the load offered exceeds the rate however slowly the
// machine runs them, and the rate is measured in the model's time.
func TestModelFloodThrottledAtRate(t *testing.T) {
	t.Parallel()
	for _, form := range []dynamoseqtest.ThrottleForm{dynamoseqtest.ThrottleOnDemand, dynamoseqtest.ThrottleProvisioned} {
		t.Run(string(form), func(t *testing.T) {
			t.Parallel()
			const (
				rate   = 200 // write units a second
				cost   = 8   // write units of a put of 8,000 bytes
				window = 2 * time.Second
				// A step refills 16 units: with fewer than 8 left after a
				// refusal, the bucket of 200 ms (40 units) never fills up
				// and wastes none of the rate.
				step = 80 * time.Millisecond
			)
			srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{
				WriteUnits: rate, Burst: 200 * time.Millisecond, Throttle: form, NoLatency: true}))
			clock := &modelClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			dynamoseqtest.SetModelClock(srv, clock.Now)
			table := srv.NewTable(t, table())
			c := srv.Client(noRetries)
			drain(t, c, table, "hot", 8000)
			before := srv.ModelStats().Operation("PutItem")
			var refused int64
			for range window / step {
				clock.Advance(step)
				refused += floodUntilRefused(t, c, table, 4)
			}
			after := srv.ModelStats().Operation("PutItem")
			got := (after.WriteUnits - before.WriteUnits) / window.Seconds()
			t.Logf("%s: %.1f write units/s admitted of %d configured; %d requests, %d throttled",
				form, got, rate, after.Requests-before.Requests, after.Throttled-before.Throttled)
			// The bucket holds less than one put's units after the drain
			// and after the last step's refusals.
			require.InDelta(t, rate, got, cost/window.Seconds(),
				"write units a second admitted over %v of the model's clock, with %d configured", window, rate)
			require.Equal(t, refused, after.Throttled-before.Throttled, "throttles the model counted, against the refusals its writers got")
			final := srv.ModelStats()
			p := final.Partition(table, "S:hot")
			require.Equal(t, final.Operation("PutItem").Throttled, p.Throttled, "a single-item request's throttle is its partition's")
		})
	}
}

// modelClock is a clock that a test moves, for SetModelClock.
type modelClock struct {
	mu  sync.Mutex // protects now
	now time.Time
}

func (c *modelClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *modelClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// floodUntilRefused has writers put 8,000-byte items on the key "hot" at
// once, each until its first throttle (the model's clock stands still
// meanwhile, so each gets one), and returns the throttles they got. Any
// other error fails t.
func floodUntilRefused(t *testing.T, c *dynamodb.Client, table string, writers int) int64 {
	t.Helper()
	var refused atomic.Int64
	errs := make(chan error, writers)
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				err := putSized(context.Background(), c, table, "hot", 8000)
				switch {
				case err == nil:
					continue
				case throttled(err):
					refused.Add(1)
				default:
					errs <- err
				}
				return
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err, "a put of the flood: want stored or throttled")
	}
	return refused.Load()
}

// The typed errors of both forms carry the reason and the table, and the
// SDK's standard retryer sends a throttled request again (as from the
// service) but not a cancelled transaction.
func TestModelThrottleAnswers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		form   dynamoseqtest.ThrottleForm
		code   string
		reason func(error) []types.ThrottlingReason
	}{
		{dynamoseqtest.ThrottleOnDemand, "ThrottlingError", func(err error) []types.ThrottlingReason {
			var e *types.ThrottlingException
			if !errors.As(err, &e) {
				return nil
			}
			return e.ThrottlingReasons
		}},
		{dynamoseqtest.ThrottleProvisioned, "ProvisionedThroughputExceeded", func(err error) []types.ThrottlingReason {
			var e *types.ProvisionedThroughputExceededException
			if !errors.As(err, &e) {
				return nil
			}
			return e.ThrottlingReasons
		}},
	}
	for _, tc := range cases {
		t.Run(string(tc.form), func(t *testing.T) {
			t.Parallel()
			// A partition that admits one write and then, for about a
			// hundred seconds, none: every later write to "hot" is
			// throttled, however long the machine takes between them.
			srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{WriteUnits: 0.01, Throttle: tc.form}))
			table := srv.NewTable(t, table())
			c := srv.Client(noRetries)
			drain(t, c, table, "hot", 100)

			err := putSized(context.Background(), c, table, "hot", 100)
			reasons := tc.reason(err)
			require.Len(t, reasons, 1, "the throttling reasons of the put after the drain; its error: %v", err)
			require.Equal(t, "TableWriteKeyRangeThroughputExceeded", aws.ToString(reasons[0].Reason))
			require.True(t, strings.HasSuffix(aws.ToString(reasons[0].Resource), ":table/"+table), "the throttled resource is %q, want one ending in %q", aws.ToString(reasons[0].Resource), ":table/"+table)

			// A transaction with an item on the hot key and one elsewhere.
			_, err = c.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String(table), Item: sItem("cold", 100)}},
				{Put: &types.Put{TableName: aws.String(table), Item: sItem("hot", 100)}},
			}})
			var cancelled *types.TransactionCanceledException
			require.ErrorAs(t, err, &cancelled)
			require.Equal(t, []string{"None", tc.code}, codes(cancelled))

			// The SDK's retryer: a throttle is sent again, a cancelled
			// transaction is not.
			retrying := srv.Client(dbtest.FastRetries())
			before := srv.ModelStats().Total().Requests
			err = putSized(context.Background(), retrying, table, "hot", 100)
			require.True(t, throttled(err), "the retried put on the drained key: got %v, want a throttle", err)
			require.Equal(t, int64(3), srv.ModelStats().Total().Requests-before, "3 attempts")
			before = srv.ModelStats().Total().Requests
			_, err = retrying.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String(table), Item: sItem("hot", 100)}},
			}})
			require.ErrorAs(t, err, &cancelled)
			require.Equal(t, int64(1), srv.ModelStats().Total().Requests-before, "1 attempt")

			tx := srv.ModelStats().Operation("TransactWriteItems")
			require.Equal(t, int64(2), tx.ThrottledCancellations)
			require.Equal(t, int64(2), tx.Cancellations)
			require.Zero(t, tx.WriteUnits, "a throttled transaction costs nothing")
		})
	}
}

// arrived waits until the model has received n requests of op, and a
// little more, so that the last one has been admitted.
func arrived(t *testing.T, srv *dynamoseqtest.Server, op string, n int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for srv.ModelStats().Operation(op).Requests < n {
		require.True(t, time.Now().Before(deadline), "%s never arrived", op)
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
}

func codes(e *types.TransactionCanceledException) []string {
	var cs []string
	for _, r := range e.CancellationReasons {
		cs = append(cs, aws.ToString(r.Code))
	}
	return cs
}

// While a transaction is in flight, its items are held: a second
// transaction on one of them is cancelled with TransactionConflict at that
// index, a PutItem gets TransactionConflictException, a GetItem is served.
// Once it has answered, the items are free again.
func TestModelTransactionConflicts(t *testing.T) {
	t.Parallel()
	slow := dynamoseqtest.Latency{P50: 600 * time.Millisecond, P99: 600 * time.Millisecond}
	srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{TransactLatency: slow}))
	table := srv.NewTable(t, table())
	c := srv.Client(noRetries)
	ctx := context.Background()
	require.NoError(t, putSized(ctx, c, table, "warm", 100)) // the model has described the table
	put := func(pk string) types.TransactWriteItem {
		return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: sItem(pk, 100)}}
	}

	first := make(chan error, 1)
	sent := time.Now()
	go func() {
		_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{put("x"), put("y")}})
		first <- err
	}()
	arrived(t, srv, "TransactWriteItems", 1)

	_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{put("z"), put("y")}})
	var cancelled *types.TransactionCanceledException
	require.ErrorAs(t, err, &cancelled)
	require.Equal(t, []string{"None", "TransactionConflict"}, codes(cancelled))

	err = putSized(ctx, c, table, "x", 100)
	var conflict *types.TransactionConflictException
	require.ErrorAs(t, err, &conflict)

	_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: sKey("x")})
	require.NoError(t, err, "a GetItem does not conflict")

	require.NoError(t, <-first)
	require.GreaterOrEqual(t, time.Since(sent), 600*time.Millisecond, "answered after its latency")
	require.NoError(t, putSized(ctx, c, table, "x", 100), "free once answered")

	s := srv.ModelStats()
	require.Equal(t, int64(1), s.Operation("TransactWriteItems").ConflictCancellations)
	require.Equal(t, int64(1), s.Operation("PutItem").Conflicts)
	require.Equal(t, int64(1), s.Partition(table, "S:y").Conflicts)
	require.Equal(t, int64(1), s.Partition(table, "S:x").Conflicts)
}

// The units the model charges follow AWS's documented table: writes 1
// unit per KB of the larger of the item before and after (also when the
// condition fails), reads 1 per 4 KB strongly consistent and half that
// eventually, transactions twice per item (a ConditionCheck too), a
// cancelled one CancelledShare of it, a replayed one as transactional
// reads. ConsumedCapacity says the same when asked.
func TestModelUnitsCharged(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{NoLatency: true}))
	tab := srv.NewTable(t, table())
	skDef := table()
	skDef.AttributeDefinitions = append(skDef.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN})
	skDef.KeySchema = append(skDef.KeySchema, types.KeySchemaElement{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange})
	e := unitEnv{c: srv.Client(noRetries), ctx: context.Background(), tn: aws.String(tab), skTab: aws.String(srv.NewTable(t, skDef))}
	c, ctx := e.c, e.ctx
	cases := append(e.singleItemCases(), e.transactionCases()...)
	for i, tc := range cases {
		p := "u" + strings.Repeat("0", i) // a partition key value of the case's own, all of one length
		for suffix, size := range tc.setup {
			require.NoError(t, putSized(ctx, c, tab, p+suffix, size))
		}
		before := srv.ModelStats().Operation(tc.op)
		got, err := tc.run(p)
		after := srv.ModelStats().Operation(tc.op)
		units := after.WriteUnits - before.WriteUnits + after.ReadUnits - before.ReadUnits
		if tc.fails {
			require.Error(t, err, tc.name)
		} else {
			require.NoError(t, err, tc.name)
		}
		require.Equal(t, tc.units, units, "%s: units charged", tc.name)
		if tc.name == "transaction replayed by its token" {
			require.Equal(t, 4.0, got, "%s: the replay's ConsumedCapacity, in read units", tc.name)
			require.Equal(t, 4.0, after.ReadUnits-before.ReadUnits, tc.name)
			require.Equal(t, int64(1), after.Replays-before.Replays, tc.name)
			continue
		}
		if !tc.fails {
			require.Equal(t, tc.units, got, "%s: ConsumedCapacity", tc.name)
		}
		if tc.read {
			require.Zero(t, after.WriteUnits-before.WriteUnits, tc.name)
		}
	}
}

// unitCase is a request of TestModelUnitsCharged: what is stored first,
// the request (returning the units its ConsumedCapacity says), and what
// the model must charge.
type unitCase struct {
	name  string
	op    string
	setup map[string]int // items stored first: pk → size
	run   func(p string) (float64, error)
	units float64 // charged
	read  bool    // read units
	fails bool
}

// unitEnv is what the requests of TestModelUnitsCharged are sent with:
// the client, the table of partition keys only (tn) and the table with a
// Number sort key (skTab).
type unitEnv struct {
	c         *dynamodb.Client
	ctx       context.Context
	tn, skTab *string
}

// unitsOf and unitsOfAll read the units a ConsumedCapacity says.
func unitsOf(cc *types.ConsumedCapacity) float64 { return aws.ToFloat64(cc.CapacityUnits) }

func unitsOfAll(ccs []types.ConsumedCapacity) float64 {
	var s float64
	for i := range ccs {
		s += unitsOf(&ccs[i])
	}
	return s
}

func (e unitEnv) tput(pk string, size int) types.TransactWriteItem {
	return types.TransactWriteItem{Put: &types.Put{TableName: e.tn, Item: sItem(pk, size)}}
}

// singleItemCases are the single-item writes and the reads.
func (e unitEnv) singleItemCases() []unitCase {
	c, ctx, tn := e.c, e.ctx, e.tn
	return []unitCase{
		{"put 500B", "PutItem", nil, func(p string) (float64, error) {
			out, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tn, Item: sItem(p, 500), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			return unitsOf(out.ConsumedCapacity), err
		}, 1, false, false},
		{"put 1.5KB", "PutItem", nil, func(p string) (float64, error) {
			out, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tn, Item: sItem(p, 1500), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
			return aws.ToFloat64(out.ConsumedCapacity.Table.WriteCapacityUnits), err
		}, 2, false, false},
		{"put 1.5KB over 3.5KB", "PutItem", map[string]int{"": 3500}, func(p string) (float64, error) {
			out, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tn, Item: sItem(p, 1500), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			return unitsOf(out.ConsumedCapacity), err
		}, 4, false, false},
		{"put failing its condition over 2.5KB", "PutItem", map[string]int{"": 2500}, func(p string) (float64, error) {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tn, Item: sItem(p, 100), ConditionExpression: aws.String("attribute_not_exists(pk)")})
			var ccf *types.ConditionalCheckFailedException
			if errors.As(err, &ccf) && ccf.Item != nil {
				return 0, errors.New("the item that failed the condition was not asked for")
			}
			return 0, err
		}, 3, false, true},
		{"update shrinking 2.5KB", "UpdateItem", map[string]int{"": 2500}, func(p string) (float64, error) {
			out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tn, Key: sKey(p), UpdateExpression: aws.String("REMOVE v"), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			return unitsOf(out.ConsumedCapacity), err
		}, 3, false, false},
		{"delete 2.5KB", "DeleteItem", map[string]int{"": 2500}, func(p string) (float64, error) {
			out, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: tn, Key: sKey(p), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			return unitsOf(out.ConsumedCapacity), err
		}, 3, false, false},
		{"get 5KB strongly", "GetItem", map[string]int{"": 5000}, func(p string) (float64, error) {
			out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: tn, Key: sKey(p), ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			return unitsOf(out.ConsumedCapacity), err
		}, 2, true, false},
		{"get 5KB eventually", "GetItem", map[string]int{"": 5000}, func(p string) (float64, error) {
			out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: tn, Key: sKey(p), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			return unitsOf(out.ConsumedCapacity), err
		}, 1, true, false},
		{"query 5KB strongly", "Query", map[string]int{"": 5000}, func(p string) (float64, error) {
			out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: tn, KeyConditionExpression: aws.String("#k = :k"),
				ExpressionAttributeNames:  map[string]string{"#k": "pk"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":k": &types.AttributeValueMemberS{Value: p}},
				ConsistentRead:            aws.Bool(true), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			return unitsOf(out.ConsumedCapacity), err
		}, 2, true, false},
	}
}

// transactionCases are the transactions: of items apart and in one item
// collection, with a ConditionCheck, cancelled, replayed, and a read.
func (e unitEnv) transactionCases() []unitCase {
	c, ctx, tn, skTab, tput := e.c, e.ctx, e.tn, e.skTab, e.tput
	return []unitCase{
		{"transaction 500B + 1.5KB", "TransactWriteItems", nil, func(p string) (float64, error) {
			out, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
				TransactItems: []types.TransactWriteItem{tput(p, 500), tput(p+"b", 1500)}})
			return unitsOfAll(out.ConsumedCapacity), err
		}, 6, false, false},
		{"transaction of 10 items of 100B under one partition key", "TransactWriteItems", nil, func(p string) (float64, error) {
			var items []types.TransactWriteItem
			for i := range 10 {
				items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: skTab, Item: map[string]types.AttributeValue{
					"pk": &types.AttributeValueMemberS{Value: p}, "sk": &types.AttributeValueMemberN{Value: strconv.Itoa(i + 1)},
					"v": &types.AttributeValueMemberS{Value: strings.Repeat("x", 90)}}}})
			}
			out, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal, TransactItems: items})
			return unitsOfAll(out.ConsumedCapacity), err
		}, 20, false, false},
		{"transaction with a ConditionCheck", "TransactWriteItems", map[string]int{"": 100}, func(p string) (float64, error) {
			out, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
				TransactItems: []types.TransactWriteItem{tput(p+"b", 500),
					{ConditionCheck: &types.ConditionCheck{TableName: tn, Key: sKey(p), ConditionExpression: aws.String("attribute_exists(pk)")}}}})
			return unitsOfAll(out.ConsumedCapacity), err
		}, 4, false, false},
		{"transaction cancelled by its condition", "TransactWriteItems", map[string]int{"": 100}, func(p string) (float64, error) {
			_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{tput(p+"b", 500),
				{Put: &types.Put{TableName: tn, Item: sItem(p, 500), ConditionExpression: aws.String("attribute_not_exists(pk)")}}}})
			return 0, err
		}, 2, false, true},
		{"transaction replayed by its token", "TransactWriteItems", nil, func(p string) (float64, error) {
			in := &dynamodb.TransactWriteItemsInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal, ClientRequestToken: aws.String("token-" + p),
				TransactItems: []types.TransactWriteItem{tput(p, 500), tput(p+"b", 1500)}}
			if _, err := c.TransactWriteItems(ctx, in); err != nil {
				return 0, err
			}
			out, err := c.TransactWriteItems(ctx, in)
			return unitsOfAll(out.ConsumedCapacity), err
		}, 6 + 4, false, false},
		{"transactional get of 5KB and of nothing", "TransactGetItems", map[string]int{"": 5000}, func(p string) (float64, error) {
			out, err := c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
				TransactItems: []types.TransactGetItem{{Get: &types.Get{TableName: tn, Key: sKey(p)}}, {Get: &types.Get{TableName: tn, Key: sKey(p + "none")}}}})
			return unitsOfAll(out.ConsumedCapacity), err
		}, 6, true, false},
	}
}

// ConsumedCapacity comes only when asked for, as from the service.
func TestModelConsumedCapacityOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{NoLatency: true}))
	tab := srv.NewTable(t, table())
	c := srv.Client()
	ctx := context.Background()
	out, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tab), Item: sItem("a", 100)})
	require.NoError(t, err)
	require.Nil(t, out.ConsumedCapacity)
	tx, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(tab), Item: sItem("b", 100)}}}})
	require.NoError(t, err)
	require.Nil(t, tx.ConsumedCapacity)
	q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(tab), KeyConditionExpression: aws.String("pk = :k"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":k": &types.AttributeValueMemberS{Value: "a"}},
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal})
	require.NoError(t, err)
	require.Equal(t, 0.5, aws.ToFloat64(q.ConsumedCapacity.CapacityUnits), "an eventually consistent Query of 100 bytes")
	require.Len(t, q.Items, 1)
}

// The model's answers carry a valid CRC32 header, so a client that checks
// it (the SDK's default) reads them, errors included.
func TestModelAnswersCarryChecksums(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{WriteUnits: 2, NoLatency: true}))
	tab := srv.NewTable(t, table())
	c := srv.Client(noRetries, func(o *dynamodb.Options) { o.DisableValidateResponseChecksum = false })
	ctx := context.Background()
	require.NoError(t, putSized(ctx, c, tab, "a", 100))
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tab), Item: sItem("a", 100), ConditionExpression: aws.String("attribute_not_exists(pk)")})
	var ccf *types.ConditionalCheckFailedException
	require.ErrorAs(t, err, &ccf)
	drain(t, c, tab, "a", 100)
}

// A TransactWriteItems sent again with the token of one in flight is
// refused with TransactionInProgressException (which the SDK retries);
// once it is done, each one sent again is answered as its replay.
func TestModelTokenInProgress(t *testing.T) {
	t.Parallel()
	slow := dynamoseqtest.Latency{P50: 400 * time.Millisecond, P99: 400 * time.Millisecond}
	srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{TransactLatency: slow}))
	tab := srv.NewTable(t, table())
	c := srv.Client(noRetries)
	require.NoError(t, putSized(context.Background(), c, tab, "warm", 100)) // the model has described the table
	// A token of this run's own: DynamoDB Local, shared by the runs of
	// -count, remembers one for 10 minutes.
	token := "t" + strconv.FormatInt(time.Now().UnixNano(), 36)
	in := &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String(token), TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(tab), Item: sItem("a", 100)}}}}
	first := make(chan error, 1)
	go func() {
		_, err := c.TransactWriteItems(context.Background(), in)
		first <- err
	}()
	arrived(t, srv, "TransactWriteItems", 1)
	_, err := c.TransactWriteItems(context.Background(), in)
	var busy *types.TransactionInProgressException
	require.ErrorAs(t, err, &busy)
	require.NoError(t, <-first)
	_, err = c.TransactWriteItems(context.Background(), in)
	require.NoError(t, err, "a replay once it is done")
	_, err = c.TransactWriteItems(context.Background(), in)
	require.NoError(t, err, "a second replay (the first must not leave the token in flight)")
	s := srv.ModelStats().Operation("TransactWriteItems")
	require.Equal(t, int64(1), s.InProgress)
	require.Equal(t, int64(2), s.Replays)
}

// The model's cost per request beside DynamoDB Local's own, latency off:
// PutItem on distinct keys from parallel goroutines.
func BenchmarkModelPutItem(b *testing.B) {
	local := dynamoseqtest.Start(b)
	model := dynamoseqtest.Start(b, dynamoseqtest.WithService(dynamoseqtest.Service{NoLatency: true}))
	for _, s := range []struct {
		name string
		srv  *dynamoseqtest.Server
	}{{"local", local}, {"model", model}} {
		b.Run(s.name, func(b *testing.B) {
			tab := s.srv.NewTable(b, table())
			c := s.srv.Client()
			var n atomic.Int64
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := putSized(context.Background(), c, tab, strconv.FormatInt(n.Add(1), 10), 200); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// By default a throttle takes the form of the table's billing mode.
func TestModelThrottleFormByBillingMode(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{WriteUnits: 2, NoLatency: true}))
	// The model's clock stands still: a drained bucket stays drained
	// however slowly the machine runs the test.
	clock := &modelClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	dynamoseqtest.SetModelClock(srv, clock.Now)
	onDemand := srv.NewTable(t, table())
	def := table()
	def.BillingMode = types.BillingModeProvisioned
	def.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
	provisioned := srv.NewTable(t, def)
	c := srv.Client(noRetries)
	drain(t, c, onDemand, "hot", 100)
	drain(t, c, provisioned, "hot", 100)
	var od *types.ThrottlingException
	require.ErrorAs(t, putSized(context.Background(), c, onDemand, "hot", 100), &od)
	var pv *types.ProvisionedThroughputExceededException
	require.ErrorAs(t, putSized(context.Background(), c, provisioned, "hot", 100), &pv)
}

// An answer is held until its drawn latency has passed since the request
// arrived, and Scale stretches the latency.
func TestModelLatencyHeld(t *testing.T) {
	t.Parallel()
	fixed := dynamoseqtest.Latency{P50: 40 * time.Millisecond, P99: 40 * time.Millisecond}
	srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{Scale: 0.5, WriteLatency: fixed}))
	tab := srv.NewTable(t, table())
	c := srv.Client()
	require.NoError(t, putSized(context.Background(), c, tab, "warm", 100))
	for range 3 {
		start := time.Now()
		require.NoError(t, putSized(context.Background(), c, tab, "a", 100))
		took := time.Since(start)
		require.GreaterOrEqual(t, took, 80*time.Millisecond, "40ms at scale 0.5")
		require.Less(t, took, 500*time.Millisecond)
	}
}

// ModelStats.Overrun counts how long answers came after their drawn
// latency because DynamoDB Local answered later: with a latency of a
// microsecond, about all of each answer's time; with latency off, none.
func TestModelOverrun(t *testing.T) {
	t.Parallel()
	tiny := dynamoseqtest.Latency{P50: time.Microsecond, P99: time.Microsecond}
	for _, svc := range []dynamoseqtest.Service{{WriteLatency: tiny}, {NoLatency: true}} {
		srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(svc))
		tab := srv.NewTable(t, table())
		c := srv.Client()
		before := srv.ModelStats()
		start := time.Now()
		for i := range 3 {
			require.NoError(t, putSized(context.Background(), c, tab, fmt.Sprint(i), 100))
		}
		took := time.Since(start)
		over := srv.ModelStats().Overrun - before.Overrun
		if svc.NoLatency {
			require.Zero(t, over, "latency off: nothing is held past a drawn latency")
			continue
		}
		require.Positive(t, over, "DynamoDB Local takes longer than a microsecond to put an item")
		require.LessOrEqual(t, over, took, "held past their latency longer than the three puts took")
		require.Equal(t, over, srv.ModelStats().Operation("PutItem").Overrun-before.Operation("PutItem").Overrun, "the PutItems' overrun is the total's")
	}
}

// In the narrow conflict model (Conflicts) a PutItem that arrives while a
// transaction on its item is still preparing is carried out, and cancels
// the transaction with TransactionConflict at that item: none of the
// transaction is stored.
func TestModelWriteCancelsTransaction(t *testing.T) {
	t.Parallel()
	slow := dynamoseqtest.Latency{P50: 4 * time.Second, P99: 4 * time.Second} // prepared after 2s
	srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{TransactLatency: slow, Conflicts: 1}))
	tab := srv.NewTable(t, table())
	c := srv.Client(noRetries)
	ctx := context.Background()
	require.NoError(t, putSized(ctx, c, tab, "warm", 100)) // the model has described the table
	first := make(chan error, 1)
	go func() {
		_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(tab), Item: sItem("x", 100)}},
			{Put: &types.Put{TableName: aws.String(tab), Item: sItem("y", 100)}},
		}})
		first <- err
	}()
	arrived(t, srv, "TransactWriteItems", 1)
	require.NoError(t, putSized(ctx, c, tab, "x", 300), "a put while the transaction on its item prepares")
	var cancelled *types.TransactionCanceledException
	require.ErrorAs(t, <-first, &cancelled)
	require.Equal(t, []string{"TransactionConflict", "None"}, codes(cancelled))
	require.False(t, exists(t, c, tab, "y"), "an item of the cancelled transaction was stored")
	s := srv.ModelStats().Operation("TransactWriteItems")
	require.Equal(t, int64(1), s.ConflictCancellations)
	require.Equal(t, 2.0, s.WriteUnits, "the cancelled transaction charged half its 4 units")
}
