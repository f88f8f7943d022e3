package dynamoseq_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// inSingleTable puts the counter items at sk "COUNTER" of a single-table
// design's String sort key.
func inSingleTable(o *dynamoseq.CounterOptions) {
	o.SortKeyValue = "COUNTER"
}

// TestCounterSortKeyValue runs every Counter method in a table with a
// String sort key, beside another item of the same partition, and checks
// the item each writes.
func TestCounterSortKeyValue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := dbtest.Client(t)
	table := dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeS)
	_, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "Tag#alice"}, "sk": &types.AttributeValueMemberS{Value: "0000000000000000001"},
	}})
	require.NoError(t, err)
	c, err := dynamoseq.NewCounter(client, table, inSingleTable, func(o *dynamoseq.CounterOptions) { o.KeyPrefix = "Tag#" })
	require.NoError(t, err)

	_, err = c.Current(ctx, "alice")
	require.ErrorIs(t, err, dynamoseq.ErrNotFound, "the other item of the partition is not the counter")
	v, err := c.Next(ctx, "alice")
	require.NoError(t, err)
	assert.Equal(t, int64(1), v, "Next()")
	first, err := c.NextN(ctx, "alice", 10)
	require.NoError(t, err)
	assert.Equal(t, int64(2), first, "NextN(10)")
	v, err = c.Current(ctx, "alice")
	require.NoError(t, err)
	assert.Equal(t, int64(11), v, "Current()")
	v, err = c.AdvanceTo(ctx, "alice", 100)
	require.NoError(t, err)
	assert.Equal(t, int64(100), v, "AdvanceTo(100)")
	v, err = c.AdvanceTo(ctx, "alice", 50)
	require.NoError(t, err)
	assert.Equal(t, int64(100), v, "AdvanceTo(50) never moves back")
	v, err = c.Next(ctx, "alice")
	require.NoError(t, err)
	assert.Equal(t, int64(101), v, "Next() after AdvanceTo")

	out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true), Key: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "Tag#alice"}, "sk": &types.AttributeValueMemberS{Value: "COUNTER"},
	}})
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "101"}, out.Item["value"], "the counter item at sk COUNTER")
}

// TestCounterSortKeyValueTableMismatch: with SortKey set, a table
// without a sort key (or with a Number one) is refused with ErrTableMismatch
// naming the key schema wanted; without it, a table with a sort key is.
func TestCounterSortKeyValueTableMismatch(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	tests := []struct {
		name  string
		table string
		opt   func(*dynamoseq.CounterOptions)
		want  string
	}{
		{"no sort key", dbtest.CounterTable(t, client), inSingleTable, `sort key "sk", both of type S`},
		{"Number sort key", dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN), inSingleTable, `sort key "sk", both of type S`},
		{"sort key not set", dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeS), nil, `partition key "pk" of type S and no sort key`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := dynamoseq.NewCounter(client, tt.table, optList(tt.opt)...)
			require.NoError(t, err)
			for op, call := range map[string]func() error{
				"Next":      func() error { _, err := c.Next(context.Background(), "orders"); return err },
				"AdvanceTo": func() error { _, err := c.AdvanceTo(context.Background(), "orders", 5); return err },
			} {
				err := call()
				require.ErrorIs(t, err, dynamoseq.ErrTableMismatch, op)
				assert.Contains(t, err.Error(), tt.want, op)
			}
		})
	}
}

func TestNewCounterSortKeyValueInvalid(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	tests := []struct {
		name string
		opt  func(*dynamoseq.CounterOptions)
	}{
		{"empty value", func(o *dynamoseq.CounterOptions) { o.SortKey = "sk" }},
		{"too long", func(o *dynamoseq.CounterOptions) {
			o.SortKeyValue = string(make([]byte, 1025))
		}},
		{"not UTF-8", func(o *dynamoseq.CounterOptions) { o.SortKeyValue = "\xff" }},
		{"sort key is the value attribute", func(o *dynamoseq.CounterOptions) { inSingleTable(o); o.ValueAttribute = "sk" }},
		{"sort key is the partition key", func(o *dynamoseq.CounterOptions) { o.SortKey, o.SortKeyValue = "pk", "COUNTER" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := dynamoseq.NewCounter(client, "seq", tt.opt)
			require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument)
			assert.Nil(t, c)
		})
	}
	c, err := dynamoseq.NewCounter(client, "seq", inSingleTable)
	require.NoError(t, err)
	_, err = dynamoseq.NewIDMinter(c, dynamoseq.Format{Prefix: "T", Separator: "-", DateLayout: "060102", Width: 4}, dynamoseq.Daily,
		func(o *dynamoseq.IDMinterOptions) { o.TTLAttribute = "sk" })
	require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "TTLAttribute is the counter's sort key")
}

// TestIDMinterSortKeyValue mints readable IDs from a Counter in a single
// table, with TTL, and checks the period's counter item.
func TestIDMinterSortKeyValue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := dbtest.Client(t)
	table := dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeS)
	c, err := dynamoseq.NewCounter(client, table, inSingleTable)
	require.NoError(t, err)
	clock := newTestClock(time.Date(2026, 11, 22, 23, 59, 59, 0, time.UTC))
	m, err := dynamoseq.NewIDMinter(c, dynamoseq.Format{Prefix: "ORD", Separator: "-", DateLayout: "060102", Width: 6}, dynamoseq.Daily,
		func(o *dynamoseq.IDMinterOptions) {
			o.Now = clock.Now
			o.TTLAttribute = "expires"
		})
	require.NoError(t, err)
	for _, want := range []string{"ORD-261122-000001", "ORD-261122-000002"} {
		id, err := m.Next(ctx, "orders")
		require.NoError(t, err)
		assert.Equal(t, want, id, "Next()")
	}
	clock.Set(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC))
	id, err := m.Next(ctx, "orders")
	require.NoError(t, err)
	assert.Equal(t, "ORD-261123-000001", id, "Next() after midnight")

	out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true), Key: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "orders#20261122"}, "sk": &types.AttributeValueMemberS{Value: "COUNTER"},
	}})
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "2"}, out.Item["value"], "the period's counter item")
	assert.Contains(t, out.Item, "expires", "the TTL attribute")
}
