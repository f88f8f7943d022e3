package dynamoseq

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// sdkError is an error of the SDK as the library's messages name it: the
// operation and DynamoDB's error code once, with a transaction's
// cancellation reasons counted ("TransactWriteItems cancelled: ThrottlingError
// x16")
// instead of the SDK's text, which repeats a reason per item and adds the
// HTTP status and request ID. errors.Is and errors.As see the SDK's error
// whole through it: every cancellation reason, the request ID, the
// context's error.
type sdkError struct {
	op  string // the DynamoDB operation, such as "TransactWriteItems"
	err error  // the SDK's error
}

// maxSDKMessage bounds the part of DynamoDB's own message an sdkError
// repeats (a ValidationException's says what is wrong with the request).
const maxSDKMessage = 80

// briefSDK returns err, an error of the client's op, as an *sdkError; nil
// for nil.
func briefSDK(op string, err error) error {
	if err == nil {
		return nil
	}
	return &sdkError{op: op, err: err}
}

func (e *sdkError) Error() string {
	var canceled *types.TransactionCanceledException
	if errors.As(e.err, &canceled) {
		return e.op + " cancelled: " + countReasons(canceled.CancellationReasons)
	}
	return e.op + ": " + sdkSummary(e.err)
}

func (e *sdkError) Unwrap() error { return e.err }

// sdkSummary names what err says in a few words: DynamoDB's error code
// (with the start of DynamoDB's message), the
// context's error, the network error, or, for anything else, err's text
// cut to its last part.
func sdkSummary(err error) string {
	var api smithy.APIError
	var op *net.OpError
	switch {
	case errors.As(err, &api):
		if msg := api.ErrorMessage(); msg != "" {
			return api.ErrorCode() + ": " + clip(msg)
		}
		return api.ErrorCode()
	case errors.Is(err, context.DeadlineExceeded):
		return context.DeadlineExceeded.Error()
	case errors.Is(err, context.Canceled):
		return context.Canceled.Error()
	case errors.As(err, &op):
		return op.Error()
	}
	return clip(err.Error())
}

// countReasons writes a transaction's cancellation reasons as their codes,
// each once with its count, in the order they first appear:
// "None x15, ValidationError".
func countReasons(reasons []types.CancellationReason) string {
	var order []string
	n := map[string]int{}
	for _, r := range reasons {
		code := "None"
		if r.Code != nil {
			code = *r.Code
		}
		if n[code] == 0 {
			order = append(order, code)
		}
		n[code]++
	}
	parts := make([]string, len(order))
	for i, code := range order {
		parts[i] = code
		if n[code] > 1 {
			parts[i] = fmt.Sprintf("%s x%d", code, n[code])
		}
	}
	if len(parts) == 0 {
		return "no reasons given"
	}
	return strings.Join(parts, ", ")
}

// clip returns msg cut to maxSDKMessage bytes.
func clip(msg string) string {
	if len(msg) > maxSDKMessage {
		return strings.ToValidUTF8(msg[:maxSDKMessage], "") + "..."
	}
	return msg
}
