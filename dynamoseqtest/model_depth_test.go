package dynamoseqtest_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// skTable is a table keyed by a String "pk" and a Number "sk": an item
// collection per partition key value.
func skTable() *dynamodb.CreateTableInput {
	def := table()
	def.AttributeDefinitions = append(def.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN})
	def.KeySchema = append(def.KeySchema, types.KeySchemaElement{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange})
	return def
}

// skItem is an item of about 500 bytes (1 write unit) under pk at sk.
func skItem(pk string, sk int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk},
		"sk": &types.AttributeValueMemberN{Value: strconv.Itoa(sk)},
		"v":  &types.AttributeValueMemberS{Value: strings.Repeat("x", 480)},
	}
}

// cancelledFor says whether err is a transaction cancelled with code at
// one of its items at least.
func cancelledFor(err error, code string) bool {
	var tc *types.TransactionCanceledException
	if !errors.As(err, &tc) {
		return false
	}
	for _, r := range tc.CancellationReasons {
		if aws.ToString(r.Code) == code {
			return true
		}
	}
	return false
}

// floodBatches sends transactions of n items of 1 write unit under the
// partition key "hot" (2n units each) until one is cancelled for
// capacity, and returns the write units admitted.
func (r *rig) floodBatches(n int, sk *int) float64 {
	r.t.Helper()
	before := r.srv.ModelStats().WriteUnits
	for range 10000 {
		items := make([]types.TransactWriteItem, n)
		for i := range items {
			*sk++
			items[i] = types.TransactWriteItem{Put: &types.Put{TableName: aws.String(r.table), Item: skItem("hot", *sk)}}
		}
		_, err := r.c.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: items})
		if err == nil {
			continue
		}
		require.True(r.t, cancelledFor(err, "ThrottlingError"), "a batch of the flood: got %v, want stored or cancelled for capacity", err)
		break
	}
	return r.srv.ModelStats().WriteUnits - before
}

// Buckets from 20ms to 5s deep admit a partition's rate, also to batches
// larger than the bucket (32 units, where a 20ms bucket of 200 units a
// second holds 4): such a batch passes when the bucket is full, and takes
// the bucket into debt, so that the rate over time is the rate.
func TestModelBucketDepths(t *testing.T) {
	t.Parallel()
	for _, depth := range []time.Duration{20 * time.Millisecond, 100 * time.Millisecond, time.Second, 5 * time.Second} {
		t.Run(depth.String(), func(t *testing.T) {
			t.Parallel()
			const rate, batch = 200, 16 // 32 write units a batch
			r := newRig(t, dynamoseqtest.Service{WriteUnits: rate, Burst: depth, Throttle: dynamoseqtest.ThrottleOnDemand}, skTable())
			var sk int
			full := r.floodBatches(batch, &sk)
			require.InDelta(t, max(rate*depth.Seconds(), 2*batch), full, 2*batch,
				"units admitted from a full bucket of %v: its depth, or one batch larger than it", depth)
			var got float64
			const step, window = 20 * time.Millisecond, 3 * time.Second
			for range window / step {
				r.clock.Advance(step)
				got += r.floodBatches(batch, &sk)
			}
			t.Logf("bucket %v: %.0f write units admitted in %v at %d a second", depth, got, window, rate)
			require.InDelta(t, rate*window.Seconds(), got, 2*batch+1,
				"write units admitted over %v to batches of %d units with a bucket of %v", window, 2*batch, depth)
		})
	}
}
