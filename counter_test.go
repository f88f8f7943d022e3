package dynamoseq_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/deadline"
)

func newCounter(t *testing.T, optFns ...func(*dynamoseq.CounterOptions)) (*dynamoseq.Counter, *dynamodb.Client, string) {
	t.Helper()
	client := dbtest.Client(t)
	table := dbtest.CounterTable(t, client)
	c, err := dynamoseq.NewCounter(client, table, optFns...)
	require.NoError(t, err)
	return c, client, table
}

func TestCounterNextConcurrent(t *testing.T) {
	t.Parallel()
	c, _, _ := newCounter(t)
	const goroutines, each = 16, 200
	got := fanOut(t, goroutines, each, func(int, int) (int64, error) {
		return c.Next(context.Background(), "orders")
	})
	for g, vs := range got {
		if !slices.IsSorted(vs) {
			t.Errorf("goroutine %d saw values out of order: %v", g, vs)
		}
	}
	requireExactly(t, slices.Concat(got...), 1, goroutines*each)
}

func init() {
	helpers["counter-next"] = func(t *testing.T) {
		c, err := dynamoseq.NewCounter(dbtest.Client(t), os.Getenv("TABLE"))
		require.NoError(t, err)
		goroutines, _ := strconv.Atoi(os.Getenv("GOROUTINES"))
		each, _ := strconv.Atoi(os.Getenv("EACH"))
		printLines(fanOut(t, goroutines, each, func(int, int) (string, error) {
			v, err := c.Next(context.Background(), "orders")
			return fmt.Sprintf("value %d", v), err
		}))
	}
}

func TestCounterNextProcesses(t *testing.T) {
	t.Parallel()
	_, _, table := newCounter(t)
	const processes, goroutines, each = 4, 4, 200
	outs := dbtest.RunProcesses(t, processes, "counter-next",
		"TABLE="+table, "GOROUTINES="+strconv.Itoa(goroutines), "EACH="+strconv.Itoa(each))
	var got []int64
	for _, l := range outputLines(outs, "value ") {
		v, err := strconv.ParseInt(l, 10, 64)
		require.NoError(t, err)
		got = append(got, v)
	}
	requireExactly(t, got, 1, processes*goroutines*each)
}

func TestCounterNextNConcurrent(t *testing.T) {
	t.Parallel()
	c, _, _ := newCounter(t)
	type span struct{ first, n int64 }
	spans := fanOut(t, 8, 40, func(g, i int) (span, error) {
		n := int64((g+i)%7 + 1)
		first, err := c.NextN(context.Background(), "lines", n)
		if err != nil {
			return span{}, fmt.Errorf("NextN(%d): %w", n, err)
		}
		return span{first, n}, nil
	})
	var all []int64
	for _, s := range slices.Concat(spans...) {
		for v := s.first; v < s.first+s.n; v++ {
			all = append(all, v)
		}
	}
	requireExactly(t, all, 1, int64(len(all)))
	cur, err := c.Current(context.Background(), "lines")
	require.NoError(t, err)
	assert.Equal(t, int64(len(all)), cur, "Current after all NextN")
}

func TestCounterStartAndStep(t *testing.T) {
	t.Parallel()
	c, _, _ := newCounter(t, func(o *dynamoseq.CounterOptions) {
		o.Start = 1000
		o.Step = 10
	})
	ctx := context.Background()
	var got []int64
	for range 3 {
		v, err := c.Next(ctx, "s")
		require.NoError(t, err)
		got = append(got, v)
	}
	assert.Equal(t, []int64{1000, 1010, 1020}, got)
	first, err := c.NextN(ctx, "s", 3)
	require.NoError(t, err)
	assert.Equal(t, int64(1030), first, "NextN(3) first")
	v, err := c.Next(ctx, "s")
	require.NoError(t, err)
	assert.Equal(t, int64(1060), v, "Next after NextN(3)")
	cur, err := c.Current(ctx, "s")
	require.NoError(t, err)
	assert.Equal(t, int64(1060), cur)
}

func TestCounterMaxValue(t *testing.T) {
	t.Parallel()
	c, _, _ := newCounter(t, func(o *dynamoseq.CounterOptions) { o.MaxValue = 5 })
	ctx := context.Background()
	for want := int64(1); want <= 3; want++ {
		v, err := c.Next(ctx, "tickets")
		require.NoError(t, err)
		require.Equal(t, want, v)
	}
	// Three more do not fit in the two that remain: nothing is reserved.
	_, err := c.NextN(ctx, "tickets", 3)
	require.ErrorIs(t, err, dynamoseq.ErrExhausted)
	cur, err := c.Current(ctx, "tickets")
	require.NoError(t, err)
	assert.Equal(t, int64(3), cur, "Current after a refused NextN")

	first, err := c.NextN(ctx, "tickets", 2)
	require.NoError(t, err)
	assert.Equal(t, int64(4), first)
	_, err = c.Next(ctx, "tickets")
	require.ErrorIs(t, err, dynamoseq.ErrExhausted)
	cur, err = c.Current(ctx, "tickets")
	require.NoError(t, err)
	assert.Equal(t, int64(5), cur, "Current after ErrExhausted")

	// A request that could never fit is refused without a call.
	_, err = c.NextN(ctx, "fresh", 6)
	require.ErrorIs(t, err, dynamoseq.ErrExhausted)
	_, err = c.Current(ctx, "fresh")
	require.ErrorIs(t, err, dynamoseq.ErrNotFound)
}

func TestCounterMaxValueNearInt64Limit(t *testing.T) {
	t.Parallel()
	c, _, _ := newCounter(t, func(o *dynamoseq.CounterOptions) { o.Start = math.MaxInt64 - 1 })
	ctx := context.Background()
	v, err := c.Next(ctx, "edge")
	require.NoError(t, err)
	assert.Equal(t, int64(math.MaxInt64-1), v)
	v, err = c.Next(ctx, "edge")
	require.NoError(t, err)
	assert.Equal(t, int64(math.MaxInt64), v)
	_, err = c.Next(ctx, "edge")
	require.ErrorIs(t, err, dynamoseq.ErrExhausted)
	_, err = c.NextN(ctx, "edge", math.MaxInt64)
	require.ErrorIs(t, err, dynamoseq.ErrExhausted)
}

func TestCounterExistingNextIDTable(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	table := dbtest.CreateTable(t, client, dbtest.Key{Name: "NextKey", Type: types.ScalarAttributeTypeS}, nil)
	ctx := context.Background()
	for _, kind := range []string{"user", "order"} {
		_, err := client.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String(table),
			Item: map[string]types.AttributeValue{
				"NextKey": &types.AttributeValueMemberS{Value: kind},
				"NextId":  &types.AttributeValueMemberN{Value: "0"},
			},
		})
		require.NoError(t, err)
	}
	c, err := dynamoseq.NewCounter(client, table, func(o *dynamoseq.CounterOptions) {
		o.PartitionKey = "NextKey"
		o.ValueAttribute = "NextId"
	})
	require.NoError(t, err)
	for _, want := range []int64{1, 2, 3} {
		v, err := c.Next(ctx, "user")
		require.NoError(t, err)
		assert.Equal(t, want, v, "Next(user)")
	}
	v, err := c.Next(ctx, "order")
	require.NoError(t, err)
	assert.Equal(t, int64(1), v, "Next(order)")
}

func TestCounterAdvanceTo(t *testing.T) {
	t.Parallel()
	c, client, table := newCounter(t)
	ctx := context.Background()

	got, err := c.AdvanceTo(ctx, "users", 41207)
	require.NoError(t, err)
	assert.Equal(t, int64(41207), got)
	v, err := c.Next(ctx, "users")
	require.NoError(t, err)
	assert.Equal(t, int64(41208), v, "Next after AdvanceTo(41207)")

	// Never backwards.
	got, err = c.AdvanceTo(ctx, "users", 100)
	require.NoError(t, err)
	assert.Equal(t, int64(41208), got, "AdvanceTo(100) on a counter at 41208")
	v, err = c.Next(ctx, "users")
	require.NoError(t, err)
	assert.Equal(t, int64(41209), v)

	small, err := dynamoseq.NewCounter(client, table, func(o *dynamoseq.CounterOptions) { o.MaxValue = 10 })
	require.NoError(t, err)
	_, err = small.AdvanceTo(ctx, "users", 11)
	require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument)
}

// getItem reads an item of a counter table, or nil.
func getItem(t *testing.T, client *dynamodb.Client, table, keyAttr, key string) map[string]types.AttributeValue {
	t.Helper()
	out, err := client.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName:      aws.String(table),
		Key:            map[string]types.AttributeValue{keyAttr: &types.AttributeValueMemberS{Value: key}},
		ConsistentRead: aws.Bool(true),
	})
	require.NoError(t, err)
	return out.Item
}

func TestCounterBadInput(t *testing.T) {
	t.Parallel()
	c, client, table := newCounter(t)
	ctx := context.Background()

	// A value attribute that already holds a non-number.
	_, err := client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(table),
		Item: map[string]types.AttributeValue{
			"pk":    &types.AttributeValueMemberS{Value: "text"},
			"value": &types.AttributeValueMemberS{Value: "abc"},
		},
	})
	require.NoError(t, err)

	tests := []struct {
		name    string
		call    func() error
		want    error
		message string
	}{
		{"empty name", func() error { _, err := c.Next(ctx, ""); return err }, dynamoseq.ErrInvalidArgument, "empty name"},
		{"oversized name", func() error { _, err := c.Next(ctx, strings.Repeat("x", 2049)); return err }, dynamoseq.ErrInvalidArgument, "2048"},
		{"invalid UTF-8", func() error { _, err := c.Next(ctx, "bad\xff"); return err }, dynamoseq.ErrInvalidArgument, "UTF-8"},
		{"n zero", func() error { _, err := c.NextN(ctx, "n0", 0); return err }, dynamoseq.ErrInvalidArgument, "n is 0"},
		{"n negative", func() error { _, err := c.NextN(ctx, "n0", -5); return err }, dynamoseq.ErrInvalidArgument, "n is -5"},
		{"string value Next", func() error { _, err := c.Next(ctx, "text"); return err }, dynamoseq.ErrTableMismatch, "holds a String"},
		{"string value Current", func() error { _, err := c.Current(ctx, "text"); return err }, dynamoseq.ErrTableMismatch, "holds a String"},
		{"string value AdvanceTo", func() error { _, err := c.AdvanceTo(ctx, "text", 5); return err }, dynamoseq.ErrTableMismatch, "holds a String"},
		{"Current never used", func() error { _, err := c.Current(ctx, "never"); return err }, dynamoseq.ErrNotFound, "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			require.ErrorIs(t, err, tt.want)
			assert.Contains(t, err.Error(), tt.message)
			assert.Contains(t, err.Error(), table, "the message names the table")
			var e *dynamoseq.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, table, e.Table)
		})
	}
	// Nothing was written by any of them.
	assert.Equal(t, "abc", getItem(t, client, table, "pk", "text")["value"].(*types.AttributeValueMemberS).Value)
	for _, key := range []string{"n0", "never"} {
		assert.Nil(t, getItem(t, client, table, "pk", key), "item %q", key)
	}
}

func TestCounterMissingTable(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	c, err := dynamoseq.NewCounter(client, "no_such_table")
	require.NoError(t, err)
	_, err = c.Next(context.Background(), "orders")
	require.ErrorIs(t, err, dynamoseq.ErrTableNotFound)
	var rnf *types.ResourceNotFoundException
	require.ErrorAs(t, err, &rnf, "the SDK's typed error is still reachable")
	assert.Contains(t, err.Error(), `table "no_such_table", sequence "orders"`)
}

func TestCounterWrongKeySchema(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	table := dbtest.CreateTable(t, client, dbtest.Key{Name: "id", Type: types.ScalarAttributeTypeS}, nil)
	c, err := dynamoseq.NewCounter(client, table)
	require.NoError(t, err)
	_, err = c.Next(context.Background(), "orders")
	require.ErrorIs(t, err, dynamoseq.ErrTableMismatch)
	assert.Contains(t, err.Error(), `partition key "pk"`)
}

func TestNewCounterInvalid(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	tests := []struct {
		name   string
		client dynamoseq.Client
		table  string
		opt    func(*dynamoseq.CounterOptions)
	}{
		{"nil client", nil, "seq", nil},
		{"short table", client, "ab", nil},
		{"bad table chars", client, "my table", nil},
		{"negative start", client, "seq", func(o *dynamoseq.CounterOptions) { o.Start = -1 }},
		{"negative step", client, "seq", func(o *dynamoseq.CounterOptions) { o.Step = -2 }},
		{"max below start", client, "seq", func(o *dynamoseq.CounterOptions) { o.Start = 10; o.MaxValue = 5 }},
		{"same key names", client, "seq", func(o *dynamoseq.CounterOptions) { o.ValueAttribute = "pk" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fns := optList(tt.opt)
			c, err := dynamoseq.NewCounter(tt.client, tt.table, fns...)
			require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument)
			assert.Nil(t, c)
		})
	}
}

func TestCounterCancelledContext(t *testing.T) {
	t.Parallel()
	c, client, table := newCounter(t)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	_, err := c.Next(ctx, "orders")
	require.ErrorIs(t, err, context.Canceled)
	_, err = c.NextN(ctx, "orders", 5)
	require.ErrorIs(t, err, context.Canceled)
	_, err = c.Current(ctx, "orders")
	require.ErrorIs(t, err, context.Canceled)
	_, err = c.AdvanceTo(ctx, "orders", 5)
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), time.Second)
	assert.Nil(t, getItem(t, client, table, "pk", "orders"), "nothing written")

	// A call whose context ends while DynamoDB is being asked returns the
	// context's error as soon as it ends.
	slow := &stallingClient{Client: client}
	sc, err := dynamoseq.NewCounter(slow, table)
	require.NoError(t, err)
	ctx, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	start = time.Now()
	_, err = sc.Next(ctx, "orders")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), time.Second)
}

// stallingClient is a DynamoDB client that holds every UpdateItem until the
// context ends, as a network that stopped answering would.
type stallingClient struct {
	dynamoseq.Client
}

func (s *stallingClient) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	<-ctx.Done()
	return nil, fmt.Errorf("stalled: %w", ctx.Err())
}

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	c, _, table := newCounter(t, func(o *dynamoseq.CounterOptions) { o.MaxValue = 1 })
	ctx := context.Background()
	_, err := c.Next(ctx, "tickets")
	require.NoError(t, err)
	_, err = c.Next(ctx, "tickets")
	want := fmt.Sprintf(`dynamoseq: Counter.Next: table %q, sequence "tickets": sequence exhausted: MaxValue is 1`, table)
	assert.Equal(t, want, err.Error())
	assert.True(t, errors.Is(err, dynamoseq.ErrExhausted))
}

// TestCounterBatchDeadline: a caller whose call shares an update with a
// caller of a later deadline returns at its own deadline, also with
// Retry.ResolveTimeout set (which lets the update be resolved past it):
// for a Counter an unknown outcome only loses numbers, so nobody waits
// for it past their deadline and about one round trip. The deadlines pass
// when the test says (internal/testsupport/deadline): the short one once
// the shared update is in flight, the long one once the short caller has
// returned.
func TestCounterBatchDeadline(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	held := &heldClient{Client: client, release: make(chan struct{}), arrived: make(chan struct{}, 2)}
	c, err := dynamoseq.NewCounter(held, dbtest.CounterTable(t, client),
		func(o *dynamoseq.CounterOptions) { o.ResolveTimeout = time.Minute })
	require.NoError(t, err)

	first := make(chan error, 1)
	go func() { _, err := c.Next(context.Background(), "orders"); first <- err }()
	<-held.arrived
	heldSince := time.Now()

	// Both queue behind the held update, and share the next one, which
	// stalls until its context ends.
	shortCtx, passShort := deadline.New()
	longCtx, passLong := deadline.New()
	short, long := make(chan error, 1), make(chan error, 1)
	for _, call := range []struct {
		ctx context.Context
		out chan error
	}{{shortCtx, short}, {longCtx, long}} {
		ctx, waiting := waitingContext(call.ctx)
		go func() { _, err := c.Next(ctx, "orders"); call.out <- err }()
		<-waiting
	}
	// The first update's round trip, as the Counter measures it, is the
	// time it was held and then took: a caller's grace after its deadline
	// (see Retry.ResolveTimeout).
	close(held.release)
	require.NoError(t, <-first)
	rtt := time.Since(heldSince)
	<-held.arrived // the shared update is in flight
	passed := time.Now()
	passShort()
	var shortErr error
	select {
	case shortErr = <-short:
	case <-time.After(time.Minute):
		t.Fatal("the short caller is still waiting a minute after its deadline passed, with the long one's still ahead")
	}
	shortTook := time.Since(passed)
	passLong()
	longErr := <-long
	require.Equal(t, int64(2), held.calls.Load(), "the two calls queued behind the first did not share an update")
	require.ErrorIs(t, shortErr, context.DeadlineExceeded)
	require.Less(t, shortTook, rtt+deadlineSlack, "the short caller returned that long after its deadline passed, want within about a round trip (%v): %v", rtt, shortErr)
	require.Error(t, longErr)
}

// heldClient holds its first UpdateItem until release is closed, then
// sends it; every later UpdateItem stalls until its context ends, as a
// network that stopped answering would.
type heldClient struct {
	dynamoseq.Client
	release chan struct{}
	calls   atomic.Int64
	arrived chan struct{} // told of each UpdateItem, while it has room
}

func (h *heldClient) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	n := h.calls.Add(1)
	select {
	case h.arrived <- struct{}{}:
	default:
	}
	if n == 1 {
		<-h.release
		return h.Client.UpdateItem(ctx, in, optFns...)
	}
	<-ctx.Done()
	return nil, fmt.Errorf("stalled: %w", ctx.Err())
}
