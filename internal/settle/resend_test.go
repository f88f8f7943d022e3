package settle_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/dynamoseq/dynamoseq/internal/settle"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/answer"
)

var errUnknown = errors.New("outcome unknown")

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
	r := settle.Resender{Timeout: time.Minute, Unknown: errUnknown}
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
	r = settle.Resender{Timeout: 20 * time.Millisecond, Unknown: errUnknown}
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
		want       string
		requests   int32
	}{
		{name: "applied at once", answers: []answer.Func{ok}, want: "nil", requests: 1},
		{name: "refused at once", answers: []answer.Func{answer.Status(400, "ValidationException")}, want: "ValidationException", requests: 1},
		{name: "not sent", answers: []answer.Func{answer.RefusedDial}, want: "dial", requests: 1},
		{name: "lost, then applied", answers: []answer.Func{answer.Reset, answer.Reset, ok}, want: "nil", requests: 3},
		{name: "a throttled resend settles nothing", answers: []answer.Func{answer.Reset, answer.Status(400, "ThrottlingException"), answer.Status(400, "ConditionalCheckFailedException")},
			want: "ConditionalCheckFailedException", requests: 3},
		{name: "never settled", answers: []answer.Func{answer.Reset}, want: "unknown"},
		{name: "detached: settled after the caller gave up", answers: []answer.Func{answer.Reset, ok}, giveUp: true, want: "nil", requests: 2},
		{name: "attached, lost, then applied", answers: []answer.Func{answer.Reset, ok}, attached: true, want: "nil", requests: 2},
		{name: "attached: not resent once the caller gave up", answers: []answer.Func{answer.Reset}, attached: true, giveUp: true, want: "canceled", requests: 1},
		{name: "bounded, lost, then applied", answers: []answer.Func{answer.Reset, ok}, bounded: true, want: "nil", requests: 2},
		{name: "bounded: unknown once the caller gave up", answers: []answer.Func{answer.Reset}, bounded: true, giveUp: true, want: "unknown", requests: 1},
		{name: "bounded: never settled", answers: []answer.Func{answer.Reset}, bounded: true, want: "unknown"},
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
			r := settle.Resender{Timeout: 50 * time.Millisecond, Attached: tt.attached, MaxResends: tt.maxResends, Resent: &resent, Unknown: errUnknown}
			if tt.bounded {
				r.Timeout, r.Bound = 0, 50*time.Millisecond
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
