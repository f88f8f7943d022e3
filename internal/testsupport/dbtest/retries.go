package dbtest

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
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
