package dynamoseq_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// The tests of this file check that a hot name's writes follow what the
// partition admits, not a constant of one model: the depth of its bucket
// (Service.Burst), which DynamoDB does not publish, may hold less than a
// batch of 16 items (32 write units), which is then admitted only when
// the bucket is full (see engine.Capacity).
//
// The partitions are small (depthUnits a second), so that the partition,
// not a busy machine, sets the pace: a batch every second, many round
// trips (on a machine loaded 30 times over its 2 cores, DynamoDB Local
// took up to a second for a transaction of 16 items). The share is the units charged on the hot partition, less the
// bucket that was full at the start, over what its rate gave while the
// callers called; the done-when of issue 26 asks 0.85, and the test asks
// minDepthShare, a margin for a loaded machine.

// depthUnits is the partition's write units a second in these tests.
const depthUnits = 30

// minDepthShare is the least share of the partition's rate a case must
// use.
const minDepthShare = 0.7

// TestModelBucketDepths: SortKey and Latest, 16 goroutines on one hot name
// whose bucket holds 0.02, 0.1 or 1 s of its rate, in either form of
// throttling: no caller gets an error, the guarantees hold, and the name
// uses at least minDepthShare of the partition's rate.
func TestModelBucketDepths(t *testing.T) {
	t.Parallel()
	for _, form := range throttleForms {
		for _, strategy := range []string{"SortKey", "Latest"} {
			for _, burst := range []time.Duration{20 * time.Millisecond, 100 * time.Millisecond, time.Second} {
				t.Run(fmt.Sprintf("%s/%s/%v", form.name, strategy, burst), func(t *testing.T) {
					t.Parallel()
					svc := dynamoseqtest.Service{WriteUnits: depthUnits, Burst: burst, Throttle: form.form}
					srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(svc))
					table := srv.NewTable(t, dynamoseq.SortKeyTable("hot"))
					appendFn, stats, _ := modelAppender(t, strategy, srv.Client(), table, false)
					start := time.Now()
					results := appendBodies(appendFn, "hot", "b", 16, 6, 0)
					took := time.Since(start)
					requireNoErrors(t, results)
					checkAppends(t, srv.Client(), table, "hot", results, false)
					hot := srv.ModelStats().Partition(table, "S:hot")
					share := (hot.WriteUnits - depthUnits*burst.Seconds()) / (depthUnits * took.Seconds())
					t.Logf("%d numbers in %v: %.0f write units, %.2f of the partition's rate; %d requests, %d throttled; library: %+v",
						len(results), took.Round(time.Millisecond), hot.WriteUnits, share, hot.Requests, hot.Throttled, stats().Capacity())
					require.Positive(t, hot.Throttled, "the model throttled nothing: the test proves nothing")
					require.GreaterOrEqual(t, share, minDepthShare, "share of the partition's rate used")
				})
			}
		}
	}
}
