package dynamoseq

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Codes of types.CancellationReason that a cancelled TransactWriteItems
// reports for each of its items.
const (
	reasonNone       = "None"                   // this item was fine
	reasonCondition  = "ConditionalCheckFailed" // its condition was false
	reasonConflict   = "TransactionConflict"    // another transaction held it
	reasonValidation = "ValidationException"    // the item itself was refused (too large, bad value)
)

// lostRace reports whether a write failed only because another writer got
// there first: a ConditionalCheckFailedException or TransactionConflictException
// of a single-item write, or a cancelled transaction whose reasons are all
// None, ConditionalCheckFailed or TransactionConflict. Such a write changed
// nothing and is worth retrying with fresh knowledge of the table.
func lostRace(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	var tc *types.TransactionConflictException
	if errors.As(err, &ccf) || errors.As(err, &tc) {
		return true
	}
	reasons, ok := cancellationReasons(err)
	if !ok {
		return false
	}
	raced := false
	for _, r := range reasons {
		switch aws.ToString(r.Code) {
		case "", reasonNone:
		case reasonCondition, reasonConflict:
			raced = true
		default:
			return false
		}
	}
	return raced
}

// cancellationReasons returns the per-item reasons of a cancelled
// TransactWriteItems, in the order of its items, and whether err is one.
func cancellationReasons(err error) ([]types.CancellationReason, bool) {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return nil, false
	}
	return tce.CancellationReasons, true
}

// refusedItems returns the indexes of the items of a cancelled transaction
// that DynamoDB refused for a reason other than a race (None,
// ConditionalCheckFailed, TransactionConflict), each with an error that says
// why: ErrInvalidArgument for a ValidationException (the item is too large,
// nests too deep, holds an empty set...), the bare reason otherwise. err is
// wrapped so that the SDK's TransactionCanceledException stays reachable.
func refusedItems(err error, describe func(i int) string) map[int]error {
	reasons, _ := cancellationReasons(err)
	refused := map[int]error{}
	for i, r := range reasons {
		code := aws.ToString(r.Code)
		switch code {
		case "", reasonNone, reasonCondition, reasonConflict:
			continue
		case reasonValidation:
			refused[i] = fmt.Errorf("%w: DynamoDB refused %s: %s: %s: %w",
				ErrInvalidArgument, describe(i), code, aws.ToString(r.Message), err)
		default:
			refused[i] = fmt.Errorf("transaction cancelled because of %s: %s: %s: %w",
				describe(i), code, aws.ToString(r.Message), err)
		}
	}
	return refused
}
