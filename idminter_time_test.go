package dynamoseq_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// TestIDMinterTimeAttribute: with TimeAttribute, each item stored carries
// the instant that dated its ID, and an AppendOnce retried a second later
// (across New Year) replays the first call instead of reading as other
// content; NewIDMinter and an item setting the attribute are refused.
func TestIDMinterTimeAttribute(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var mu sync.Mutex
	now := time.Date(2026, 12, 31, 23, 59, 59, 500, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	client := dbtest.Client(t)
	s, err := dynamoseq.NewSortKey(client, dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN))
	require.NoError(t, err)
	m, err := dynamoseq.NewSortKeyIDMinter(s, yearly, dynamoseq.Yearly, func(o *dynamoseq.IDMinterOptions) {
		o.Now, o.TimeAttribute = clock, "created_at"
	})
	require.NoError(t, err)

	first, replayed, err := m.AppendOnce(ctx, "acme", "k1", body("invoice"))
	require.NoError(t, err)
	require.False(t, replayed)
	mu.Lock()
	now = now.Add(time.Second) // 2027 now
	mu.Unlock()
	again, replayed, err := m.AppendOnce(ctx, "acme", "k1", body("invoice"))
	require.NoError(t, err, "the same request a second later: want a replay, not ErrKeyReused")
	assert.True(t, replayed, "the retry's replayed")
	assert.Equal(t, first, again, "the retry's ID")

	var got struct {
		Body      string `dynamodbav:"body"`
		CreatedAt string `dynamodbav:"created_at"`
	}
	require.NoError(t, m.Get(ctx, "acme", first, &got))
	assert.Equal(t, "2026-12-31T23:59:59.0000005Z", got.CreatedAt, "created_at of %s", first)

	id, err := m.AppendAt(ctx, "acme", time.Date(2027, 3, 1, 8, 0, 0, 0, time.UTC), nil)
	require.NoError(t, err)
	require.NoError(t, m.Get(ctx, "acme", id, &got))
	assert.Equal(t, "2027-03-01T08:00:00Z", got.CreatedAt, "created_at of %s, appended at 2027-03-01 08:00", id)

	_, err = m.Append(ctx, "acme", map[string]types.AttributeValue{"created_at": &types.AttributeValueMemberS{Value: "x"}})
	assert.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "an item that sets TimeAttribute itself")

	c, err := dynamoseq.NewCounter(client, dbtest.CounterTable(t, client))
	require.NoError(t, err)
	_, err = dynamoseq.NewIDMinter(c, yearly, dynamoseq.Yearly, func(o *dynamoseq.IDMinterOptions) { o.TimeAttribute = "created_at" })
	var oe *dynamoseq.OptionError
	require.ErrorAs(t, err, &oe, "NewIDMinter with TimeAttribute")
	assert.Equal(t, "TimeAttribute", oe.Field)
	_, err = dynamoseq.NewSortKeyIDMinter(s, yearly, dynamoseq.Yearly, func(o *dynamoseq.IDMinterOptions) { o.TimeAttribute = "sk" })
	require.ErrorAs(t, err, &oe, "TimeAttribute naming the SortKey's sort key")
}
