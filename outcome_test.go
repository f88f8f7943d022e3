package dynamoseq

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// roundTrip answers every request with answer, counting them.
type roundTrip struct {
	answer func(*http.Request) (*http.Response, error)
	n      atomic.Int32
}

func (r *roundTrip) RoundTrip(req *http.Request) (*http.Response, error) {
	r.n.Add(1)
	return r.answer(req)
}

// status answers with a DynamoDB error of the given HTTP status and type.
func status(code int, errType string) func(*http.Request) (*http.Response, error) {
	return func(req *http.Request) (*http.Response, error) {
		body := `{"__type":"com.amazonaws.dynamodb.v20120810#` + errType + `","message":"test"}`
		return &http.Response{StatusCode: code, Header: http.Header{"Content-Type": {"application/x-amz-json-1.0"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
	}
}

func reset(*http.Request) (*http.Response, error) {
	return nil, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
}

func refusedDial(*http.Request) (*http.Response, error) {
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
}

// testClient is a DynamoDB client whose requests go to rt, with attempts
// tries and no backoff.
func testClient(rt http.RoundTripper, attempts int, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	o := dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String("http://127.0.0.1:1"),
		Credentials:  credentials.NewStaticCredentialsProvider("k", "s", ""),
		HTTPClient:   &http.Client{Transport: rt},
		Retryer: retry.NewStandard(func(so *retry.StandardOptions) {
			so.MaxAttempts = attempts
			so.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		}),
	}
	return dynamodb.New(o, optFns...)
}

// dropsOptFns is a Client wrapper that does not pass the optFns on.
type dropsOptFns struct{ *dynamodb.Client }

func (d dropsOptFns) PutItem(ctx context.Context, in *dynamodb.PutItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return d.Client.PutItem(ctx, in)
}

func TestWriteOutcome(t *testing.T) {
	put := &dynamodb.PutItemInput{TableName: aws.String("t"), Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}}
	failingCreds := func(o *dynamodb.Options) {
		o.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{}, errors.New("no credentials")
		})
	}
	noEndpoint := func(o *dynamodb.Options) { o.BaseEndpoint, o.Region = nil, "" }
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name     string
		answer   func(*http.Request) (*http.Response, error)
		attempts int
		optFn    func(*dynamodb.Options)
		ctx      context.Context
		in       *dynamodb.PutItemInput
		drop     bool // through a wrapper that drops the optFns
		want     outcome
		sent     int32 // requests that reached the transport
	}{
		{name: "missing credentials", answer: reset, attempts: 3, optFn: failingCreds, want: notSent},
		{name: "no endpoint", answer: reset, attempts: 3, optFn: noEndpoint, want: notSent},
		{name: "invalid params", answer: reset, attempts: 3, in: &dynamodb.PutItemInput{}, want: refused},
		{name: "context ended before", answer: reset, attempts: 3, ctx: cancelled, want: notSent},
		{name: "connection refused", answer: refusedDial, attempts: 3, want: notSent, sent: 3},
		{name: "answer lost", answer: reset, attempts: 3, want: unknown, sent: 3},
		{name: "answer lost, one attempt", answer: reset, attempts: 1, want: unknown, sent: 1},
		{name: "server error", answer: status(500, "InternalServerError"), attempts: 1, want: unknown, sent: 1},
		{name: "throttled once", answer: status(400, "ThrottlingException"), attempts: 1, want: notSent, sent: 1},
		{name: "throttled thrice", answer: status(400, "ThrottlingException"), attempts: 3, want: unknown, sent: 3},
		{name: "condition failed", answer: status(400, "ConditionalCheckFailedException"), attempts: 3, want: refused, sent: 1},
		{name: "validation", answer: status(400, "ValidationException"), attempts: 3, want: refused, sent: 1},
		{name: "in progress", answer: status(400, "TransactionInProgressException"), attempts: 1, want: unknown, sent: 1},
		{name: "wrapper, answer lost", answer: reset, attempts: 1, drop: true, want: unknown, sent: 1},
		{name: "wrapper, missing credentials", answer: reset, attempts: 1, optFn: failingCreds, drop: true, want: unknown},
		{name: "wrapper, condition failed", answer: status(400, "ConditionalCheckFailedException"), attempts: 1, drop: true, want: refused, sent: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := &roundTrip{answer: tt.answer}
			var optFns []func(*dynamodb.Options)
			if tt.optFn != nil {
				optFns = append(optFns, tt.optFn)
			}
			client := Client(testClient(rt, tt.attempts, optFns...))
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
			var p probe
			_, err := client.PutItem(ctx, in, p.use)
			if err == nil {
				t.Fatal("PutItem succeeded")
			}
			if got := writeOutcome(err, &p); got != tt.want {
				t.Errorf("writeOutcome(%v) = %v, want %v", err, got, tt.want)
			}
			if got := rt.n.Load(); got != tt.sent {
				t.Errorf("%d requests reached the transport, want %d", got, tt.sent)
			}
		})
	}
}

// TestResolverResends: an unknown outcome is sent again until an answer
// settles it; a resend that is refused for good settles it as refused.
func TestResolverResends(t *testing.T) {
	var n atomic.Int32
	rt := &roundTrip{answer: func(req *http.Request) (*http.Response, error) {
		if n.Add(1) <= 4 {
			return reset(req)
		}
		return status(400, "ConditionalCheckFailedException")(req)
	}}
	client := testClient(rt, 3)
	r := resolver{timeout: time.Minute}
	err := r.send(context.Background(), func(ctx context.Context, optFn func(*dynamodb.Options)) error {
		_, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: map[string]types.AttributeValue{}}, optFn)
		return err
	})
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) || n.Load() != 5 {
		t.Errorf("send = %v after %d requests, want ConditionalCheckFailed after 5", err, n.Load())
	}

	rt = &roundTrip{answer: reset}
	client = testClient(rt, 1)
	r = resolver{timeout: 20 * time.Millisecond}
	err = r.send(context.Background(), func(ctx context.Context, optFn func(*dynamodb.Options)) error {
		_, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: map[string]types.AttributeValue{}}, optFn)
		return err
	})
	if !errors.Is(err, ErrUnknownOutcome) {
		t.Errorf("send with answers always lost = %v, want ErrUnknownOutcome", err)
	}
}

// TestLatestNotSentNotResent: an error raised before anything was sent is
// returned at once, not resent as an unknown outcome.
func TestLatestNotSentNotResent(t *testing.T) {
	rt := &roundTrip{answer: reset}
	client := testClient(rt, 3, func(o *dynamodb.Options) {
		o.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{}, errors.New("no credentials")
		})
	})
	l, err := NewLatest(client, "docs")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = l.Append(context.Background(), "d", nil)
	if err == nil || errors.Is(err, ErrUnknownOutcome) || rt.n.Load() != 0 || time.Since(start) > time.Second {
		t.Errorf("Append without credentials = %v after %v and %d requests, want the error at once, nothing sent", err, time.Since(start), rt.n.Load())
	}
}

// TestLatestOwnDeadline: a lone Append whose deadline passes while its
// transaction is in flight, and which DynamoDB then answers was not
// stored, returns context.DeadlineExceeded, not context.Canceled.
func TestLatestOwnDeadline(t *testing.T) {
	var sends atomic.Int32
	rt := &roundTrip{answer: func(req *http.Request) (*http.Response, error) {
		if !strings.HasSuffix(req.Header.Get("X-Amz-Target"), ".TransactWriteItems") {
			return status(200, "")(req) // GetItem of 'latest': an empty answer, no item
		}
		if sends.Add(1) == 1 {
			<-req.Context().Done() // the first send's answer never comes
			return nil, req.Context().Err()
		}
		body := `{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","message":"cancelled",` +
			`"CancellationReasons":[{"Code":"ConditionalCheckFailed"},{"Code":"None"}]}`
		return &http.Response{StatusCode: 400, Header: http.Header{"Content-Type": {"application/x-amz-json-1.0"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
	}}
	l, err := NewLatest(testClient(rt, 1), "docs")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = l.Append(ctx, "d", nil)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrUnknownOutcome) {
		t.Errorf("Append = %v, want context.DeadlineExceeded (nothing stored)", err)
	}
}
