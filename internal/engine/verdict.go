package engine

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// Verdict is what the answer to one write says about the table, and so what
// the writer may do next. Every strategy takes the same verdict for the same
// answer; what it does with it is its own (a Counter's failed condition is
// its MaxValue, a SortKey's is a lost race).
type Verdict int

const (
	// Stored: DynamoDB applied the write.
	Stored Verdict = iota
	// Unknown: the write was sent, and its outcome could not be found out
	// (the resends of Resender did not settle it): the table may
	// hold it, or may yet. Nothing may be written after it that a stored
	// write would contradict.
	Unknown
	// Throttled: the table, an index or the account was over its capacity.
	// Nothing was written; the same write may succeed after a wait.
	Throttled
	// Conflict: another transaction held an item of the write at that
	// moment. Nothing was written; the same write may succeed after a wait.
	Conflict
	// LostRace: another writer got there first: a condition of the write
	// failed (the item in the way comes with it when the write asked for
	// it), or, on a multi-Region strongly consistent table, another Region
	// wrote the item at the same moment. Nothing was written; the writer's
	// view of the items is stale.
	LostRace
	// RefusedItem: DynamoDB refused what the write carries as invalid (a
	// ValidationException, or a cancelled transaction with a
	// ValidationError among its reasons): nothing was written, and the same
	// request would be refused again. In a transaction, the reasons name
	// the items at fault when DynamoDB says (Refused).
	RefusedItem
	// KeyTaken: the condition on a caller's key item failed (an item that
	// holds KeyAttribute, returned with the refusal): another call with
	// the same idempotency key stored its number first, within its
	// window. Nothing was written; the calls whose key is taken leave the
	// write (KeyItems tells which), and the others may be written again.
	KeyTaken
	// Other: any other error (a missing table, a full item collection, a
	// denied access, parameters the SDK refuses, a context that ended
	// before the write was sent, DynamoDB unreachable before it was sent):
	// nothing the writer can do changes it by retrying at once.
	Other
)

func (v Verdict) String() string {
	switch v {
	case Stored:
		return "stored"
	case Unknown:
		return "outcome unknown"
	case Throttled:
		return "throttled"
	case Conflict:
		return "conflict"
	case LostRace:
		return "lost race"
	case RefusedItem:
		return "refused item"
	case KeyTaken:
		return "key taken"
	}
	return "other"
}

// Decide is the decision table of a write's outcome: err is the error of
// one write, as Resender.Send returns it, and unknown the sentinel
// that the error of a write left unsettled wraps (Resender.Unknown). The
// rows are taken in order, the first that matches wins:
//
//	err == nil                                     Stored
//	errors.Is(err, unknown)                        Unknown
//	a cancelled transaction with a ValidationError
//	  (or ValidationException) reason, or a
//	  ValidationException                          RefusedItem
//	ReplicatedWriteConflictException               LostRace
//	a failed condition returned a key item
//	  (KeyItems)                                   KeyTaken
//	Classify: ConditionFailed               LostRace
//	Classify: Throttled                     Throttled
//	Classify: Conflict                      Conflict
//	anything else                                  Other
//
// A cancelled transaction is read by its reasons (Classify): a failed
// condition that returned its item wins over a conflict, a conflict over a
// throttle, a throttle over a failed condition without its item; a reason
// outside these (ItemCollectionSizeLimitExceeded, an unknown code) makes it
// Other, unless one of them is a ValidationError.
func Decide(err, unknown error) Verdict {
	switch {
	case err == nil:
		return Stored
	case errors.Is(err, unknown):
		return Unknown
	case refused(err):
		return RefusedItem
	case ReplicatedConflict(err):
		return LostRace
	case len(KeyItems(err)) > 0:
		return KeyTaken
	}
	switch Classify(err) {
	case ConditionFailed:
		return LostRace
	case ThrottleRefusal:
		return Throttled
	case ConflictRefusal:
		return Conflict
	}
	return Other
}

// DecideWrite is Decide for the write of calls, whose key items have the
// partition key attribute pkAttr: a failed condition that returned an item
// holding KeyAttribute is KeyTaken only when the item is the key item of
// one of the calls (its partition key is a call's Key). Any other such
// item is a sequence's (an item of the caller's that set the attribute
// before the library reserved it): the item in the way of a lost race, as
// Classify reads it. A write without keys allocates nothing more.
func DecideWrite[Req any, R Batched[Req]](err, unknown error, calls []*Call[Req, int64], pkAttr string) Verdict {
	v := Decide(err, unknown)
	if v != KeyTaken {
		return v
	}
	for _, item := range KeyItems(err) {
		pk, ok := item[pkAttr].(*types.AttributeValueMemberS)
		if !ok {
			continue
		}
		for _, c := range calls {
			if k := R(&c.Req).Key(); k != "" && k == pk.Value {
				return KeyTaken
			}
		}
	}
	return LostRace
}

// refused reports whether DynamoDB refused the request as invalid for what
// it carries: a ValidationException, or a cancelled transaction with a
// ValidationError (or ValidationException) among its reasons.
func refused(err error) bool {
	if reasons, ok := Reasons(err); ok {
		for _, r := range reasons {
			if invalidReason(Code(r)) {
				return true
			}
		}
		return false
	}
	return IsValidation(err)
}

// invalidReason reports whether a cancellation reason's code says that
// DynamoDB refused its action as invalid.
func invalidReason(code string) bool {
	return code == ReasonValidationError || code == ReasonValidationException
}

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
