// Package answer gives a DynamoDB client canned answers below the SDK, for
// the tests of what the library makes of an answer that DynamoDB Local
// cannot be made to give on demand: an error of a given HTTP status and
// type, a connection reset after the request was written, a refused
// connection. The SDK's whole middleware stack (retryer, signing,
// deserialization) runs as against the service, so the error a test gets is
// the SDK's own typed error. Correctness against DynamoDB itself is proven on
// DynamoDB Local, never here.
package answer

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
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Func answers one request, as an http.RoundTripper does.
type Func func(*http.Request) (*http.Response, error)

// Transport is an http.RoundTripper that answers every request with
// Answer, counting the requests. It is safe for concurrent use.
type Transport struct {
	Answer Func
	n      atomic.Int32
}

// RoundTrip counts req and returns Answer's answer to it.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.n.Add(1)
	return t.Answer(req)
}

// Requests is how many requests reached the transport.
func (t *Transport) Requests() int32 { return t.n.Load() }

// Status answers with a DynamoDB error of the HTTP status code and the
// error type errType, such as 400 and "ThrottlingException".
func Status(code int, errType string) Func {
	return JSON(code, `{"__type":"com.amazonaws.dynamodb.v20120810#`+errType+`","message":"test"}`)
}

// JSON answers with the HTTP status code and the JSON body, as DynamoDB
// does.
func JSON(code int, body string) Func {
	return func(req *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: code, Header: http.Header{"Content-Type": {"application/x-amz-json-1.0"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
	}
}

// Reset fails as a connection reset while reading the answer: the request
// was written and may have been applied.
func Reset(*http.Request) (*http.Response, error) {
	return nil, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
}

// RefusedDial fails as a refused connection: the request was not written.
func RefusedDial(*http.Request) (*http.Response, error) {
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
}

// Client returns a DynamoDB client whose requests go to rt, with static
// credentials, a retryer that makes up to attempts attempts with no
// backoff, and then optFns applied.
func Client(rt http.RoundTripper, attempts int, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
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

// NoCredentials is an option of Client whose credentials cannot be
// retrieved: every request fails before anything is sent.
func NoCredentials(o *dynamodb.Options) {
	o.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{}, errNoCredentials
	})
}

var errNoCredentials = errors.New("answer: no credentials")
