package dbtest

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/peek"
)

// FastRetries gives a client the SDK's standard retryer with the delays of a
// test: the same number of attempts (3), backoff of at most 20ms, and no
// retry quota (the quota would stop the resends of a test that loses many
// answers on purpose).
func FastRetries() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
			so.MaxBackoff = 20 * time.Millisecond
			so.RateLimiter = ratelimit.None
		})
	}
}

// Requests is how many requests the client made through ft so far,
// resends included.
func Requests(ft *dynamoseqtest.FaultTransport) int64 {
	requests, _, _ := peek.Faults(ft)
	return requests
}

// LostAnswers is how many answers ft has replaced by a connection reset so
// far.
func LostAnswers(ft *dynamoseqtest.FaultTransport) int64 {
	_, lost, _ := peek.Faults(ft)
	return lost
}

// Stalled is how many answers ft has held back so far.
func Stalled(ft *dynamoseqtest.FaultTransport) int64 {
	_, _, stalled := peek.Faults(ft)
	return stalled
}
