package dailyids_test

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/examples/dailyids"
)

func TestMain(m *testing.M) {
	dynamoseqtest.Main(m)
}

// newTable returns a client of the test server and a table of this test's
// own with the counters' layout (partition key "pk", String).
func newTable(t *testing.T) (*dynamodb.Client, string) {
	t.Helper()
	srv := dynamoseqtest.Start(t)
	return srv.Client(), srv.NewTable(t, dynamoseq.CounterTable("orders"))
}

func TestOrdersAcrossMidnight(t *testing.T) {
	t.Parallel()
	client, table := newTable(t)
	ctx := context.Background()
	require.NoError(t, dailyids.EnsureTable(ctx, client, table))

	paris := time.FixedZone("CET", 3600)
	var now atomic.Int64
	now.Store(time.Date(2026, 11, 22, 23, 59, 0, 0, paris).UnixNano())
	orders, err := dailyids.New(client, dailyids.Config{
		Table:    table,
		Location: paris,
		Now:      func() time.Time { return time.Unix(0, now.Load()) },
	})
	require.NoError(t, err)

	first, err := orders.Place(ctx, "alice", 1250)
	require.NoError(t, err)
	second, err := orders.Place(ctx, "bob", 990)
	require.NoError(t, err)
	assert.Equal(t, "ORD-261122-000001", first.Number)
	assert.Equal(t, "ORD-261122-000002", second.Number)

	now.Store(time.Date(2026, 11, 23, 0, 0, 0, 0, paris).UnixNano())
	third, err := orders.Place(ctx, "carol", 4500)
	require.NoError(t, err)
	assert.Equal(t, "ORD-261123-000001", third.Number, "first order after midnight in Paris")

	got, err := orders.Get(ctx, second.Number)
	require.NoError(t, err)
	assert.Equal(t, "bob", got.Customer)
	assert.Equal(t, int64(990), got.TotalCents)
	assert.True(t, second.PlacedAt.Equal(got.PlacedAt), "PlacedAt = %v, want %v", got.PlacedAt, second.PlacedAt)

	_, err = orders.Get(ctx, "ORD-261123-000002")
	require.ErrorIs(t, err, dynamoseq.ErrNotFound)
	_, err = orders.Get(ctx, "ORD-261123-2")
	require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument)

	for day, want := range map[int]int64{21: 0, 22: 2, 23: 1} {
		n, err := orders.CountOn(ctx, time.Date(2026, 11, day, 12, 0, 0, 0, paris))
		require.NoError(t, err)
		assert.Equal(t, want, n, "CountOn(%d November)", day)
	}

	// The day's counter expires a week after the day; the orders never do.
	out, err := client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(table),
		Key:       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "SEQ#orders#20261122"}},
	})
	require.NoError(t, err)
	want := time.Date(2026, 11, 30, 0, 0, 0, 0, paris).Unix()
	assert.Equal(t, &types.AttributeValueMemberN{Value: itoa(want)}, out.Item["ttl"])
	out, err = client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(table),
		Key:       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "ORDER#" + first.Number}},
	})
	require.NoError(t, err)
	assert.NotContains(t, out.Item, "ttl")

	desc, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
	require.NoError(t, err)
	assert.Equal(t, "ttl", aws.ToString(desc.TimeToLiveDescription.AttributeName))
}

func TestOrdersConcurrent(t *testing.T) {
	t.Parallel()
	client, table := newTable(t)
	ctx := context.Background()
	orders, err := dailyids.New(client, dailyids.Config{Table: table})
	require.NoError(t, err)

	const goroutines, each = 4, 25
	var mu sync.Mutex
	var numbers []string
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				o, err := orders.Place(ctx, "shopper", 100)
				if err != nil {
					t.Errorf("Place: %v", err)
					return
				}
				mu.Lock()
				numbers = append(numbers, o.Number)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	slices.Sort(numbers)
	require.Len(t, slices.Compact(slices.Clone(numbers)), goroutines*each, "distinct order numbers")
	// Unless the test ran across midnight UTC, all are today's 1 to 100.
	n, err := orders.CountOn(ctx, time.Now())
	require.NoError(t, err)
	m, err := orders.CountOn(ctx, time.Now().Add(-24*time.Hour))
	require.NoError(t, err)
	assert.Equal(t, int64(goroutines*each), n+m, "orders counted today and yesterday")
}

func itoa(n int64) string {
	return strconv.FormatInt(n, 10)
}
