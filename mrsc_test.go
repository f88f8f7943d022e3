package dynamoseq_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/dbtest"
)

// mrscClient is the client of one Region of a simulated multi-Region
// strongly consistent (MRSC) global table. All Regions share one DynamoDB
// Local, which makes every write visible to every Region at once, as MRSC
// does. It refuses TransactWriteItems, which MRSC tables do not support, and
// refuses every conflictEvery-th single-item write attempt with
// ReplicatedWriteConflictException, as MRSC does when another Region writes
// the same item at the same moment (nothing is written). The refusal comes
// from inside the SDK's middleware stack, right where the request would go
// out, so the caller sees it as it sees DynamoDB's answer (the SDK does not
// retry it). conflictEvery 0 refuses none.
type mrscClient struct {
	dynamoseq.Client
	conflictEvery int64
	writes        atomic.Int64
	conflicts     atomic.Int64
}

// conflict reports whether this write is refused, and counts it.
func (c *mrscClient) conflict() error {
	if n := c.writes.Add(1); c.conflictEvery > 0 && n%c.conflictEvery == 0 {
		c.conflicts.Add(1)
		return &types.ReplicatedWriteConflictException{Message: aws.String("simulated: the item is being modified by a request in another Region")}
	}
	return nil
}

// refuse adds the conflicts to one call's middleware stack, last before
// the HTTP transport.
func (c *mrscClient) refuse(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Deserialize.Add(middleware.DeserializeMiddlewareFunc("mrsc.conflict",
			func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
				if err := c.conflict(); err != nil {
					return middleware.DeserializeOutput{}, middleware.Metadata{}, err
				}
				return next.HandleDeserialize(ctx, in)
			}), middleware.After)
	})
}

func (c *mrscClient) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return c.Client.PutItem(ctx, in, append(optFns, c.refuse)...)
}

func (c *mrscClient) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return c.Client.UpdateItem(ctx, in, append(optFns, c.refuse)...)
}

// TransactWriteItems fails as on an MRSC table. The exact error DynamoDB
// returns there is not documented in what we could find; a
// ValidationException is the likely shape.
func (c *mrscClient) TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return nil, &smithy.GenericAPIError{Code: "ValidationException", Message: "simulated: transactions are not supported on multi-Region strongly consistent tables"}
}

// mrscRegions returns one mrscClient per Region over the test server.
func mrscRegions(t *testing.T, conflictEvery int64) ([]*mrscClient, string) {
	t.Helper()
	client := dbtest.Client(t)
	table := dbtest.CounterTable(t, client)
	regions := make([]*mrscClient, 3) // MRSC tables span three Regions
	for i := range regions {
		regions[i] = &mrscClient{Client: client, conflictEvery: conflictEvery}
	}
	return regions, table
}

func mrscOptions(o *dynamoseq.Options) {
	o.GlobalTable = dynamoseq.GlobalTableMRSC
	o.BaseDelay, o.MaxDelay = time.Millisecond, 5*time.Millisecond
}

// TestMRSCCounter: a Counter (and a Block over it) on an MRSC table, from 3
// Regions x 4 goroutines, with one write in five refused by a replicated
// write conflict: the Counter resends those, and hands out 1..N exactly.
func TestMRSCCounter(t *testing.T) {
	t.Parallel()
	regions, table := mrscRegions(t, 5)
	counters := make([]*dynamoseq.Counter, len(regions))
	blocks := make([]*dynamoseq.Block, len(regions))
	for i, r := range regions {
		c, err := dynamoseq.NewCounter(r, table, mrscOptions)
		require.NoError(t, err)
		b, err := dynamoseq.NewBlock(c, 7)
		require.NoError(t, err)
		t.Cleanup(func() { _ = b.Close() })
		counters[i], blocks[i] = c, b
	}
	const goroutines, each = 4, 25
	got := flatten(mintInRegions(t, len(regions), goroutines, each, func(r, _ int) (int64, error) {
		return counters[r].Next(context.Background(), "orders")
	}))
	requireExactly(t, got, 1, int64(len(regions)*goroutines*each))
	got = flatten(mintInRegions(t, len(regions), goroutines, each, func(r, _ int) (int64, error) {
		return blocks[r].Next(context.Background(), "events")
	}))
	require.Len(t, got, len(regions)*goroutines*each)
	require.Empty(t, repeated(got), "Block numbers handed out twice")
	var conflicts int64
	for _, r := range regions {
		conflicts += r.conflicts.Load()
	}
	assert.Positive(t, conflicts, "no write met a conflict: the test tested nothing")
}

// TestMRSCCounterConflictsExhausted: a write refused MaxAttempts times in a
// row gives ErrContention, naming the table and the sequence.
func TestMRSCCounterConflictsExhausted(t *testing.T) {
	t.Parallel()
	regions, table := mrscRegions(t, 1) // every write conflicts
	c, err := dynamoseq.NewCounter(regions[0], table, mrscOptions, func(o *dynamoseq.Options) { o.MaxAttempts = 3 })
	require.NoError(t, err)
	_, err = c.Next(context.Background(), "orders")
	require.ErrorIs(t, err, dynamoseq.ErrContention)
	var conflict *types.ReplicatedWriteConflictException
	require.ErrorAs(t, err, &conflict)
	assert.Contains(t, err.Error(), `sequence "orders"`)
	assert.Equal(t, int64(3), regions[0].conflicts.Load(), "attempts")
}
