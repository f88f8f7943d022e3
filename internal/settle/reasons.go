package settle

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// Cancellation reason codes of a TransactionCanceledException, as DynamoDB
// documents them in the API reference of TransactWriteItems
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html).
// A transaction is cancelled as a whole; each action gets one code, None
// for the actions that were not the cause.
const (
	ReasonNone                            = "None"
	ReasonConditionalCheckFailed          = "ConditionalCheckFailed"
	ReasonTransactionConflict             = "TransactionConflict"
	ReasonThrottlingError                 = "ThrottlingError"               // an on-demand table or index over its capacity
	ReasonProvisionedThroughputExceeded   = "ProvisionedThroughputExceeded" // a provisioned table or index over its capacity
	ReasonValidationError                 = "ValidationError"
	ReasonItemCollectionSizeLimitExceeded = "ItemCollectionSizeLimitExceeded"
	// ReasonValidationException is not among the documented codes; it is
	// taken as ValidationError where an item's refusal is read.
	ReasonValidationException = "ValidationException"
)

// codeValidation is the error code of a request DynamoDB refuses as invalid;
// the SDK has no typed error for it.
const codeValidation = "ValidationException"

// Reasons returns the cancellation reasons of a cancelled transaction, one
// per action in the order of the request, and whether err is one.
func Reasons(err error) ([]types.CancellationReason, bool) {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return nil, false
	}
	return tce.CancellationReasons, true
}

// Code is the code of a cancellation reason; ReasonNone when it has none.
func Code(r types.CancellationReason) string {
	if r.Code == nil {
		return ReasonNone
	}
	return *r.Code
}

// ReasonsLostRace reports whether every reason of a cancelled transaction is a
// failed condition or a conflict with another transaction (or None): the
// writer's view of the items was stale, and a retry after a fresh read can
// succeed. Any other reason (ValidationError, ThrottlingError,
// ItemCollectionSizeLimitExceeded, ...) will not go away by retrying at
// once. Classify tells a conflict and throttling apart from a failed
// condition.
func ReasonsLostRace(reasons []types.CancellationReason) bool {
	lost := false
	for _, r := range reasons {
		switch Code(r) {
		case ReasonNone:
		case ReasonConditionalCheckFailed, ReasonTransactionConflict:
			lost = true
		default:
			return false
		}
	}
	return lost
}

// knownReasons reports whether every cancellation reason is one DynamoDB
// documents for a transaction it did not apply (or ValidationException).
func knownReasons(reasons []types.CancellationReason) bool {
	for _, r := range reasons {
		switch Code(r) {
		case ReasonNone, ReasonConditionalCheckFailed, ReasonTransactionConflict,
			ReasonValidationError, ReasonValidationException, ReasonItemCollectionSizeLimitExceeded,
			ReasonThrottlingError, ReasonProvisionedThroughputExceeded:
		default:
			return false
		}
	}
	return true
}

// IsValidation reports whether DynamoDB refused the request as invalid: a
// ValidationException, or a cancelled transaction with a ValidationError
// among its reasons. The same request would be refused again.
func IsValidation(err error) bool {
	if reasons, ok := Reasons(err); ok {
		for _, r := range reasons {
			if Code(r) == ReasonValidationError {
				return true
			}
		}
		return false
	}
	return apiCode(err) == codeValidation
}

// ReplicatedConflict reports whether err is a multi-Region strongly
// consistent table's refusal of a write because another Region wrote the
// same item at the same moment (ReplicatedWriteConflictException). Nothing
// was written; the write may be sent again.
func ReplicatedConflict(err error) bool {
	var conflict *types.ReplicatedWriteConflictException
	return errors.As(err, &conflict)
}

// apiCode is the error code of a service error, "" for any other error.
func apiCode(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}
