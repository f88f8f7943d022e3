package engine_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/dynamoseq/dynamoseq/internal/engine"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/answer"
)

// errUnknown stands for the root package's ErrUnknownOutcome.
var errUnknown = errors.New("outcome unknown")

// tce is a cancelled transaction with one reason per code: "" for a reason
// without a code, a code followed by "+item" for a failed condition that
// returned its item, "+key+item" for one that returned a key item.
func tce(codes ...string) error {
	var reasons []types.CancellationReason
	for _, c := range codes {
		var r types.CancellationReason
		code, withItem := strings.CutSuffix(c, "+item")
		code, withKey := strings.CutSuffix(code, "+key")
		if code != "" {
			r.Code = aws.String(code)
			r.Message = aws.String("reason " + code)
		}
		if withItem {
			r.Item = map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}
		}
		if withKey {
			r.Item = keyItem()
		}
		reasons = append(reasons, r)
	}
	return &types.TransactionCanceledException{Message: aws.String("cancelled"), CancellationReasons: reasons}
}

// keyItem is a key item as a failed condition returns it.
func keyItem() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a\x1fk"}, engine.KeyAttribute: &types.AttributeValueMemberS{Value: "h"}}
}

func api(code string, fault smithy.ErrorFault) error {
	return &smithy.GenericAPIError{Code: code, Message: "m", Fault: fault}
}

// TestDecideTyped: every error form the write paths meet, as the SDK types
// it, built by hand; the same forms wrapped follow in TestDecideWrapped.
func TestDecideTyped(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want engine.Verdict
	}{
		{"nil", nil, engine.Stored},
		{"condition failed", &types.ConditionalCheckFailedException{}, engine.LostRace},
		{"condition failed with its item", &types.ConditionalCheckFailedException{Item: map[string]types.AttributeValue{}}, engine.LostRace},
		{"provisioned throughput exceeded", &types.ProvisionedThroughputExceededException{}, engine.Throttled},
		{"throttling", &types.ThrottlingException{}, engine.Throttled},
		{"request limit exceeded", &types.RequestLimitExceeded{}, engine.Throttled},
		{"transaction conflict", &types.TransactionConflictException{}, engine.Conflict},
		{"replicated write conflict", &types.ReplicatedWriteConflictException{}, engine.LostRace},
		{"transaction in progress", &types.TransactionInProgressException{}, engine.Other},
		{"table not found", &types.ResourceNotFoundException{}, engine.Other},
		{"item collection too large", &types.ItemCollectionSizeLimitExceededException{}, engine.Other},
		{"idempotent parameter mismatch", &types.IdempotentParameterMismatchException{}, engine.Other},
		{"invalid parameters", &smithy.InvalidParamsError{Context: "PutItemInput"}, engine.Other},
		{"generic ValidationException", api("ValidationException", smithy.FaultUnknown), engine.RefusedItem},
		{"generic ValidationException, client fault", api("ValidationException", smithy.FaultClient), engine.RefusedItem},
		{"generic AccessDeniedException", api("AccessDeniedException", smithy.FaultClient), engine.Other},
		{"generic InternalServerError", api("InternalServerError", smithy.FaultServer), engine.Other},
		{"generic unknown code", api("SomethingNew", smithy.FaultUnknown), engine.Other},
		{"context cancelled", context.Canceled, engine.Other},
		{"deadline exceeded", context.DeadlineExceeded, engine.Other},
		{"connection refused", &net.OpError{Op: "dial", Err: errors.New("connection refused")}, engine.Other},
		{"connection reset", &net.OpError{Op: "read", Err: errors.New("connection reset by peer")}, engine.Other},
		{"answer cut", io.ErrUnexpectedEOF, engine.Other},
		{"the unknown sentinel", errUnknown, engine.Unknown},
		{"cancelled: None only", tce("None", ""), engine.Other},
		{"cancelled: no reasons", tce(), engine.Other},
		{"cancelled: condition", tce("None", "ConditionalCheckFailed"), engine.LostRace},
		{"cancelled: condition with its item", tce("ConditionalCheckFailed+item", "None"), engine.LostRace},
		{"cancelled: conflict", tce("TransactionConflict", "None"), engine.Conflict},
		{"cancelled: throttled, on-demand", tce("None", "ThrottlingError"), engine.Throttled},
		{"cancelled: throttled, provisioned", tce("ProvisionedThroughputExceeded", ""), engine.Throttled},
		{"cancelled: condition with its item before conflict", tce("TransactionConflict", "ConditionalCheckFailed+item"), engine.LostRace},
		{"cancelled: conflict before condition without item", tce("ConditionalCheckFailed", "TransactionConflict"), engine.Conflict},
		{"cancelled: conflict before throttle", tce("ThrottlingError", "TransactionConflict"), engine.Conflict},
		{"cancelled: throttle before condition without item", tce("ConditionalCheckFailed", "ThrottlingError"), engine.Throttled},
		{"cancelled: validation", tce("None", "ValidationError", "None"), engine.RefusedItem},
		{"cancelled: validation as exception", tce("ValidationException"), engine.RefusedItem},
		{"cancelled: validation beside a condition with its item", tce("ConditionalCheckFailed+item", "ValidationError"), engine.RefusedItem},
		{"cancelled: validation beside a throttle", tce("ThrottlingError", "ValidationError"), engine.RefusedItem},
		{"cancelled: validation beside a conflict", tce("TransactionConflict", "ValidationError"), engine.RefusedItem},
		{"cancelled: full item collection", tce("None", "ItemCollectionSizeLimitExceeded"), engine.Other},
		{"cancelled: full item collection beside a validation", tce("ItemCollectionSizeLimitExceeded", "ValidationError"), engine.RefusedItem},
		{"cancelled: unknown code", tce("SomethingNew", "ConditionalCheckFailed+item"), engine.Other},
		{"condition failed with a key item", &types.ConditionalCheckFailedException{Item: keyItem()}, engine.KeyTaken},
		{"cancelled: key taken", tce("None", "ConditionalCheckFailed+key+item"), engine.KeyTaken},
		{"cancelled: key taken beside a lost race", tce("ConditionalCheckFailed+item", "ConditionalCheckFailed+key+item"), engine.KeyTaken},
		{"cancelled: key taken beside a conflict", tce("TransactionConflict", "ConditionalCheckFailed+key+item"), engine.KeyTaken},
		{"cancelled: key taken beside a validation", tce("ValidationError", "ConditionalCheckFailed+key+item"), engine.RefusedItem},
		{"cancelled: key taken, unknown outcome", fmt.Errorf("%w: resent: %w", errUnknown, tce("ConditionalCheckFailed+key+item")), engine.Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := engine.Decide(tt.err, errUnknown); got != tt.want {
				t.Errorf("Decide(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

// TestDecideWrapped: an error keeps its verdict however it is wrapped, and
// the unknown sentinel wins over the last error it wraps (a write left
// unsettled whose last resend was throttled, refused a conflict, or lost a
// race is still unknown: an earlier send may have been applied).
func TestDecideWrapped(t *testing.T) {
	forms := map[string]func(error) error{
		"%w":             func(err error) error { return fmt.Errorf("dynamoseq: write: %w", err) },
		"%w twice":       func(err error) error { return fmt.Errorf("a: %w", fmt.Errorf("b: %w", err)) },
		"errors.Join":    func(err error) error { return errors.Join(err, context.Canceled) },
		"errors.Join, 2": func(err error) error { return errors.Join(io.EOF, err) },
		"smithy op": func(err error) error {
			return &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "PutItem", Err: err}
		},
	}
	errs := []struct {
		err  error
		want engine.Verdict
	}{
		{&types.ConditionalCheckFailedException{}, engine.LostRace},
		{&types.ThrottlingException{}, engine.Throttled},
		{&types.ProvisionedThroughputExceededException{}, engine.Throttled},
		{&types.RequestLimitExceeded{}, engine.Throttled},
		{&types.TransactionConflictException{}, engine.Conflict},
		{&types.ReplicatedWriteConflictException{}, engine.LostRace},
		{tce("None", "ValidationError"), engine.RefusedItem},
		{tce("ConditionalCheckFailed+item", "TransactionConflict"), engine.LostRace},
		{tce("None", "ConditionalCheckFailed+key+item"), engine.KeyTaken},
		{&types.ConditionalCheckFailedException{Item: keyItem()}, engine.KeyTaken},
		{api("ValidationException", smithy.FaultClient), engine.RefusedItem},
		{errUnknown, engine.Unknown},
		{fmt.Errorf("%w: resent 3 times: %w", errUnknown, &types.ThrottlingException{}), engine.Unknown},
		{fmt.Errorf("%w: resent 3 times: %w", errUnknown, &types.ConditionalCheckFailedException{}), engine.Unknown},
		{fmt.Errorf("%w: resent: %w", errUnknown, tce("TransactionConflict")), engine.Unknown},
		{fmt.Errorf("%w: resent: %w", errUnknown, api("ValidationException", smithy.FaultClient)), engine.Unknown},
		{errors.Join(fmt.Errorf("%w: resent", errUnknown), context.DeadlineExceeded), engine.Unknown},
	}
	for name, wrap := range forms {
		for _, e := range errs {
			if got := engine.Decide(wrap(e.err), errUnknown); got != e.want {
				t.Errorf("Decide(%s of %v) = %v, want %v", name, e.err, got, e.want)
			}
		}
	}
}

// TestDecideAnswered: the answers DynamoDB gives, as the SDK deserializes
// them from the wire, and the Resender's account of a write it could not
// settle.
func TestDecideAnswered(t *testing.T) {
	tests := []struct {
		name string
		ans  answer.Func
		want engine.Verdict
	}{
		{"validation, a code the SDK has no type for", answer.Status(400, "ValidationException"), engine.RefusedItem},
		{"replicated write conflict", answer.Status(400, "ReplicatedWriteConflictException"), engine.LostRace},
		{"throttled, account", answer.Status(400, "RequestLimitExceeded"), engine.Throttled},
		{"access denied", answer.Status(400, "AccessDeniedException"), engine.Other},
		{"server error, left unsettled", answer.Status(500, "InternalServerError"), engine.Unknown},
		{"answer lost, left unsettled", answer.Reset, engine.Unknown},
		{"not sent", answer.RefusedDial, engine.Other},
		{"cancelled: validation", cancelled(`"None"`, `"ValidationError"`), engine.RefusedItem},
		{"cancelled: conflict", cancelled(`"TransactionConflict"`, `"None"`), engine.Conflict},
		{"cancelled: throttled", cancelled(`"ThrottlingError"`), engine.Throttled},
		{"cancelled: condition", cancelled(`"None"`, `"ConditionalCheckFailed"`), engine.LostRace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := answer.Client(&answer.Transport{Answer: tt.ans}, 1)
			r := engine.Resender{Timeout: 20 * time.Millisecond, Unknown: errUnknown}
			err := r.Send(context.Background(), func(ctx context.Context, optFn func(*dynamodb.Options)) error {
				_, err := client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
					TransactItems: []types.TransactWriteItem{{Put: &types.Put{TableName: aws.String("t"),
						Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}}}},
				}, optFn)
				return err
			})
			if got := engine.Decide(err, errUnknown); got != tt.want {
				t.Errorf("Decide(%v) = %v, want %v", err, got, tt.want)
			}
		})
	}
}

// cancelled answers with a TransactionCanceledException whose reasons have
// the codes given (JSON strings).
func cancelled(codes ...string) answer.Func {
	reasons := make([]string, len(codes))
	for i, c := range codes {
		reasons[i] = `{"Code":` + c + `}`
	}
	return answer.JSON(400, `{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","message":"cancelled",`+
		`"CancellationReasons":[`+strings.Join(reasons, ",")+`]}`)
}

// TestCancelledFaults: the actions a cancelled transaction names as refused for what
// they are, and only those.
func TestCancelledFaults(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want []engine.Fault
	}{
		{"not cancelled", api("ValidationException", smithy.FaultClient), nil},
		{"races and capacity", tce("None", "ConditionalCheckFailed+item", "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded", ""), nil},
		{"validation", tce("None", "ValidationError"), []engine.Fault{{Index: 1, Code: "ValidationError", Message: "reason ValidationError", Invalid: true}}},
		{"two kinds", fmt.Errorf("w: %w", tce("ItemCollectionSizeLimitExceeded", "None", "ValidationException")), []engine.Fault{
			{Index: 0, Code: "ItemCollectionSizeLimitExceeded", Message: "reason ItemCollectionSizeLimitExceeded"},
			{Index: 2, Code: "ValidationException", Message: "reason ValidationException", Invalid: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := engine.Faults(tt.err)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("Faults(%v) = %+v, want %+v", tt.err, got, tt.want)
			}
		})
	}
}

// cancelledReasons answers a TransactWriteItems with a TransactionCanceledException
// whose reasons have the codes given ("" for a reason without a code; a
// code followed by "+item" comes with the item that failed the condition).
func cancelledReasons(codes ...string) answer.Func {
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
		want engine.Refusal
	}{
		{"condition failed", answer.Status(400, "ConditionalCheckFailedException"), engine.ConditionFailed},
		{"transaction conflict", answer.Status(400, "TransactionConflictException"), engine.ConflictRefusal},
		{"replicated write conflict", answer.Status(400, "ReplicatedWriteConflictException"), engine.ConflictRefusal},
		{"throttled, on-demand", answer.Status(400, "ThrottlingException"), engine.ThrottleRefusal},
		{"throttled, provisioned", answer.Status(400, "ProvisionedThroughputExceededException"), engine.ThrottleRefusal},
		{"throttled, account", answer.Status(400, "RequestLimitExceeded"), engine.ThrottleRefusal},
		{"validation", answer.Status(400, "ValidationException"), engine.Invalid},
		{"access denied", answer.Status(400, "AccessDeniedException"), engine.Invalid},
		{"table not found", answer.Status(400, "ResourceNotFoundException"), engine.Invalid},
		{"idempotent parameter mismatch", answer.Status(400, "IdempotentParameterMismatchException"), engine.Invalid},
		{"in progress", answer.Status(400, "TransactionInProgressException"), engine.NotRefused},
		{"server error", answer.Status(500, "InternalServerError"), engine.NotRefused},
		{"unavailable", answer.Status(503, "ServiceUnavailable"), engine.NotRefused},
		{"answer lost", answer.Reset, engine.NotRefused},
		{"not sent", answer.RefusedDial, engine.NotRefused},
		{"cancelled: condition", cancelledReasons("None", "ConditionalCheckFailed"), engine.ConditionFailed},
		{"cancelled: conflict", cancelledReasons("TransactionConflict", "None"), engine.ConflictRefusal},
		{"cancelled: throttled, on-demand", cancelledReasons("None", "ThrottlingError"), engine.ThrottleRefusal},
		{"cancelled: throttled, provisioned", cancelledReasons("ProvisionedThroughputExceeded", ""), engine.ThrottleRefusal},
		{"cancelled: condition with its item before conflict", cancelledReasons("TransactionConflict", "ConditionalCheckFailed+item"), engine.ConditionFailed},
		{"cancelled: conflict before condition without item", cancelledReasons("TransactionConflict", "ConditionalCheckFailed"), engine.ConflictRefusal},
		{"cancelled: conflict before throttled", cancelledReasons("ThrottlingError", "TransactionConflict"), engine.ConflictRefusal},
		{"cancelled: condition with its item before throttled", cancelledReasons("ThrottlingError", "ConditionalCheckFailed+item"), engine.ConditionFailed},
		{"cancelled: throttled before condition without item", cancelledReasons("ThrottlingError", "ConditionalCheckFailed"), engine.ThrottleRefusal},
		{"cancelled: validation", cancelledReasons("None", "ValidationError"), engine.Invalid},
		{"cancelled: validation wins", cancelledReasons("ConditionalCheckFailed", "ValidationError"), engine.Invalid},
		{"cancelled: item collection full", cancelledReasons("ItemCollectionSizeLimitExceeded"), engine.Invalid},
		{"cancelled: a code not documented", cancelledReasons("SomethingNew", "ThrottlingError"), engine.Invalid},
		{"cancelled: no reason", cancelledReasons("None", ""), engine.Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := answered(t, tt.ans)
			if got := engine.Classify(err); got != tt.want {
				t.Errorf("Classify(%v) = %v, want %v", err, got, tt.want)
			}
		})
	}
	if got := engine.Classify(nil); got != engine.NotRefused {
		t.Errorf("Classify(nil) = %v, want %v", got, engine.NotRefused)
	}
	client := answer.Client(&answer.Transport{Answer: answer.Reset}, 1)
	_, err := client.PutItem(context.Background(), &dynamodb.PutItemInput{})
	if got := engine.Classify(err); got != engine.Invalid {
		t.Errorf("Classify(%v) = %v, want %v (parameters the SDK refuses)", err, got, engine.Invalid)
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
		{name: "condition", ans: cancelledReasons("None", "ConditionalCheckFailed"), lostRace: true},
		{name: "conflict", ans: cancelledReasons("TransactionConflict", ""), lostRace: true},
		{name: "condition and throttled", ans: cancelledReasons("ConditionalCheckFailed", "ThrottlingError")},
		{name: "all None", ans: cancelledReasons("None", "")},
		{name: "validation reason", ans: cancelledReasons("None", "ValidationError"), validation: true},
		{name: "ValidationException", ans: answer.Status(400, "ValidationException"), validation: true},
		{name: "replicated write conflict", ans: answer.Status(400, "ReplicatedWriteConflictException"), replicatedConflict: true},
		{name: "throttled", ans: answer.Status(400, "ThrottlingException")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := answered(t, tt.ans)
			reasons, ok := engine.Reasons(err)
			if got := ok && engine.ReasonsLostRace(reasons); got != tt.lostRace {
				t.Errorf("LostRace(%v) = %v, want %v", err, got, tt.lostRace)
			}
			if got := engine.IsValidation(err); got != tt.validation {
				t.Errorf("IsValidation(%v) = %v, want %v", err, got, tt.validation)
			}
			if got := engine.ReplicatedConflict(err); got != tt.replicatedConflict {
				t.Errorf("ReplicatedConflict(%v) = %v, want %v", err, got, tt.replicatedConflict)
			}
		})
	}
	if got := engine.Code(types.CancellationReason{}); got != engine.ReasonNone {
		t.Errorf("Code of a reason without a code = %q, want %q", got, engine.ReasonNone)
	}
}

func TestRequestToken(t *testing.T) {
	a, b := engine.RequestToken(), engine.RequestToken()
	if len(a) != 32 || strings.Trim(a, "0123456789abcdef") != "" || a == b {
		t.Errorf("RequestToken() = %q, then %q: want 32 hex digits, new each time", a, b)
	}
}
