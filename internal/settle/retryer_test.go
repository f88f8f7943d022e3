package settle_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamoseq/dynamoseq/internal/settle"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/answer"
)

// TestOwnBackpressure: with OwnBackpressure in a call's optFns, the SDK
// sends a throttled or conflicted request once and returns its error; any
// other error is retried as the client's retryer says.
func TestOwnBackpressure(t *testing.T) {
	tests := []struct {
		answer answer.Func
		name   string
		own    bool
		sent   int32 // requests that reached the transport, of up to 3 attempts
		// backpressure: the error is a throttle or a conflict
		backpressure bool
	}{
		{name: "ThrottlingException", answer: answer.Status(400, "ThrottlingException"), own: true, sent: 1, backpressure: true},
		{name: "ThrottlingException, SDK's", answer: answer.Status(400, "ThrottlingException"), sent: 3, backpressure: true},
		{name: "ProvisionedThroughputExceededException", answer: answer.Status(400, "ProvisionedThroughputExceededException"), own: true, sent: 1, backpressure: true},
		{name: "RequestLimitExceeded", answer: answer.Status(400, "RequestLimitExceeded"), own: true, sent: 1, backpressure: true},
		{name: "TransactionConflictException", answer: answer.Status(400, "TransactionConflictException"), own: true, sent: 1, backpressure: true},
		{name: "server error", answer: answer.Status(500, "InternalServerError"), own: true, sent: 3},
		{name: "answer lost", answer: answer.Reset, own: true, sent: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := &answer.Transport{Answer: tt.answer}
			var optFns []func(*dynamodb.Options)
			if tt.own {
				optFns = append(optFns, settle.OwnBackpressure)
			}
			_, err := answer.Client(rt, 3).PutItem(context.Background(), put, optFns...)
			if err == nil {
				t.Fatal("PutItem succeeded, want an error")
			}
			if got := rt.Requests(); got != tt.sent {
				t.Errorf("requests sent = %d, want %d (error: %v)", got, tt.sent, err)
			}
			if got := settle.Backpressure(err); got != tt.backpressure {
				t.Errorf("Backpressure(%v) = %v, want %v", err, got, tt.backpressure)
			}
		})
	}
}

// countingRetryer is a client's own aws.RetryerV2 that counts the attempt
// tokens the SDK asks it for.
type countingRetryer struct {
	aws.RetryerV2
	attempts atomic.Int32
}

func (r *countingRetryer) GetAttemptToken(ctx context.Context) (func(error) error, error) {
	r.attempts.Add(1)
	return r.RetryerV2.GetAttemptToken(ctx)
}

// TestOwnBackpressureKeepsRetryer: the wrapped retryer stays an
// aws.RetryerV2 and is asked for a token for every attempt, as an adaptive
// retryer needs to follow the throttles; a retryer of the older interface
// is wrapped too.
func TestOwnBackpressureKeepsRetryer(t *testing.T) {
	own := &countingRetryer{RetryerV2: retry.NewStandard(func(o *retry.StandardOptions) { o.MaxAttempts = 3 })}
	rt := &answer.Transport{Answer: answer.Status(400, "ThrottlingException")}
	client := answer.Client(rt, 3, func(o *dynamodb.Options) { o.Retryer = own })
	var seen aws.Retryer
	_, err := client.PutItem(context.Background(), put, settle.OwnBackpressure, func(o *dynamodb.Options) { seen = o.Retryer })
	if !settle.Backpressure(err) {
		t.Fatalf("PutItem error = %v, want a throttle", err)
	}
	if _, ok := seen.(aws.RetryerV2); !ok {
		t.Errorf("the wrapped retryer is a %T, not an aws.RetryerV2", seen)
	}
	if got := own.attempts.Load(); got != 1 {
		t.Errorf("attempt tokens asked of the client's retryer = %d, want 1", got)
	}

	v1 := struct{ aws.Retryer }{retry.NewStandard()}
	o := dynamodb.Options{Retryer: v1}
	settle.OwnBackpressure(&o)
	if o.Retryer.IsErrorRetryable(err) {
		t.Error("a retryer of the older interface still retries a throttle")
	}
	if _, ok := o.Retryer.(aws.RetryerV2); ok {
		t.Error("a retryer of the older interface became an aws.RetryerV2")
	}
}
