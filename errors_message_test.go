package dynamoseq_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// maxMessage is the most characters an *Error's message may take beyond
// the table's name, which the caller chose.
const maxMessage = 200

// TestThrottledBatchMessage: a batch that DynamoDB throttles whole fails
// each of its callers with a message of at most about 200 characters that
// names the throttle once, while errors.As still reaches every
// cancellation reason of the transaction. The model's partition holds too
// little for a transaction of several items, which it throttles; each round
// sends 16 concurrent Appends, until one round has put several in one
// transaction.
func TestThrottledBatchMessage(t *testing.T) {
	srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{WriteUnits: 1, Burst: 100 * time.Millisecond, Throttle: dynamoseqtest.ThrottleOnDemand}))
	table := srv.NewTable(t, dynamoseq.SortKeyTable("t"))
	s, err := dynamoseq.NewSortKey(srv.Client(), table, func(o *dynamoseq.SortKeyOptions) { o.Retry.MaxWait = time.Millisecond })
	require.NoError(t, err)
	for round := 1; ; round++ {
		errs := appendConcurrently(s, 16)
		for _, err := range errs {
			if err == nil {
				continue // the partition's bucket held enough for one item
			}
			require.ErrorIs(t, err, dynamoseq.ErrThrottled, "a call on a partition of 1 write unit a second, throttled or stored")
			msg := err.Error()
			assert.LessOrEqual(t, len(msg)-len(table), maxMessage, "the message beyond the table's name, want at most %d characters: %s", maxMessage, msg)
			assert.Equal(t, 1, strings.Count(strings.ToLower(msg), "throttlingerror")+strings.Count(strings.ToLower(msg), "throttlingexception"),
				"the message names DynamoDB's throttle once: %s", msg)
		}
		var tce *types.TransactionCanceledException
		for _, err := range errs {
			if errors.As(err, &tce) && len(tce.CancellationReasons) > 1 {
				for i, r := range tce.CancellationReasons {
					assert.Equal(t, "ThrottlingError", *r.Code, "reason %d of %d", i, len(tce.CancellationReasons))
				}
				t.Logf("round %d: %d callers in one transaction; a caller was told: %s", round, len(tce.CancellationReasons), err)
				return
			}
		}
		require.Less(t, round, 50, "in 50 rounds of 16 concurrent Appends, no transaction carried more than one call")
	}
}

// appendConcurrently makes n concurrent Appends of one name and returns their
// errors.
func appendConcurrently(s *dynamoseq.SortKey, n int) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.Append(context.Background(), "hot", map[string]any{"body": "an order"})
		}()
	}
	wg.Wait()
	return errs
}
