package dynamoseq

import (
	"crypto/rand"
	"encoding/hex"
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// Limits of one TransactWriteItems call.
const (
	maxTransactItems = 100
	maxTransactBytes = 4 * 1024 * 1024
)

// Cancellation reason codes of a TransactionCanceledException, as DynamoDB
// documents them. A transaction is cancelled as a whole; each action gets
// one code, "None" for the actions that were not the cause.
const (
	reasonNone                   = "None"
	reasonConditionalCheckFailed = "ConditionalCheckFailed"
	reasonTransactionConflict    = "TransactionConflict"
)

// cancelReasons returns the cancellation reasons of a cancelled transaction,
// one per action in the order of the request, and whether err is one.
func cancelReasons(err error) ([]types.CancellationReason, bool) {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return nil, false
	}
	return tce.CancellationReasons, true
}

// lostRace reports whether every reason of a cancelled transaction is a
// failed condition or a conflict with another transaction (or None): the
// writer's view of the items was stale, and a retry after a fresh read can
// succeed. Any other reason (ValidationError, ThrottlingError,
// ItemCollectionSizeLimitExceeded, ...) will not go away by retrying.
func lostRace(reasons []types.CancellationReason) bool {
	lost := false
	for _, r := range reasons {
		switch code := reasonCode(r); code {
		case reasonNone:
		case reasonConditionalCheckFailed, reasonTransactionConflict:
			lost = true
		default:
			return false
		}
	}
	return lost
}

func reasonCode(r types.CancellationReason) string {
	if r.Code == nil {
		return reasonNone
	}
	return *r.Code
}

// newRequestToken returns a ClientRequestToken for TransactWriteItems: 32
// random hex digits (DynamoDB allows 1 to 36 characters).
func newRequestToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// apiCode is the error code of a service error, "" for any other error.
func apiCode(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}
