package dynamoseq

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamoseq/dynamoseq/internal/testsupport/answer"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/deadline"
)

// TestLatestNotSentNotResent: an error raised before anything was sent is
// returned at once, not resent as an unknown outcome.
func TestLatestNotSentNotResent(t *testing.T) {
	rt := &answer.Transport{Answer: answer.Reset}
	client := answer.Client(rt, 3, answer.NoCredentials)
	l, err := NewLatest(client, "docs")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = l.Append(context.Background(), "d", nil)
	if err == nil || errors.Is(err, ErrUnknownOutcome) || rt.Requests() != 0 || time.Since(start) > time.Second {
		t.Errorf("Append without credentials = %v after %v and %d requests, want the error at once, nothing sent", err, time.Since(start), rt.Requests())
	}
}

// TestLatestOwnDeadline: a lone Append whose deadline passes while its
// transaction is in flight returns ErrUnknownOutcome with its version and
// context.DeadlineExceeded (by default, the caller's deadline bounds the
// call); with ResolveTimeout, the transaction is sent again past the
// deadline, DynamoDB answers that it was not stored, and the Append
// returns context.DeadlineExceeded, not context.Canceled.
func TestLatestOwnDeadline(t *testing.T) {
	for _, resolve := range []time.Duration{0, 5 * time.Second} {
		t.Run(fmt.Sprintf("ResolveTimeout=%v", resolve), func(t *testing.T) {
			var sends atomic.Int32
			ctx, pass := deadline.New() // passes once the transaction is in flight
			rt := &answer.Transport{Answer: func(req *http.Request) (*http.Response, error) {
				if !strings.HasSuffix(req.Header.Get("X-Amz-Target"), ".TransactWriteItems") {
					return answer.Status(200, "")(req) // GetItem of 'latest': an empty answer, no item
				}
				if sends.Add(1) == 1 {
					pass()
					<-req.Context().Done() // the first send's answer never comes
					return nil, req.Context().Err()
				}
				return answer.JSON(400, `{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","message":"cancelled",`+
					`"CancellationReasons":[{"Code":"ConditionalCheckFailed"},{"Code":"None"}]}`)(req)
			}}
			l, err := NewLatest(answer.Client(rt, 1), "docs", func(o *LatestOptions) { o.ResolveTimeout = resolve })
			if err != nil {
				t.Fatal(err)
			}
			_, err = l.Append(ctx, "d", nil)
			var e *Error
			switch {
			case !errors.Is(err, context.DeadlineExceeded):
				t.Errorf("Append = %v, want context.DeadlineExceeded", err)
			case resolve > 0 && errors.Is(err, ErrUnknownOutcome):
				t.Errorf("Append = %v, want nothing stored, settled past the deadline", err)
			case resolve == 0 && (!errors.As(err, &e) || !errors.Is(err, ErrUnknownOutcome) || e.Number != 1):
				t.Errorf("Append = %v, want ErrUnknownOutcome with version 1", err)
			}
		})
	}
}
