package dynamoseqtest_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// noRetries makes a client answer the first refusal, as a test of the
// model's answers needs.
func noRetries(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} }

func sItem(pk string, size int) map[string]types.AttributeValue {
	// "pk" + pk + "v" + the padding: size bytes in all.
	pad := size - 2 - len(pk) - 1
	return map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk},
		"v":  &types.AttributeValueMemberS{Value: strings.Repeat("x", pad)},
	}
}

func sKey(pk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}
}

func putSized(ctx context.Context, c *dynamodb.Client, table, pk string, size int) error {
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: sItem(pk, size)})
	return err
}

// drain puts until the partition's bucket is empty, and returns when the
// first throttle comes.
func drain(t *testing.T, c *dynamodb.Client, table, pk string, size int) {
	t.Helper()
	for range 10000 {
		if err := putSized(context.Background(), c, table, pk, size); err != nil {
			require.True(t, throttled(err), "%v", err)
			return
		}
	}
	t.Fatal("never throttled")
}

func throttled(err error) bool {
	var od *types.ThrottlingException
	var pv *types.ProvisionedThroughputExceededException
	return errors.As(err, &od) || errors.As(err, &pv)
}

// A flood on one partition key value is admitted at the configured rate;
// the rest is refused with the throttling exception of the form asked for,
// which the SDK decodes into its typed error, and counted.
func TestModelFloodThrottledAtRate(t *testing.T) {
	t.Parallel()
	for _, form := range []dynamoseqtest.ThrottleForm{dynamoseqtest.ThrottleOnDemand, dynamoseqtest.ThrottleProvisioned} {
		t.Run(form.String(), func(t *testing.T) {
			t.Parallel()
			const rate = 100 // write units a second
			srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{WriteUnits: rate, Throttle: form, Seed: 1}))
			table := srv.NewTable(t, table())
			c := srv.Client(noRetries)
			drain(t, c, table, "hot", 8000)
			before := srv.ModelStats().Operations["PutItem"]
			start := time.Now()
			var wg sync.WaitGroup
			var mu sync.Mutex
			var firstErr error
			for range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for time.Since(start) < 2*time.Second {
						err := putSized(context.Background(), c, table, "hot", 2000) // 2 units
						if err != nil && !throttled(err) {
							mu.Lock()
							firstErr = err
							mu.Unlock()
							return
						}
					}
				}()
			}
			wg.Wait()
			require.NoError(t, firstErr)
			elapsed := time.Since(start).Seconds()
			after := srv.ModelStats().Operations["PutItem"]
			got := (after.WriteUnits - before.WriteUnits) / elapsed
			t.Logf("%s: %.0f write units/s admitted of %d configured; %d requests, %d throttled",
				form, got, rate, after.Requests-before.Requests, after.Throttled-before.Throttled)
			require.InDelta(t, rate, got, rate*0.1)
			require.Greater(t, after.Throttled-before.Throttled, int64(0))
			p := srv.ModelStats().Partitions[dynamoseqtest.Partition{Table: table, Key: "S:hot"}]
			require.Equal(t, after.Throttled, p.Throttled, "a single-item request's throttle is its partition's")
		})
	}
}

// The typed errors of both forms carry the reason and the table, and the
// SDK's standard retryer sends a throttled request again (as from the
// service) but not a cancelled transaction.
func TestModelThrottleAnswers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		form   dynamoseqtest.ThrottleForm
		code   string
		reason func(error) []types.ThrottlingReason
	}{
		{dynamoseqtest.ThrottleOnDemand, "ThrottlingError", func(err error) []types.ThrottlingReason {
			var e *types.ThrottlingException
			if !errors.As(err, &e) {
				return nil
			}
			return e.ThrottlingReasons
		}},
		{dynamoseqtest.ThrottleProvisioned, "ProvisionedThroughputExceeded", func(err error) []types.ThrottlingReason {
			var e *types.ProvisionedThroughputExceededException
			if !errors.As(err, &e) {
				return nil
			}
			return e.ThrottlingReasons
		}},
	}
	for _, tc := range cases {
		t.Run(tc.form.String(), func(t *testing.T) {
			t.Parallel()
			srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{WriteUnits: 2, Throttle: tc.form}))
			table := srv.NewTable(t, table())
			c := srv.Client(noRetries)
			drain(t, c, table, "hot", 100)

			err := putSized(context.Background(), c, table, "hot", 100)
			reasons := tc.reason(err)
			require.Len(t, reasons, 1, "%v", err)
			require.Equal(t, "TableWriteKeyRangeThroughputExceeded", aws.ToString(reasons[0].Reason))
			require.True(t, strings.HasSuffix(aws.ToString(reasons[0].Resource), ":table/"+table), aws.ToString(reasons[0].Resource))

			// A transaction with an item on the hot key and one elsewhere.
			_, err = c.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String(table), Item: sItem("cold", 100)}},
				{Put: &types.Put{TableName: aws.String(table), Item: sItem("hot", 100)}},
			}})
			var cancelled *types.TransactionCanceledException
			require.ErrorAs(t, err, &cancelled)
			require.Equal(t, []string{"None", tc.code}, codes(cancelled))

			// The SDK's retryer: a throttle is sent again, a cancelled
			// transaction is not.
			retrying := srv.Client(dynamoseqtest.FastRetries())
			before := srv.ModelStats().Total().Requests
			err = putSized(context.Background(), retrying, table, "hot", 100)
			require.True(t, throttled(err), "%v", err)
			require.Equal(t, int64(3), srv.ModelStats().Total().Requests-before, "3 attempts")
			before = srv.ModelStats().Total().Requests
			_, err = retrying.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String(table), Item: sItem("hot", 100)}},
			}})
			require.ErrorAs(t, err, &cancelled)
			require.Equal(t, int64(1), srv.ModelStats().Total().Requests-before, "1 attempt")

			tx := srv.ModelStats().Operations["TransactWriteItems"]
			require.Equal(t, int64(2), tx.ThrottledCancellations)
			require.Equal(t, int64(2), tx.Cancellations)
			require.Zero(t, tx.WriteUnits, "a throttled transaction costs nothing")
		})
	}
}

func codes(e *types.TransactionCanceledException) []string {
	var cs []string
	for _, r := range e.CancellationReasons {
		cs = append(cs, aws.ToString(r.Code))
	}
	return cs
}

// While a transaction is in flight, its items are held: a second
// transaction on one of them is cancelled with TransactionConflict at that
// index, a PutItem gets TransactionConflictException, a GetItem is served.
// Once it has answered, the items are free again.
func TestModelTransactionConflicts(t *testing.T) {
	t.Parallel()
	slow := dynamoseqtest.Latency{P50: 600 * time.Millisecond, P99: 600 * time.Millisecond}
	srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{Latency: dynamoseqtest.Latencies{Transact: slow}}))
	table := srv.NewTable(t, table())
	c := srv.Client(noRetries)
	ctx := context.Background()
	put := func(pk string) types.TransactWriteItem {
		return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: sItem(pk, 100)}}
	}

	first := make(chan error, 1)
	sent := time.Now()
	go func() {
		_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{put("x"), put("y")}})
		first <- err
	}()
	time.Sleep(150 * time.Millisecond)

	_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{put("z"), put("y")}})
	var cancelled *types.TransactionCanceledException
	require.ErrorAs(t, err, &cancelled)
	require.Equal(t, []string{"None", "TransactionConflict"}, codes(cancelled))

	err = putSized(ctx, c, table, "x", 100)
	var conflict *types.TransactionConflictException
	require.ErrorAs(t, err, &conflict)

	_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: sKey("x")})
	require.NoError(t, err, "a GetItem does not conflict")
	require.Less(t, time.Since(sent), 550*time.Millisecond, "the checks ran while the first transaction was in flight")

	require.NoError(t, <-first)
	require.GreaterOrEqual(t, time.Since(sent), 600*time.Millisecond, "answered after its latency")
	require.NoError(t, putSized(ctx, c, table, "x", 100), "free once answered")

	s := srv.ModelStats()
	require.Equal(t, int64(1), s.Operations["TransactWriteItems"].ConflictCancellations)
	require.Equal(t, int64(1), s.Operations["PutItem"].Conflicts)
	require.Equal(t, int64(1), s.Partitions[dynamoseqtest.Partition{Table: table, Key: "S:y"}].Conflicts)
	require.Equal(t, int64(1), s.Partitions[dynamoseqtest.Partition{Table: table, Key: "S:x"}].Conflicts)
}
