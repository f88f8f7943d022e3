package dynamoseq

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamoseq/dynamoseq/internal/answer"
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
// transaction is in flight, and which DynamoDB then answers was not
// stored, returns context.DeadlineExceeded, not context.Canceled.
func TestLatestOwnDeadline(t *testing.T) {
	var sends atomic.Int32
	rt := &answer.Transport{Answer: func(req *http.Request) (*http.Response, error) {
		if !strings.HasSuffix(req.Header.Get("X-Amz-Target"), ".TransactWriteItems") {
			return answer.Status(200, "")(req) // GetItem of 'latest': an empty answer, no item
		}
		if sends.Add(1) == 1 {
			<-req.Context().Done() // the first send's answer never comes
			return nil, req.Context().Err()
		}
		return answer.JSON(400, `{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","message":"cancelled",`+
			`"CancellationReasons":[{"Code":"ConditionalCheckFailed"},{"Code":"None"}]}`)(req)
	}}
	l, err := NewLatest(answer.Client(rt, 1), "docs")
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
