package dynamoseq_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/answer"
)

// answering is a real client whose requests a fake transport answers, for
// the decision logic alone: its reads find nothing (an empty sequence),
// and every write gets write's answer.
func answering(write answer.Func) *dynamodb.Client {
	return answer.Client(&answer.Transport{Answer: func(r *http.Request) (*http.Response, error) {
		switch target := r.Header.Get("X-Amz-Target"); {
		case strings.HasSuffix(target, ".Query"):
			return answer.JSON(200, `{"Count":0,"Items":[]}`)(r)
		case strings.HasSuffix(target, ".GetItem"):
			return answer.JSON(200, `{}`)(r)
		}
		return write(r)
	}}, 1)
}

// quick bounds the waits of a test of the decision: a few races, a short
// wait for capacity and for an unknown outcome.
func quick(r *dynamoseq.Retry) {
	r.MaxAttempts, r.BaseDelay, r.MaxDelay, r.MaxWait = 3, time.Millisecond, 2*time.Millisecond, 50*time.Millisecond
}

// appendVia is one Append of the strategy made over client by newAppender,
// with quick's waits and NoTransactions as given.
func appendVia[O any](newAppender func(dynamoseq.Client, string, ...func(*O)) (appendGetter, error), opt func(*O)) func(dynamoseq.Client) error {
	return func(c dynamoseq.Client) error {
		a, err := newAppender(c, "table", opt)
		if err != nil {
			return err
		}
		_, err = a.Append(context.Background(), "n", map[string]string{"a": "b"})
		return err
	}
}

func newSortKeyAppender(c dynamoseq.Client, table string, optFns ...func(*dynamoseq.SortKeyOptions)) (appendGetter, error) {
	return dynamoseq.NewSortKey(c, table, optFns...)
}

func newLatestAppender(c dynamoseq.Client, table string, optFns ...func(*dynamoseq.LatestOptions)) (appendGetter, error) {
	return dynamoseq.NewLatest(c, table, optFns...)
}

// oneDecisionStrategies are the write paths, each as one call that writes
// through client.
var oneDecisionStrategies = []struct {
	name string
	tx   bool // sends TransactWriteItems for a lone call
	call func(client dynamoseq.Client) error
}{
	{"SortKey", false, appendVia(newSortKeyAppender, func(o *dynamoseq.SortKeyOptions) { quick(&o.Retry) })},
	{"SortKey/NoTransactions", false, appendVia(newSortKeyAppender, func(o *dynamoseq.SortKeyOptions) { quick(&o.Retry); o.NoTransactions = true })},
	{"Latest", true, appendVia(newLatestAppender, func(o *dynamoseq.LatestOptions) { quick(&o.Retry) })},
	{"Latest/NoTransactions", false, appendVia(newLatestAppender, func(o *dynamoseq.LatestOptions) { quick(&o.Retry); o.NoTransactions = true })},
	{"Counter", false, func(c dynamoseq.Client) error {
		n, err := dynamoseq.NewCounter(c, "table", func(o *dynamoseq.CounterOptions) { quick(&o.Retry) })
		if err != nil {
			return err
		}
		_, err = n.Next(context.Background(), "n")
		return err
	}},
}

// cancelledBy answers with a TransactionCanceledException whose first
// reason has code.
func cancelledBy(code string) answer.Func {
	return answer.JSON(400, `{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","message":"cancelled",`+
		`"CancellationReasons":[{"Code":"`+code+`"},{"Code":"None"}]}`)
}

// TestSortKeyLatestCounterOneDecision: every strategy's write path, given
// the same answer, takes the same decision (engine.Decide) and returns the
// same error, but where the verdict means another thing to it (a Counter's
// failed condition is its MaxValue, its refused request a table of another
// shape). Proven with a fake transport under the real SDK client: this is
// the decision logic alone; the refused item is proven on DynamoDB Local
// (TestSortKeyRefusedItemInBatch).
func TestSortKeyLatestCounterOneDecision(t *testing.T) {
	tests := []struct {
		name      string
		answer    answer.Func
		txOnly    bool  // a transaction's answer: only for strategies that send one
		want      error // for every strategy...
		ifCounter error // ...but the Counter, when not nil
	}{
		{"throttled", answer.Status(400, "ThrottlingException"), false, dynamoseq.ErrThrottled, nil},
		{"throughput exceeded", answer.Status(400, "ProvisionedThroughputExceededException"), false, dynamoseq.ErrThrottled, nil},
		{"request limit", answer.Status(400, "RequestLimitExceeded"), false, dynamoseq.ErrThrottled, nil},
		{"transaction conflict", answer.Status(400, "TransactionConflictException"), false, dynamoseq.ErrContention, nil},
		{"replicated write conflict", answer.Status(400, "ReplicatedWriteConflictException"), false, dynamoseq.ErrContention, nil},
		{"condition failed", answer.Status(400, "ConditionalCheckFailedException"), false, dynamoseq.ErrContention, dynamoseq.ErrExhausted},
		{"refused item", answer.Status(400, "ValidationException"), false, dynamoseq.ErrInvalidArgument, dynamoseq.ErrTableMismatch},
		{"table not found", answer.Status(400, "ResourceNotFoundException"), false, dynamoseq.ErrTableNotFound, nil},
		{"answer lost", answer.Reset, false, dynamoseq.ErrUnknownOutcome, nil},
		{"server error", answer.Status(500, "InternalServerError"), false, dynamoseq.ErrUnknownOutcome, nil},
		{"cancelled: refused item", cancelledBy("ValidationError"), true, dynamoseq.ErrInvalidArgument, nil},
		{"cancelled: throttled", cancelledBy("ThrottlingError"), true, dynamoseq.ErrThrottled, nil},
		{"cancelled: conflict", cancelledBy("TransactionConflict"), true, dynamoseq.ErrContention, nil},
		{"cancelled: condition failed", cancelledBy("ConditionalCheckFailed"), true, dynamoseq.ErrContention, nil},
	}
	for _, s := range oneDecisionStrategies {
		for _, tt := range tests {
			if tt.txOnly && !s.tx {
				continue
			}
			t.Run(s.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				want := tt.want
				if s.name == "Counter" && tt.ifCounter != nil {
					want = tt.ifCounter
				}
				err := s.call(answering(tt.answer))
				if !errors.Is(err, want) {
					t.Errorf("answered %s: error %v, want one matching %v", tt.name, err, want)
				}
			})
		}
	}
}
