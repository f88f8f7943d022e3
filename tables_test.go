package dynamoseq_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/deadline"
)

// tableCalls is a TableClient that counts the calls that change a table.
type tableCalls struct {
	dynamoseq.TableClient
	creates, ttlUpdates atomic.Int64
}

func (c *tableCalls) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	c.creates.Add(1)
	return c.TableClient.CreateTable(ctx, in, optFns...)
}

func (c *tableCalls) UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	c.ttlUpdates.Add(1)
	return c.TableClient.UpdateTimeToLive(ctx, in, optFns...)
}

// ensureTable calls EnsureTable on a table named for the test, which is
// deleted when the test ends, and returns the table's name.
func ensureTable[T any](t *testing.T, client dynamoseq.TableClient, def func(string, ...func(*T)) *dynamodb.CreateTableInput, ttl string, optFns ...func(*T)) string {
	t.Helper()
	return ensureDefined(t, client, func(table string) *dynamodb.CreateTableInput { return def(table, optFns...) }, ttl)
}

// ensureDefined is ensureTable with the table definition def gives.
func ensureDefined(t *testing.T, client dynamoseq.TableClient, def func(table string) *dynamodb.CreateTableInput, ttl string) string {
	t.Helper()
	admin := dbtest.Client(t)
	table := dbtest.TableName(t)
	t.Cleanup(func() {
		_, _ = admin.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	})
	require.NoError(t, dynamoseq.EnsureTable(context.Background(), client, def(table), ttl))
	return table
}

// TestEnsureTableOnce: the first call creates the table and enables TTL;
// the second changes nothing.
func TestEnsureTableOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	calls := &tableCalls{TableClient: dbtest.Client(t)}
	table := ensureTable(t, calls, dynamoseq.CounterTable, "ttl")
	require.NoError(t, dynamoseq.EnsureTable(ctx, calls, dynamoseq.CounterTable(table), "ttl"))
	assert.Equal(t, int64(1), calls.creates.Load(), "CreateTable calls")
	assert.Equal(t, int64(1), calls.ttlUpdates.Load(), "UpdateTimeToLive calls")

	desc, err := calls.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
	require.NoError(t, err)
	assert.Equal(t, types.TimeToLiveStatusEnabled, desc.TimeToLiveDescription.TimeToLiveStatus)
	assert.Equal(t, "ttl", aws.ToString(desc.TimeToLiveDescription.AttributeName))

	err = dynamoseq.EnsureTable(ctx, calls, dynamoseq.CounterTable(table), "expires")
	require.ErrorIs(t, err, dynamoseq.ErrTableMismatch)
	assert.Contains(t, err.Error(), `Time to Live is enabled on attribute "ttl", want "expires"`)
	assert.Equal(t, int64(1), calls.ttlUpdates.Load(), "UpdateTimeToLive calls")
}

// TestEnsureTableMismatch: an existing table of another shape is refused,
// naming what differs.
func TestEnsureTableMismatch(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	sortKeyTable := ensureTable(t, client, dynamoseq.SortKeyTable, "")
	tests := []struct {
		name    string
		in      *dynamodb.CreateTableInput
		message string
	}{
		{"no sort key", dynamoseq.CounterTable(sortKeyTable), `the sort key is "sk" of type N, want none`},
		{"sort key type", dynamoseq.SortKeyTable(sortKeyTable, func(o *dynamoseq.SortKeyOptions) { o.SortKeyDigits = 19 }),
			`the sort key is "sk" of type N, want "sk" of type S`},
		{"key names", dynamoseq.SortKeyTable(sortKeyTable, func(o *dynamoseq.SortKeyOptions) { o.PartitionKey, o.SortKey = "PK", "SK" }),
			`the partition key is "pk" of type S, want "PK" of type S; the sort key is "sk" of type N, want "SK" of type N`},
		{"layout", dynamoseq.LatestTable(sortKeyTable, func(o *dynamoseq.LatestOptions) { o.Layout = dynamoseq.LayoutPartitionKey{} }), `want none`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := dynamoseq.EnsureTable(context.Background(), client, tt.in, "")
			require.ErrorIs(t, err, dynamoseq.ErrTableMismatch)
			assert.Contains(t, err.Error(), tt.message)
			assert.Contains(t, err.Error(), `dynamoseq: EnsureTable: table "`+sortKeyTable+`": `)
		})
	}
}

// TestTableDefinitionsFitStrategies: each definition, under the options it
// was made with, is a table the strategy works on.
func TestTableDefinitionsFitStrategies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := dbtest.Client(t)
	// fit is a table definition and the strategy made with the same options.
	type fit struct {
		def  func(table string) *dynamodb.CreateTableInput
		open func(table string) (dynamoseq.Sequencer, error)
	}
	counter := func(opt func(*dynamoseq.CounterOptions)) fit {
		return fit{func(table string) *dynamodb.CreateTableInput { return dynamoseq.CounterTable(table, optList(opt)...) },
			func(table string) (dynamoseq.Sequencer, error) {
				return dynamoseq.NewCounter(client, table, optList(opt)...)
			}}
	}
	sortKey := func(opt func(*dynamoseq.SortKeyOptions)) fit {
		return fit{func(table string) *dynamodb.CreateTableInput { return dynamoseq.SortKeyTable(table, optList(opt)...) },
			func(table string) (dynamoseq.Sequencer, error) {
				return dynamoseq.NewSortKey(client, table, optList(opt)...)
			}}
	}
	latest := func(opt func(*dynamoseq.LatestOptions)) fit {
		return fit{func(table string) *dynamodb.CreateTableInput { return dynamoseq.LatestTable(table, optList(opt)...) },
			func(table string) (dynamoseq.Sequencer, error) {
				return dynamoseq.NewLatest(client, table, optList(opt)...)
			}}
	}
	tests := []struct {
		name string
		fit
	}{
		{"Counter", counter(nil)},
		{"Counter NextId", counter(func(o *dynamoseq.CounterOptions) { o.PartitionKey, o.ValueAttribute = "NextKey", "NextId" })},
		{"Counter sort key", counter(func(o *dynamoseq.CounterOptions) { o.SortKeyValue = "COUNTER" })},
		{"SortKey", sortKey(nil)},
		{"SortKey String", sortKey(func(o *dynamoseq.SortKeyOptions) { o.SortKeyDigits = 6 })},
		{"SortKey names", sortKey(func(o *dynamoseq.SortKeyOptions) { o.PartitionKey, o.SortKey = "PK", "SK" })},
		{"Latest", latest(nil)},
		{"Latest String", latest(func(o *dynamoseq.LatestOptions) { o.Layout = dynamoseq.LayoutSortKey{SortKeyDigits: 6} })},
		{"Latest names", latest(func(o *dynamoseq.LatestOptions) {
			o.PartitionKey, o.Layout = "PK", dynamoseq.LayoutSortKey{SortKey: "SK"}
		})},
		{"Latest partition key", latest(func(o *dynamoseq.LatestOptions) { o.Layout = dynamoseq.LayoutPartitionKey{} })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			table := ensureDefined(t, client, tt.def, "")
			seq, err := tt.open(table)
			require.NoError(t, err)
			for want := int64(1); want <= 3; want++ {
				got, err := seq.Next(ctx, "a")
				require.NoError(t, err)
				require.Equal(t, want, got, "Next()")
			}
		})
	}
}

// creatingForever reports every table as CREATING, and then, if answered
// is set, calls it.
type creatingForever struct {
	dynamoseq.TableClient
	answered func()
}

func (c creatingForever) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	out, err := c.TableClient.DescribeTable(ctx, in, optFns...)
	if err == nil {
		out.Table.TableStatus = types.TableStatusCreating
		if c.answered != nil {
			c.answered()
		}
	}
	return out, err
}

// TestEnsureTableWaitsWithinContext: a table that never becomes ACTIVE
// holds EnsureTable only as long as ctx allows: it polls, and once the
// deadline has passed (here as the third DescribeTable answers, however
// long the machine took to get there) it returns the deadline's error,
// naming the table's state, and polls no more.
func TestEnsureTableWaitsWithinContext(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	table := ensureTable(t, client, dynamoseq.CounterTable, "")
	ctx, pass := deadline.New()
	const polls = 3
	var answers atomic.Int64
	creating := creatingForever{TableClient: client, answered: func() {
		if answers.Add(1) == polls {
			pass()
		}
	}}
	err := dynamoseq.EnsureTable(ctx, creating, dynamoseq.CounterTable(table), "")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "CREATING", "the error names the state the table was left in")
	assert.Equal(t, int64(polls), answers.Load(), "DescribeTable calls: %d until the deadline, and none after it", polls)
}

func TestEnsureTableBadInput(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	ctx := context.Background()
	tests := []struct {
		name   string
		client dynamoseq.TableClient
		in     *dynamodb.CreateTableInput
	}{
		{"nil client", nil, dynamoseq.CounterTable("Sequences")},
		{"nil input", client, nil},
		{"bad table name", client, dynamoseq.CounterTable("a b")},
		{"no key schema", client, &dynamodb.CreateTableInput{TableName: aws.String("Sequences")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := dynamoseq.EnsureTable(ctx, tt.client, tt.in, "")
			require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument)
			var e *dynamoseq.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, "EnsureTable", e.Op)
		})
	}
}

// TestEnsureTableConcurrent: processes starting at once on a new table all
// find it ready, with TTL enabled once.
func TestEnsureTableConcurrent(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	table := dbtest.TableName(t)
	t.Cleanup(func() {
		_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	})
	fanOut(t, 4, 1, func(int, int) (struct{}, error) {
		return struct{}{}, dynamoseq.EnsureTable(context.Background(), client, dynamoseq.SortKeyTable(table), "ttl")
	})
}
