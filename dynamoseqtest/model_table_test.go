package dynamoseqtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// A table's own ceiling is shared by all its partition key values: four
// keys, each allowed 1,000 write units a second, together get the table's
// 200, and the throttles carry the table's reason of the form.
func TestModelTableCeiling(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		form   dynamoseqtest.ThrottleForm
		reason string
	}{
		{dynamoseqtest.ThrottleOnDemand, "TableWriteMaxOnDemandThroughputExceeded"},
		{dynamoseqtest.ThrottleProvisioned, "TableWriteProvisionedThroughputExceeded"},
	} {
		t.Run(string(tc.form), func(t *testing.T) {
			t.Parallel()
			const ceiling = 200
			r := newRig(t, dynamoseqtest.Service{TableWriteUnits: ceiling, Burst: 100 * time.Millisecond, Throttle: tc.form}, nil)
			keys := []string{"a", "b", "c", "d"}
			_, err := r.flood(1000, keys...)
			require.Equal(t, tc.reason, reason(err), "the reason of a throttle at the table's ceiling")
			got := r.run(2*time.Second, 50*time.Millisecond, keys...)
			require.InDelta(t, 2*ceiling, got, 2, "write units admitted in 2s on 4 keys under a table ceiling of %d a second", ceiling)
			s := r.srv.ModelStats()
			require.Equal(t, s.Operation("PutItem").Throttled, s.Operation("PutItem").TableThrottled, "every throttle was the table's")
		})
	}
}

// Reads have a table ceiling of their own, with a Read reason; a
// partition's own limit keeps its KeyRange reason under a table ceiling.
func TestModelTableCeilingReads(t *testing.T) {
	t.Parallel()
	r := newRig(t, dynamoseqtest.Service{TableReadUnits: 10, WriteUnits: 5, TableWriteUnits: 1000, Throttle: dynamoseqtest.ThrottleOnDemand}, nil)
	_, err := r.flood(1000, "a")
	require.Equal(t, "TableWriteKeyRangeThroughputExceeded", reason(err), "a partition's throttle under a table ceiling it does not reach")
	for range 100 {
		_, err = r.c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(r.table), Key: sKey("a"), ConsistentRead: aws.Bool(true)})
		if err != nil {
			break
		}
	}
	require.Equal(t, "TableReadMaxOnDemandThroughputExceeded", reason(err), "a read over the table's read ceiling; error %v", err)
	var od *types.ThrottlingException
	require.ErrorAs(t, err, &od)
}
