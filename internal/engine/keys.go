package engine

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// KeyAttribute is the attribute that marks a key item: the item that holds
// a caller's idempotency key for a sequence (the root package's keys.go
// writes it, with the hash of the call's content). A write that stores a
// key item conditions it on the key being free and asks for the item in
// the way on a failed condition (ReturnValuesOnConditionCheckFailure
// ALL_OLD), so that a refusal carries the key item that holds the key, and
// Decide tells a key taken from a race lost on a number by it.
const KeyAttribute = "dynamoseq_key"

// KeyItems returns the key items (items holding KeyAttribute) that came
// back with the failed conditions of err: from the cancellation reasons
// ConditionalCheckFailed of a cancelled transaction, or from a
// ConditionalCheckFailedException. It returns nil when there is none.
func KeyItems(err error) []map[string]types.AttributeValue {
	var items []map[string]types.AttributeValue
	if reasons, ok := Reasons(err); ok {
		for _, r := range reasons {
			if Code(r) == ReasonConditionalCheckFailed && r.Item[KeyAttribute] != nil {
				items = append(items, r.Item)
			}
		}
		return items
	}
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) && ccf.Item[KeyAttribute] != nil {
		items = append(items, ccf.Item)
	}
	return items
}
