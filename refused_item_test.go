package dynamoseq_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// badNumber is an attribute DynamoDB refuses and the library cannot check
// beforehand: a Number that is not one.
var badNumber = &types.AttributeValueMemberN{Value: "not-a-number"}

// holdClient holds the first write sent after arm until release, so that
// the calls made meanwhile queue behind it and are written together; it
// records whether a write carried the bad item beside another call's item.
type holdClient struct {
	dynamoseq.Client
	armed   atomic.Bool
	held    chan struct{} // closed when the held write arrives
	release chan struct{} // closed to let it go
	batched atomic.Bool   // a request carried the bad item and a good one
}

func newHoldClient(c dynamoseq.Client) *holdClient {
	return &holdClient{Client: c, held: make(chan struct{}), release: make(chan struct{})}
}

func (g *holdClient) hold() {
	if g.armed.CompareAndSwap(true, false) {
		close(g.held)
		<-g.release
	}
}

func (g *holdClient) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	g.hold()
	return g.Client.PutItem(ctx, in, optFns...)
}

func (g *holdClient) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	g.hold()
	var bad, good bool
	for _, a := range in.TransactItems {
		if a.Put != nil {
			_, isBad := a.Put.Item["n"]
			_, isGood := a.Put.Item["id"]
			bad, good = bad || isBad, good || isGood
		}
	}
	if bad && good {
		g.batched.Store(true)
	}
	return g.Client.TransactWriteItems(ctx, in, optFns...)
}

// appendGetter is what SortKey and Latest have in common here.
type appendGetter interface {
	Append(ctx context.Context, name string, item any) (int64, error)
	Get(ctx context.Context, name string, n int64, out any) error
}

// TestSortKeyRefusedItemInBatch and TestLatestRefusedItemInBatch: 8 calls
// queued behind a write in flight are written together; one of them
// carries an item DynamoDB refuses. That call alone fails, with
// ErrInvalidArgument; the other 7 get numbers, their items are stored
// under them, and the numbers are gap-free. With and without transactions.
func TestSortKeyRefusedItemInBatch(t *testing.T) {
	t.Parallel()
	testRefusedItemInBatch(t, func(c dynamoseq.Client, table string, noTx bool) (appendGetter, error) {
		return dynamoseq.NewSortKey(c, table, func(o *dynamoseq.SortKeyOptions) { o.NoTransactions = noTx })
	})
}

func TestLatestRefusedItemInBatch(t *testing.T) {
	t.Parallel()
	testRefusedItemInBatch(t, func(c dynamoseq.Client, table string, noTx bool) (appendGetter, error) {
		return dynamoseq.NewLatest(c, table, func(o *dynamoseq.LatestOptions) { o.NoTransactions = noTx })
	})
}

// testRefusedItemInBatch runs refusedItemRounds with and without
// transactions, on a strategy newAppender makes.
func testRefusedItemInBatch(t *testing.T, newAppender func(c dynamoseq.Client, table string, noTx bool) (appendGetter, error)) {
	for _, noTx := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoTransactions=%v", noTx), func(t *testing.T) {
			t.Parallel()
			client := dbtest.Client(t)
			table := dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN)
			gate := newHoldClient(client)
			a, err := newAppender(gate, table, noTx)
			require.NoError(t, err)
			refusedItemRounds(t, a, gate, !noTx)
		})
	}
}

// refusedItemRounds runs rounds on fresh names until one wrote the bad
// item in one request with a good one (with transactions; one round
// without), checking every round.
func refusedItemRounds(t *testing.T, a appendGetter, gate *holdClient, transactions bool) {
	const rounds = 5
	for r := range rounds {
		refusedItemRound(t, a, gate, fmt.Sprintf("doc%d", r))
		if !transactions || gate.batched.Load() {
			return
		}
		gate.held, gate.release = make(chan struct{}), make(chan struct{})
	}
	t.Fatalf("in %d rounds no transaction carried the bad item beside a good one; want at least one", rounds)
}

// refusedItemRound holds the first write to name in flight, queues 8
// Appends behind it (call 3 with the bad item), lets the write go, and
// checks the outcomes and the items stored.
func refusedItemRound(t *testing.T, a appendGetter, gate *holdClient, name string) {
	t.Helper()
	ctx := context.Background()
	gate.armed.Store(true)
	first := make(chan error, 1)
	go func() {
		_, err := a.Append(ctx, name, map[string]string{"id": "first"})
		first <- err
	}()
	<-gate.held
	const calls, badCall = 8, 3
	nums, errs := make([]int64, calls), make([]error, calls)
	var started, done sync.WaitGroup
	for i := range calls {
		started.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			item := any(map[string]string{"id": fmt.Sprint("call", i)})
			if i == badCall {
				item = map[string]types.AttributeValue{"n": badNumber}
			}
			started.Done()
			nums[i], errs[i] = a.Append(ctx, name, item)
		}()
	}
	started.Wait()
	close(gate.release)
	require.NoError(t, <-first, "the held Append")
	done.Wait()

	seen := map[int64]bool{1: true} // the held Append's
	for i := range calls {
		if i == badCall {
			require.ErrorIs(t, errs[i], dynamoseq.ErrInvalidArgument, "Append of the bad item: want ErrInvalidArgument")
			continue
		}
		require.NoError(t, errs[i], "Append(call%d) beside the bad item", i)
		assert.False(t, seen[nums[i]], "number %d handed out twice", nums[i])
		seen[nums[i]] = true
		var got struct {
			ID string `dynamodbav:"id"`
		}
		require.NoError(t, a.Get(ctx, name, nums[i], &got), "Get(%d)", nums[i])
		assert.Equal(t, fmt.Sprint("call", i), got.ID, "item stored under number %d", nums[i])
	}
	for n := int64(1); n <= calls; n++ {
		assert.True(t, seen[n], "numbers 1 to %d gap-free: %d missing (got %v)", calls, n, nums)
	}
}
