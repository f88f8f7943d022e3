package dynamoseqtest_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

func TestMain(m *testing.M) { dynamoseqtest.Main(m) }

func table() *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName:            aws.String("items"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	}
}

func put(ctx context.Context, c *dynamodb.Client, tableName, pk string) error {
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(tableName),
		Item:      map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}},
	})
	return err
}

func exists(t *testing.T, c *dynamodb.Client, tableName, pk string) bool {
	t.Helper()
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName:      aws.String(tableName),
		Key:            map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}},
		ConsistentRead: aws.Bool(true),
	})
	require.NoError(t, err)
	return out.Item != nil
}

func TestStartAndNewTable(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t)
	require.Same(t, srv, dynamoseqtest.Start(t), "one shared server per test binary")
	in := table()
	a, b := srv.NewTable(t, in), srv.NewTable(t, in)
	require.NotEqual(t, a, b, "each table has a name of its own")
	require.Equal(t, "items", aws.ToString(in.TableName), "NewTable must not change its input")
	require.NoError(t, put(context.Background(), srv.Client(), a, "x"))
	require.True(t, exists(t, srv.Client(), a, "x"), "item x is not in table a, where it was put")
	require.False(t, exists(t, srv.Client(), b, "x"), "item x, put in table a, is in table b too")
}

// A lost answer is resent by the SDK: the transport counts the resend, and
// the write was applied although the caller got an error.
// TestSharedTable creates tables without a testing.TB, as an Example does.
func TestSharedTable(t *testing.T) {
	t.Parallel()
	in := table()
	client, a := dynamoseqtest.SharedTable(in)
	_, b := dynamoseqtest.SharedTable(in)
	require.NotEqual(t, a, b, "each table has a name of its own")
	require.Contains(t, a, "items_", "the name's stem")
	require.Equal(t, "items", aws.ToString(in.TableName), "SharedTable must not change its input")
	require.NoError(t, put(context.Background(), client, a, "x"))
	require.True(t, exists(t, client, a, "x"), "item x is not in table a, where it was put")
	require.False(t, exists(t, client, b, "x"), "item x, put in table a, is in table b too")
	require.Panics(t, func() { dynamoseqtest.SharedTable(&dynamodb.CreateTableInput{TableName: aws.String("no key schema")}) },
		"a table DynamoDB refuses")
}

func TestFaultTransportLosesAnswers(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t)
	name := srv.NewTable(t, table())
	ft := dynamoseqtest.NewFaultTransport(dynamoseqtest.Faults{LoseAnswers: 1})
	client := srv.Client(dynamoseqtest.WithTransport(ft), dbtest.FastRetries())

	err := put(context.Background(), client, name, "lost")
	var maxAttempts *retry.MaxAttemptsError
	require.ErrorAs(t, err, &maxAttempts, "every answer was lost, so the SDK gives up after its attempts")
	require.True(t, exists(t, srv.Client(), name, "lost"), "the write was applied")
	c := ft.Counts()
	require.Equal(t, dynamoseqtest.FaultCounts{Requests: 3, Forwarded: 3, LostAnswers: 3}, c)

	// Reads are left alone.
	_, err = client.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String(name),
		Key:       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "lost"}},
	})
	require.NoError(t, err)
}

func TestFaultTransportShare(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t)
	name := srv.NewTable(t, table())
	ft := dynamoseqtest.NewFaultTransport(dynamoseqtest.Faults{LoseAnswers: 0.3, Seed: 7})
	client := srv.Client(dynamoseqtest.WithTransport(ft), dbtest.FastRetries())
	failed := 0
	for i := range 100 {
		if put(context.Background(), client, name, strconv.Itoa(i)) != nil {
			failed++
		}
	}
	c := ft.Counts()
	t.Logf("100 puts: %+v, %d failed after the SDK's retries", c, failed)
	require.Equal(t, c.Requests, int64(100)+c.LostAnswers-int64(failed), "each lost answer but the last of a failed put was resent")
	require.InDelta(t, 0.3, float64(c.LostAnswers)/float64(c.Requests), 0.12)
}

func TestFaultTransportStalls(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t)
	name := srv.NewTable(t, table())
	ft := dynamoseqtest.NewFaultTransport(dynamoseqtest.Faults{StallAnswers: 1})
	client := srv.Client(dynamoseqtest.WithTransport(ft), dbtest.FastRetries())
	// A first write through a plain client, so that the timed one is not
	// slowed by a cold table; and a deadline that a loaded machine meets.
	require.NoError(t, put(context.Background(), srv.Client(), name, "warm"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := put(ctx, client, name, "late")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.True(t, exists(t, srv.Client(), name, "late"), "the write was applied before the deadline passed")
	require.Equal(t, int64(1), ft.Counts().Stalled)
}

func TestFaultTransportUnreachable(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t)
	name := srv.NewTable(t, table())
	ft := dynamoseqtest.NewFaultTransport(dynamoseqtest.Faults{})
	client := srv.Client(dynamoseqtest.WithTransport(ft), dbtest.FastRetries())
	ft.SetUnreachable(true)
	err := put(context.Background(), client, name, "never")
	require.Error(t, err)
	require.False(t, exists(t, srv.Client(), name, "never"), "an item put while unreachable was stored")
	require.Equal(t, dynamoseqtest.FaultCounts{Requests: 3, Refused: 3}, ft.Counts())
	ft.SetUnreachable(false)
	require.NoError(t, put(context.Background(), client, name, "now"))
}

// A server on disk keeps its data across a crash and a restart on the same
// port.
func TestKillRestart(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t, dynamoseqtest.WithDBPath(t.TempDir()))
	name := srv.NewTable(t, table())
	client := srv.Client(dbtest.FastRetries())
	require.NoError(t, put(context.Background(), client, name, "kept"))
	endpoint := srv.Endpoint()
	srv.Kill(t)
	err := put(context.Background(), client, name, "down")
	require.Error(t, err, "a killed server refuses")
	var opErr interface{ Timeout() bool }
	require.False(t, errors.As(err, &opErr) && opErr.Timeout(), "refused at once, not timed out: %v", err)
	srv.Restart(t)
	require.Equal(t, endpoint, srv.Endpoint())
	require.True(t, exists(t, client, name, "kept"), "the item put before the crash is gone after the restart")
	require.False(t, exists(t, client, name, "down"), "an item put while the server was down was stored")
}
