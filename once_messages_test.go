package dynamoseq_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/answer"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// TestOnceMessages: a KeyPrefix holding the byte 0x1f is refused; an
// error about a long key keeps to about 200 characters; a Latest's
// transaction that fails on a key item names the key item.
func TestOnceMessages(t *testing.T) {
	t.Parallel()
	_, err := dynamoseq.NewCounter(dbtest.Client(t), "table", func(o *dynamoseq.CounterOptions) { o.KeyPrefix = "a\x1f" })
	assert.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "a KeyPrefix holding 0x1f")

	ctx := context.Background()
	s, _, table := newSortKey(t)
	key := strings.Repeat("k", 1500)
	_, _, err = s.AppendOnce(ctx, "inv", key, body("a"))
	require.NoError(t, err)
	_, _, err = s.AppendOnce(ctx, "inv", key, body("b"))
	require.ErrorIs(t, err, dynamoseq.ErrKeyReused)
	assert.LessOrEqual(t, len(err.Error()), 200+len(table), "the message of ErrKeyReused for a 1500-byte key: %s", err)

	l, err := dynamoseq.NewLatest(answering(func(r *http.Request) (*http.Response, error) {
		return answer.JSON(400, `{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","message":"cancelled",`+
			`"CancellationReasons":[{"Code":"None"},{"Code":"None"},{"Code":"ItemCollectionSizeLimitExceeded"}]}`)(r)
	}), "table", func(o *dynamoseq.LatestOptions) { quick(&o.Retry) })
	require.NoError(t, err)
	_, _, err = l.AppendOnce(ctx, "doc", "k", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "key item 1", "a reason at the key item's place")
	assert.NotContains(t, err.Error(), "version item 2", "a reason at the key item's place")
}
