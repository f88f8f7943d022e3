package dynamoseq_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/answer"
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

// TestIDMinterOnceUnknownOutcome: when the key item's write of an
// IDMinter.NextOnce has an unknown outcome, the call returns the ID its
// number took with ErrUnknownOutcome, as SortKeyIDMinter.AppendOnce does
// (it returned "").
func TestIDMinterOnceUnknownOutcome(t *testing.T) {
	t.Parallel()
	client := answering(func(r *http.Request) (*http.Response, error) {
		if strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".UpdateItem") {
			return answer.JSON(200, `{"Attributes":{"value":{"N":"12"}}}`)(r)
		}
		return answer.Reset(r) // the key item's PutItem: its answer is lost
	})
	c, err := dynamoseq.NewCounter(client, "table", func(o *dynamoseq.CounterOptions) { quick(&o.Retry) })
	require.NoError(t, err)
	day := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	m, err := dynamoseq.NewIDMinter(c, dynamoseq.Format{Prefix: "ORD", Separator: "-", DateLayout: "060102", Width: 6}, dynamoseq.Daily,
		func(o *dynamoseq.IDMinterOptions) { o.Now = func() time.Time { return day } })
	require.NoError(t, err)
	id, replayed, err := m.NextOnce(context.Background(), "orders", "k")
	require.ErrorIs(t, err, dynamoseq.ErrUnknownOutcome)
	assert.Equal(t, "ORD-261127-000012", id, "the ID that comes with ErrUnknownOutcome")
	assert.False(t, replayed)
}
