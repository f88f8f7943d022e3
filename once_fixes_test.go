package dynamoseq_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
)

// TestOnceKindsApart: a Counter and a Latest (partition key layout) that
// share a table and a name keep their keys apart: the Counter's first call
// with a key the Latest used is a new call, not a replay of the Latest's
// version.
func TestOnceKindsApart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, client, table := newCounter(t)
	l, err := dynamoseq.NewLatest(client, table, func(o *dynamoseq.LatestOptions) {
		o.Layout = dynamoseq.LayoutPartitionKey{}
	})
	require.NoError(t, err)
	v, replayed, err := l.AppendOnce(ctx, "orders", "K2", nil)
	require.NoError(t, err)
	assert.Equal(t, int64(1), v, "the Latest's first version")
	assert.False(t, replayed)

	n, replayed, err := c.NextOnce(ctx, "orders", "K2")
	require.NoError(t, err)
	assert.False(t, replayed, "the Counter's first call with the key is no replay of the Latest's (got number %d)", n)
	n2, replayed, err := c.NextOnce(ctx, "orders", "K2")
	require.NoError(t, err)
	assert.True(t, replayed, "the Counter's second call with the key replays its first")
	assert.Equal(t, n, n2, "the replay names the Counter's first number")

	v, replayed, err = l.AppendOnce(ctx, "orders", "K2", nil)
	require.NoError(t, err)
	assert.Equal(t, int64(1), v, "the Latest's replay")
	assert.True(t, replayed, "the Latest's second call with the key replays its first")
}
