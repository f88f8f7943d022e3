package settle

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Backpressure reports whether err is DynamoDB refusing one request for
// want of capacity or because another request held its item at that
// moment: ThrottlingException, ProvisionedThroughputExceededException,
// RequestLimitExceeded or TransactionConflictException. Nothing was
// written; the same request may succeed after a wait. (A cancelled
// transaction with such reasons is not retried by the SDK anyway; Classify
// reads its reasons.)
func Backpressure(err error) bool {
	if _, cancelled := Reasons(err); cancelled {
		return false
	}
	switch Classify(err) {
	case ThrottleRefusal:
		return true
	case ConflictRefusal:
		return !ReplicatedConflict(err) // a race lost to another Region
	}
	return false
}

// OwnBackpressure is an option of one call to the client that leaves the
// errors Backpressure reports to the caller: the client's retryer is
// wrapped so that it calls them not retryable, and the SDK returns them at
// once instead of sleeping through its own backoff (up to seconds for a
// throttle) and spending the client's retry quota on them. Every other
// error (a network error, a server error) is still the client's retryer's
// to retry, and the retryer still sees every attempt: an adaptive
// retryer's rate still follows the throttles.
func OwnBackpressure(o *dynamodb.Options) {
	switch r := o.Retryer.(type) {
	case nil:
	case aws.RetryerV2:
		o.Retryer = ownBackpressureV2{r}
	default:
		o.Retryer = ownBackpressure{r}
	}
}

// ownBackpressure is a client's aws.Retryer that does not retry the errors
// Backpressure reports.
type ownBackpressure struct{ aws.Retryer }

func (r ownBackpressure) IsErrorRetryable(err error) bool {
	return !Backpressure(err) && r.Retryer.IsErrorRetryable(err)
}

// ownBackpressureV2 is ownBackpressure for an aws.RetryerV2, which it
// stays, so that the SDK keeps calling its GetAttemptToken.
type ownBackpressureV2 struct{ aws.RetryerV2 }

func (r ownBackpressureV2) IsErrorRetryable(err error) bool {
	return !Backpressure(err) && r.RetryerV2.IsErrorRetryable(err)
}

// GetAttemptToken is the wrapped retryer's: spelled out so that a reader
// need not wonder whether embedding passes it on.
func (r ownBackpressureV2) GetAttemptToken(ctx context.Context) (func(error) error, error) {
	return r.RetryerV2.GetAttemptToken(ctx)
}
