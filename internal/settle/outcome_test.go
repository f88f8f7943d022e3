package settle_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/internal/settle"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/answer"
)

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
		want     settle.Outcome
		sent     int32 // requests that reached the transport
	}{
		{name: "missing credentials", answer: answer.Reset, attempts: 3, optFn: answer.NoCredentials, want: settle.NotSent},
		{name: "no endpoint", answer: answer.Reset, attempts: 3, optFn: noEndpoint, want: settle.NotSent},
		{name: "invalid params", answer: answer.Reset, attempts: 3, in: &dynamodb.PutItemInput{}, want: settle.Refused},
		{name: "context ended before", answer: answer.Reset, attempts: 3, ctx: cancelled, want: settle.NotSent},
		{name: "connection refused", answer: answer.RefusedDial, attempts: 3, want: settle.NotSent, sent: 3},
		{name: "answer lost", answer: answer.Reset, attempts: 3, want: settle.OutcomeUnknown, sent: 3},
		{name: "answer lost, one attempt", answer: answer.Reset, attempts: 1, want: settle.OutcomeUnknown, sent: 1},
		{name: "server error", answer: answer.Status(500, "InternalServerError"), attempts: 1, want: settle.OutcomeUnknown, sent: 1},
		{name: "throttled once", answer: answer.Status(400, "ThrottlingException"), attempts: 1, want: settle.NotSent, sent: 1},
		{name: "throttled thrice", answer: answer.Status(400, "ThrottlingException"), attempts: 3, want: settle.OutcomeUnknown, sent: 3},
		{name: "condition failed", answer: answer.Status(400, "ConditionalCheckFailedException"), attempts: 3, want: settle.Refused, sent: 1},
		{name: "validation", answer: answer.Status(400, "ValidationException"), attempts: 3, want: settle.Refused, sent: 1},
		{name: "access denied", answer: answer.Status(400, "AccessDeniedException"), attempts: 3, want: settle.NotSent, sent: 1},
		{name: "unrecognized client", answer: answer.Status(400, "UnrecognizedClientException"), attempts: 3, want: settle.NotSent, sent: 1},
		{name: "in progress", answer: answer.Status(400, "TransactionInProgressException"), attempts: 1, want: settle.OutcomeUnknown, sent: 1},
		{name: "wrapper, answer lost", answer: answer.Reset, attempts: 1, drop: true, want: settle.OutcomeUnknown, sent: 1},
		{name: "wrapper, missing credentials", answer: answer.Reset, attempts: 1, optFn: answer.NoCredentials, drop: true, want: settle.OutcomeUnknown},
		{name: "wrapper, condition failed", answer: answer.Status(400, "ConditionalCheckFailedException"), attempts: 1, drop: true, want: settle.Refused, sent: 1},
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
			var p settle.Probe
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
