package dynamoseq_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// putConflicts refuses the PutItems of a Counter's key items as an MRSC
// table does when another Region writes the item at the same moment, and
// lets its UpdateItems through.
type putConflicts struct {
	dynamoseq.Client
	mrsc *mrscClient
}

func (c putConflicts) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return c.mrsc.PutItem(ctx, in, optFns...)
}

// TestOnceMRSCConflict: Counter.NextOnce on an MRSC table resends the key
// item's write after a replicated write conflict, as it does its
// UpdateItem, and a conflict left after MaxAttempts is ErrContention.
func TestOnceMRSCConflict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := dbtest.Client(t)
	table := dbtest.CounterTable(t, client)
	every2 := &mrscClient{Client: client, conflictEvery: 2}
	c, err := dynamoseq.NewCounter(putConflicts{Client: client, mrsc: every2}, table, mrscOptions)
	require.NoError(t, err)
	for i := range 3 {
		n, replayed, err := c.NextOnce(ctx, "orders", "k1")
		require.NoError(t, err, "call %d with every other key write refused by a conflict", i+1)
		assert.Equal(t, int64(1), n, "call %d", i+1)
		assert.Equal(t, i > 0, replayed, "call %d", i+1)
	}
	assert.Positive(t, every2.conflicts.Load(), "conflicts answered")

	always := &mrscClient{Client: client, conflictEvery: 1}
	c, err = dynamoseq.NewCounter(putConflicts{Client: client, mrsc: always}, table, mrscOptions, func(o *dynamoseq.CounterOptions) { o.MaxAttempts = 3 })
	require.NoError(t, err)
	_, _, err = c.NextOnce(ctx, "orders", "k2")
	require.ErrorIs(t, err, dynamoseq.ErrContention, "every key write refused")
	assert.Equal(t, int64(3), always.conflicts.Load(), "the key item's write sent MaxAttempts times")
}
