package engine

import (
	"github.com/aws/aws-sdk-go-v2/aws"
)

// Fault is an action of a cancelled transaction that DynamoDB refused for a
// reason other than a race or a want of capacity (None,
// ConditionalCheckFailed, TransactionConflict, ThrottlingError and
// ProvisionedThroughputExceeded are not faults).
type Fault struct {
	Index   int    // the action's place in the request, from 0
	Code    string // the cancellation reason's code
	Message string // the reason's message, "" when it has none
	// Invalid says that the action itself is invalid (ValidationError):
	// its item is refused, and the others of the transaction may be
	// written without it. Any other fault (a full item collection, an
	// unknown code) fails the whole transaction.
	Invalid bool
}

// Faults returns the actions of a cancelled transaction that DynamoDB
// refused for what they are, in the order of the request; none when err is
// not a cancelled transaction, or when its reasons do not name the action
// at fault (DynamoDB Local refuses some invalid items with a
// ValidationException for the whole request).
func Faults(err error) []Fault {
	reasons, _ := Reasons(err)
	var faults []Fault
	for i, r := range reasons {
		switch code := Code(r); code {
		case ReasonNone, ReasonConditionalCheckFailed, ReasonTransactionConflict,
			ReasonThrottlingError, ReasonProvisionedThroughputExceeded:
		default:
			faults = append(faults, Fault{Index: i, Code: code, Message: aws.ToString(r.Message), Invalid: invalidReason(code)})
		}
	}
	return faults
}
