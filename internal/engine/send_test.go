package engine_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/dynamoseq/dynamoseq/internal/engine"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/answer"
)

// TestResolverResends: an unknown outcome is sent again until an answer
// settles it; a resend that is refused for good settles it as refused.
func TestResolverResends(t *testing.T) {
	var n atomic.Int32
	rt := &answer.Transport{Answer: func(req *http.Request) (*http.Response, error) {
		if n.Add(1) <= 4 {
			return answer.Reset(req)
		}
		return answer.Status(400, "ConditionalCheckFailedException")(req)
	}}
	client := answer.Client(rt, 3)
	r := engine.Resender{Timeout: time.Minute, Unknown: errUnknown}
	err := r.Send(context.Background(), func(ctx context.Context, optFn func(*dynamodb.Options)) error {
		_, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: map[string]types.AttributeValue{}}, optFn)
		return err
	})
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) || n.Load() != 5 {
		t.Errorf("send = %v after %d requests, want ConditionalCheckFailed after 5", err, n.Load())
	}

	rt = &answer.Transport{Answer: answer.Reset}
	client = answer.Client(rt, 1)
	r = engine.Resender{Timeout: 20 * time.Millisecond, Unknown: errUnknown}
	err = r.Send(context.Background(), func(ctx context.Context, optFn func(*dynamodb.Options)) error {
		_, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: map[string]types.AttributeValue{}}, optFn)
		return err
	})
	if !errors.Is(err, errUnknown) {
		t.Errorf("send with answers always lost = %v, want the Unknown sentinel", err)
	}
}

// TestResenderLoop drives Send with a SendFunc whose every call is one
// attempt of a real client, answered in turn by answers (the last one
// repeated), and checks what it returns, how many requests it made and how
// many it counted as resent.
func TestResenderLoop(t *testing.T) {
	ok := answer.JSON(200, `{}`)
	tests := []struct {
		name     string
		answers  []answer.Func
		attached bool
		giveUp   bool // the caller's context ends while the first send is in flight
		// bounded resends under the caller's context (Timeout 0), at
		// most maxResends that may have been applied
		bounded    bool
		maxResends int
		// short: the case ends when the resends' time runs out, so that
		// time is short; every other case has a minute, which a busy
		// machine never reaches before the answers settle it
		short    bool
		want     string
		requests int32
	}{
		{name: "applied at once", answers: []answer.Func{ok}, want: "nil", requests: 1},
		{name: "refused at once", answers: []answer.Func{answer.Status(400, "ValidationException")}, want: "ValidationException", requests: 1},
		{name: "not sent", answers: []answer.Func{answer.RefusedDial}, want: "dial", requests: 1},
		{name: "lost, then applied", answers: []answer.Func{answer.Reset, answer.Reset, ok}, want: "nil", requests: 3},
		{name: "a throttled resend settles nothing", answers: []answer.Func{answer.Reset, answer.Status(400, "ThrottlingException"), answer.Status(400, "ConditionalCheckFailedException")},
			want: "ConditionalCheckFailedException", requests: 3},
		{name: "never settled", answers: []answer.Func{answer.Reset}, short: true, want: "unknown"},
		{name: "detached: settled after the caller gave up", answers: []answer.Func{answer.Reset, ok}, giveUp: true, want: "nil", requests: 2},
		{name: "attached, lost, then applied", answers: []answer.Func{answer.Reset, ok}, attached: true, want: "nil", requests: 2},
		{name: "attached: not resent once the caller gave up", answers: []answer.Func{answer.Reset}, attached: true, giveUp: true, want: "canceled", requests: 1},
		{name: "bounded, lost, then applied", answers: []answer.Func{answer.Reset, ok}, bounded: true, want: "nil", requests: 2},
		{name: "bounded: unknown once the caller gave up", answers: []answer.Func{answer.Reset}, bounded: true, giveUp: true, want: "unknown", requests: 1},
		{name: "bounded: never settled", answers: []answer.Func{answer.Reset}, bounded: true, short: true, want: "unknown"},
		{name: "at most 2 resends", answers: []answer.Func{answer.Reset}, attached: true, maxResends: 2, want: "unknown", requests: 3},
		{name: "a throttled resend is not counted", answers: []answer.Func{answer.Reset, answer.Status(400, "ThrottlingException"), answer.Reset},
			attached: true, maxResends: 2, want: "unknown", requests: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var n atomic.Int32
			rt := &answer.Transport{Answer: func(req *http.Request) (*http.Response, error) {
				i := int(n.Add(1)) - 1
				if i == 0 && tt.giveUp {
					cancel()
				}
				return tt.answers[min(i, len(tt.answers)-1)](req)
			}}
			client := answer.Client(rt, 1)
			var resent atomic.Int64
			limit := time.Minute
			if tt.short {
				limit = 50 * time.Millisecond
			}
			r := engine.Resender{Timeout: limit, Attached: tt.attached, MaxResends: tt.maxResends, Resent: &resent, Unknown: errUnknown}
			if tt.bounded {
				r.Timeout, r.Bound = 0, limit
			}
			err := r.Send(ctx, func(ctx context.Context, optFn func(*dynamodb.Options)) error {
				_, err := client.PutItem(ctx, put, optFn)
				return err
			})
			if got := kind(err); got != tt.want {
				t.Errorf("Send() = %v (%s), want %s", err, got, tt.want)
			}
			if tt.requests == 0 { // never settled: as many as the timeout allows
				if rt.Requests() < 2 {
					t.Errorf("%d requests, want the write sent again", rt.Requests())
				}
			} else if got := rt.Requests(); got != tt.requests {
				t.Errorf("%d requests, want %d", got, tt.requests)
			}
			// Every call of send after the first counts, also one that the
			// end of the timeout kept from reaching the transport.
			if got, want := resent.Load(), int64(rt.Requests()-1); got != want && (tt.requests != 0 || got != want+1) {
				t.Errorf("Resent = %d after %d requests, want %d", got, rt.Requests(), want)
			}
		})
	}
}

// kind names what Send returned: "nil", "unknown" (the Unknown sentinel),
// "canceled" (the caller's context), the error code of an answer, "dial"
// or "reset".
func kind(err error) string {
	var api smithy.APIError
	var op *net.OpError
	switch {
	case err == nil:
		return "nil"
	case errors.Is(err, errUnknown):
		return "unknown"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.As(err, &api):
		return api.ErrorCode()
	case errors.As(err, &op) && op.Op == "dial":
		return "dial"
	case errors.As(err, &op):
		return "reset"
	}
	return err.Error()
}

// dropsOptFns is a client wrapper that does not pass the optFns on.
type dropsOptFns struct{ *dynamodb.Client }

func (d dropsOptFns) PutItem(ctx context.Context, in *dynamodb.PutItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return d.Client.PutItem(ctx, in)
}

type putter interface {
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
}

// put is a PutItem that DynamoDB would accept.
var put = &dynamodb.PutItemInput{TableName: aws.String("t"), Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}}

func TestWriteOutcome(t *testing.T) {
	noEndpoint := func(o *dynamodb.Options) { o.BaseEndpoint, o.Region = nil, "" }
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name     string
		answer   answer.Func
		attempts int
		optFn    func(*dynamodb.Options)
		ctx      context.Context
		in       *dynamodb.PutItemInput
		drop     bool // through a wrapper that drops the optFns
		want     engine.Outcome
		sent     int32 // requests that reached the transport
	}{
		{name: "missing credentials", answer: answer.Reset, attempts: 3, optFn: answer.NoCredentials, want: engine.NotSent},
		{name: "no endpoint", answer: answer.Reset, attempts: 3, optFn: noEndpoint, want: engine.NotSent},
		{name: "invalid params", answer: answer.Reset, attempts: 3, in: &dynamodb.PutItemInput{}, want: engine.Refused},
		{name: "context ended before", answer: answer.Reset, attempts: 3, ctx: cancelled, want: engine.NotSent},
		{name: "connection refused", answer: answer.RefusedDial, attempts: 3, want: engine.NotSent, sent: 3},
		{name: "answer lost", answer: answer.Reset, attempts: 3, want: engine.OutcomeUnknown, sent: 3},
		{name: "answer lost, one attempt", answer: answer.Reset, attempts: 1, want: engine.OutcomeUnknown, sent: 1},
		{name: "server error", answer: answer.Status(500, "InternalServerError"), attempts: 1, want: engine.OutcomeUnknown, sent: 1},
		{name: "throttled once", answer: answer.Status(400, "ThrottlingException"), attempts: 1, want: engine.NotSent, sent: 1},
		{name: "throttled thrice", answer: answer.Status(400, "ThrottlingException"), attempts: 3, want: engine.OutcomeUnknown, sent: 3},
		{name: "condition failed", answer: answer.Status(400, "ConditionalCheckFailedException"), attempts: 3, want: engine.Refused, sent: 1},
		{name: "validation", answer: answer.Status(400, "ValidationException"), attempts: 3, want: engine.Refused, sent: 1},
		{name: "access denied", answer: answer.Status(400, "AccessDeniedException"), attempts: 3, want: engine.NotSent, sent: 1},
		{name: "unrecognized client", answer: answer.Status(400, "UnrecognizedClientException"), attempts: 3, want: engine.NotSent, sent: 1},
		{name: "in progress", answer: answer.Status(400, "TransactionInProgressException"), attempts: 1, want: engine.OutcomeUnknown, sent: 1},
		{name: "wrapper, answer lost", answer: answer.Reset, attempts: 1, drop: true, want: engine.OutcomeUnknown, sent: 1},
		{name: "wrapper, missing credentials", answer: answer.Reset, attempts: 1, optFn: answer.NoCredentials, drop: true, want: engine.OutcomeUnknown},
		{name: "wrapper, condition failed", answer: answer.Status(400, "ConditionalCheckFailedException"), attempts: 1, drop: true, want: engine.Refused, sent: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := &answer.Transport{Answer: tt.answer}
			var optFns []func(*dynamodb.Options)
			if tt.optFn != nil {
				optFns = append(optFns, tt.optFn)
			}
			var client putter = answer.Client(rt, tt.attempts, optFns...)
			if tt.drop {
				client = dropsOptFns{client.(*dynamodb.Client)}
			}
			ctx, in := tt.ctx, tt.in
			if ctx == nil {
				ctx = context.Background()
			}
			if in == nil {
				in = put
			}
			var p engine.Probe
			_, err := client.PutItem(ctx, in, p.Use)
			if err == nil {
				t.Fatal("PutItem succeeded")
			}
			if got := p.Outcome(err); got != tt.want {
				t.Errorf("Outcome(%v) = %v, want %v", err, got, tt.want)
			}
			if got := rt.Requests(); got != tt.sent {
				t.Errorf("%d requests reached the transport, want %d", got, tt.sent)
			}
		})
	}
}

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
				optFns = append(optFns, engine.OwnBackpressure)
			}
			_, err := answer.Client(rt, 3).PutItem(context.Background(), put, optFns...)
			if err == nil {
				t.Fatal("PutItem succeeded, want an error")
			}
			if got := rt.Requests(); got != tt.sent {
				t.Errorf("requests sent = %d, want %d (error: %v)", got, tt.sent, err)
			}
			if got := engine.Backpressure(err); got != tt.backpressure {
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
	_, err := client.PutItem(context.Background(), put, engine.OwnBackpressure, func(o *dynamodb.Options) { seen = o.Retryer })
	if !engine.Backpressure(err) {
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
	engine.OwnBackpressure(&o)
	if o.Retryer.IsErrorRetryable(err) {
		t.Error("a retryer of the older interface still retries a throttle")
	}
	if _, ok := o.Retryer.(aws.RetryerV2); ok {
		t.Error("a retryer of the older interface became an aws.RetryerV2")
	}
}
