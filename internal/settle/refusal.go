package settle

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// Refusal is why DynamoDB refused a request, as far as it says what to do
// next. Whether an earlier attempt of the same request was applied is
// another question, Probe.Outcome's.
type Refusal int

const (
	// NotRefused: no error, or an error that is not DynamoDB refusing the
	// request: a network error, a server error, a context that ended, a
	// transaction still in progress. The write may have been applied.
	NotRefused Refusal = iota
	// ConditionFailed: a condition of the write failed
	// (ConditionalCheckFailedException, or a cancellation reason
	// ConditionalCheckFailed): another writer got there first. The item in
	// the way comes with it when the write asked for it.
	ConditionFailed
	// ConflictRefusal: another request held an item of the write at that moment
	// (TransactionConflictException, a cancellation reason
	// TransactionConflict, or an MRSC table's
	// ReplicatedWriteConflictException). Nothing was written and no item
	// comes with it; the same write may succeed a moment later.
	ConflictRefusal
	// ThrottleRefusal: the table, an index or the account was over its capacity
	// (ThrottlingException, ProvisionedThroughputExceededException,
	// RequestLimitExceeded, or a cancellation reason ThrottlingError or
	// ProvisionedThroughputExceeded). Nothing was written; the same write
	// may succeed after a wait.
	ThrottleRefusal
	// Invalid: the request cannot succeed as it is, however long one
	// waits: a validation error, a missing table, a full item collection,
	// parameters the SDK refuses, any other client error.
	Invalid
)

func (r Refusal) String() string {
	switch r {
	case NotRefused:
		return "not refused"
	case ConditionFailed:
		return "condition failed"
	case ConflictRefusal:
		return "conflict"
	case ThrottleRefusal:
		return "throttled"
	}
	return "invalid"
}

// Classify says why DynamoDB refused the request that returned err, by the
// SDK's typed errors and error codes (see
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html).
// A cancelled transaction is classified by its reasons: Invalid when one of
// them is neither None nor one of the reasons above (or there is none);
// else ConditionFailed when a failed condition returned its item (which
// tells the writer where to write next: worth more than a wait); else
// ConflictRefusal, else ThrottleRefusal, else ConditionFailed (a failed condition
// without its item).
func Classify(err error) Refusal {
	var (
		ccf        *types.ConditionalCheckFailedException
		conflict   *types.TransactionConflictException
		throttled  *types.ThrottlingException
		overPTE    *types.ProvisionedThroughputExceededException
		overLimit  *types.RequestLimitExceeded
		inProgress *types.TransactionInProgressException
		invalid    smithy.InvalidParamsError
	)
	if reasons, ok := Reasons(err); ok {
		return classifyReasons(reasons)
	}
	switch {
	case err == nil:
		return NotRefused
	case errors.As(err, &ccf):
		return ConditionFailed
	case errors.As(err, &conflict) || ReplicatedConflict(err):
		return ConflictRefusal
	case errors.As(err, &throttled) || errors.As(err, &overPTE) || errors.As(err, &overLimit):
		return ThrottleRefusal
	case errors.As(err, &inProgress):
		return NotRefused
	case errors.As(err, &invalid) || clientFault(err):
		return Invalid
	}
	return NotRefused
}

// clientFault reports whether err is DynamoDB's answer that the request is
// at fault: an error the SDK knows as a client fault, or any error code
// answered with an HTTP status 4xx (the SDK has no type, and so no fault,
// for ValidationException, AccessDeniedException and the like).
func clientFault(err error) bool {
	var api smithy.APIError
	if !errors.As(err, &api) {
		return false
	}
	if api.ErrorFault() == smithy.FaultClient {
		return true
	}
	var resp interface{ HTTPStatusCode() int }
	return errors.As(err, &resp) && resp.HTTPStatusCode() >= 400 && resp.HTTPStatusCode() < 500
}

// classifyReasons is Classify for the reasons of a cancelled transaction.
func classifyReasons(reasons []types.CancellationReason) Refusal {
	var failed, learned, conflict, throttled bool
	for _, r := range reasons {
		switch Code(r) {
		case ReasonNone:
		case ReasonConditionalCheckFailed:
			failed, learned = true, learned || r.Item != nil
		case ReasonTransactionConflict:
			conflict = true
		case ReasonThrottlingError, ReasonProvisionedThroughputExceeded:
			throttled = true
		default:
			return Invalid
		}
	}
	switch {
	case learned:
		return ConditionFailed
	case conflict:
		return ConflictRefusal
	case throttled:
		return ThrottleRefusal
	case failed:
		return ConditionFailed
	}
	return Invalid
}
