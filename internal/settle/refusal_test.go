package settle_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/internal/settle"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/answer"
)

// cancelled answers a TransactWriteItems with a TransactionCanceledException
// whose reasons have the codes given ("" for a reason without a code; a
// code followed by "+item" comes with the item that failed the condition).
func cancelled(codes ...string) answer.Func {
	var reasons []string
	for _, c := range codes {
		switch code, withItem := strings.CutSuffix(c, "+item"); {
		case c == "":
			reasons = append(reasons, `{}`)
		case withItem:
			reasons = append(reasons, `{"Code":"`+code+`","Item":{"pk":{"S":"a"}}}`)
		default:
			reasons = append(reasons, `{"Code":"`+c+`"}`)
		}
	}
	return answer.JSON(400, `{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","message":"cancelled",`+
		`"CancellationReasons":[`+strings.Join(reasons, ",")+`]}`)
}

// answered returns the error the SDK makes of ans, the answer to the only
// attempt of a TransactWriteItems.
func answered(t *testing.T, ans answer.Func) error {
	t.Helper()
	client := answer.Client(&answer.Transport{Answer: ans}, 1)
	_, err := client.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{{Put: txPut()}},
	})
	if err == nil {
		t.Fatal("TransactWriteItems succeeded")
	}
	return err
}

func txPut() *types.Put {
	return &types.Put{TableName: aws.String("t"), Item: put.Item}
}

// TestClassify: each answer DynamoDB documents, as the SDK deserializes it,
// is classified by what the writer may do about it.
func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		ans  answer.Func
		want settle.Refusal
	}{
		{"condition failed", answer.Status(400, "ConditionalCheckFailedException"), settle.ConditionFailed},
		{"transaction conflict", answer.Status(400, "TransactionConflictException"), settle.ConflictRefusal},
		{"replicated write conflict", answer.Status(400, "ReplicatedWriteConflictException"), settle.ConflictRefusal},
		{"throttled, on-demand", answer.Status(400, "ThrottlingException"), settle.ThrottleRefusal},
		{"throttled, provisioned", answer.Status(400, "ProvisionedThroughputExceededException"), settle.ThrottleRefusal},
		{"throttled, account", answer.Status(400, "RequestLimitExceeded"), settle.ThrottleRefusal},
		{"validation", answer.Status(400, "ValidationException"), settle.Invalid},
		{"access denied", answer.Status(400, "AccessDeniedException"), settle.Invalid},
		{"table not found", answer.Status(400, "ResourceNotFoundException"), settle.Invalid},
		{"idempotent parameter mismatch", answer.Status(400, "IdempotentParameterMismatchException"), settle.Invalid},
		{"in progress", answer.Status(400, "TransactionInProgressException"), settle.NotRefused},
		{"server error", answer.Status(500, "InternalServerError"), settle.NotRefused},
		{"unavailable", answer.Status(503, "ServiceUnavailable"), settle.NotRefused},
		{"answer lost", answer.Reset, settle.NotRefused},
		{"not sent", answer.RefusedDial, settle.NotRefused},
		{"cancelled: condition", cancelled("None", "ConditionalCheckFailed"), settle.ConditionFailed},
		{"cancelled: conflict", cancelled("TransactionConflict", "None"), settle.ConflictRefusal},
		{"cancelled: throttled, on-demand", cancelled("None", "ThrottlingError"), settle.ThrottleRefusal},
		{"cancelled: throttled, provisioned", cancelled("ProvisionedThroughputExceeded", ""), settle.ThrottleRefusal},
		{"cancelled: condition with its item before conflict", cancelled("TransactionConflict", "ConditionalCheckFailed+item"), settle.ConditionFailed},
		{"cancelled: conflict before condition without item", cancelled("TransactionConflict", "ConditionalCheckFailed"), settle.ConflictRefusal},
		{"cancelled: conflict before throttled", cancelled("ThrottlingError", "TransactionConflict"), settle.ConflictRefusal},
		{"cancelled: condition with its item before throttled", cancelled("ThrottlingError", "ConditionalCheckFailed+item"), settle.ConditionFailed},
		{"cancelled: throttled before condition without item", cancelled("ThrottlingError", "ConditionalCheckFailed"), settle.ThrottleRefusal},
		{"cancelled: validation", cancelled("None", "ValidationError"), settle.Invalid},
		{"cancelled: validation wins", cancelled("ConditionalCheckFailed", "ValidationError"), settle.Invalid},
		{"cancelled: item collection full", cancelled("ItemCollectionSizeLimitExceeded"), settle.Invalid},
		{"cancelled: a code not documented", cancelled("SomethingNew", "ThrottlingError"), settle.Invalid},
		{"cancelled: no reason", cancelled("None", ""), settle.Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := answered(t, tt.ans)
			if got := settle.Classify(err); got != tt.want {
				t.Errorf("Classify(%v) = %v, want %v", err, got, tt.want)
			}
		})
	}
	if got := settle.Classify(nil); got != settle.NotRefused {
		t.Errorf("Classify(nil) = %v, want %v", got, settle.NotRefused)
	}
	client := answer.Client(&answer.Transport{Answer: answer.Reset}, 1)
	_, err := client.PutItem(context.Background(), &dynamodb.PutItemInput{})
	if got := settle.Classify(err); got != settle.Invalid {
		t.Errorf("Classify(%v) = %v, want %v (parameters the SDK refuses)", err, got, settle.Invalid)
	}
}

// TestReasons: the predicates the strategies branch on today.
func TestReasons(t *testing.T) {
	tests := []struct {
		name               string
		ans                answer.Func
		lostRace           bool // LostRace of the reasons
		validation         bool // IsValidation
		replicatedConflict bool
	}{
		{name: "condition", ans: cancelled("None", "ConditionalCheckFailed"), lostRace: true},
		{name: "conflict", ans: cancelled("TransactionConflict", ""), lostRace: true},
		{name: "condition and throttled", ans: cancelled("ConditionalCheckFailed", "ThrottlingError")},
		{name: "all None", ans: cancelled("None", "")},
		{name: "validation reason", ans: cancelled("None", "ValidationError"), validation: true},
		{name: "ValidationException", ans: answer.Status(400, "ValidationException"), validation: true},
		{name: "replicated write conflict", ans: answer.Status(400, "ReplicatedWriteConflictException"), replicatedConflict: true},
		{name: "throttled", ans: answer.Status(400, "ThrottlingException")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := answered(t, tt.ans)
			reasons, ok := settle.Reasons(err)
			if got := ok && settle.ReasonsLostRace(reasons); got != tt.lostRace {
				t.Errorf("LostRace(%v) = %v, want %v", err, got, tt.lostRace)
			}
			if got := settle.IsValidation(err); got != tt.validation {
				t.Errorf("IsValidation(%v) = %v, want %v", err, got, tt.validation)
			}
			if got := settle.ReplicatedConflict(err); got != tt.replicatedConflict {
				t.Errorf("ReplicatedConflict(%v) = %v, want %v", err, got, tt.replicatedConflict)
			}
		})
	}
	if got := settle.Code(types.CancellationReason{}); got != settle.ReasonNone {
		t.Errorf("Code of a reason without a code = %q, want %q", got, settle.ReasonNone)
	}
}

func TestRequestToken(t *testing.T) {
	a, b := settle.RequestToken(), settle.RequestToken()
	if len(a) != 32 || strings.Trim(a, "0123456789abcdef") != "" || a == b {
		t.Errorf("RequestToken() = %q, then %q: want 32 hex digits, new each time", a, b)
	}
}
