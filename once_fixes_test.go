package dynamoseq_test

import (
	"context"
	"fmt"
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

// TestOnceExhaustedReplays: a keyed call whose sequence is full replays
// the key's first call, which the refusal of the sequence hid: the call
// reads the key item when its write failed before the key was consulted.
// Other content is still ErrKeyReused, and a new key ErrExhausted.
func TestOnceExhaustedReplays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newSortKey(t, func(o *dynamoseq.SortKeyOptions) { o.MaxValue = 2 })
	for i, key := range []string{"k1", "k2"} {
		n, _, err := s.AppendOnce(ctx, "inv", key, body(key))
		require.NoError(t, err)
		assert.Equal(t, int64(i+1), n, "key %s", key)
	}
	n, replayed, err := s.AppendOnce(ctx, "inv", "k2", body("k2"))
	require.NoError(t, err, "a replay of the last number of a full SortKey")
	assert.Equal(t, int64(2), n, "the replay's number")
	assert.True(t, replayed, "a replay of the last number of a full SortKey")
	_, _, err = s.AppendOnce(ctx, "inv", "k2", body("other"))
	assert.ErrorIs(t, err, dynamoseq.ErrKeyReused, "the key with other content")
	_, _, err = s.AppendOnce(ctx, "inv", "k3", body("k3"))
	assert.ErrorIs(t, err, dynamoseq.ErrExhausted, "a new key on a full SortKey")

	c, _, _ := newCounter(t, func(o *dynamoseq.CounterOptions) { o.MaxValue = 1 })
	n, _, err = c.NextOnce(ctx, "orders", "k1")
	require.NoError(t, err)
	assert.Equal(t, int64(1), n)
	n, replayed, err = c.NextOnce(ctx, "orders", "k1")
	require.NoError(t, err, "a replay of the last number of a full Counter")
	assert.Equal(t, int64(1), n, "the replay's number")
	assert.True(t, replayed, "a replay of the last number of a full Counter")
	_, _, err = c.NextOnce(ctx, "orders", "k2")
	assert.ErrorIs(t, err, dynamoseq.ErrExhausted, "a new key on a full Counter")
}

// TestOnceExhaustedReplaysLatest: as TestOnceExhaustedReplays, for a Latest
// whose String sort key of one digit holds versions up to 9: the key of
// version 9 replays it, other content is ErrKeyReused, a new key
// ErrExhausted.
func TestOnceExhaustedReplaysLatest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l, _, _ := newLatest(t, latestLayouts[1], nil, func(o *dynamoseq.LatestOptions) {
		o.Layout = dynamoseq.LayoutSortKey{SortKeyDigits: 1}
	})
	for v := int64(1); v <= 9; v++ {
		key := fmt.Sprintf("k%d", v)
		got, _, err := l.AppendOnce(ctx, "doc", key, body(key))
		require.NoError(t, err, "version %d of 9", v)
		require.Equal(t, v, got, "the version of key %s", key)
	}
	v, replayed, err := l.AppendOnce(ctx, "doc", "k9", body("k9"))
	require.NoError(t, err, "a replay of the last version of a full Latest")
	assert.Equal(t, int64(9), v, "the replay's version")
	assert.True(t, replayed, "a replay of the last version of a full Latest")
	_, _, err = l.AppendOnce(ctx, "doc", "k9", body("other"))
	assert.ErrorIs(t, err, dynamoseq.ErrKeyReused, "the key with other content")
	_, _, err = l.AppendOnce(ctx, "doc", "k10", body("k10"))
	assert.ErrorIs(t, err, dynamoseq.ErrExhausted, "a new key on a full Latest")
}
