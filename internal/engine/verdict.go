// Package engine is the library's write engine: what the strategies
// (the root package's SortKey, Latest and Counter, with and without
// transactions) share of a batch's life, and the one decision every
// write path takes on the answer to a write (Decide).
//
// A strategy builds its requests and reads its answers; what an error
// means is read here, once, by the SDK's typed errors and error codes (see
// internal/settle), never by message text. The pieces of a batch's life
// (batch.go) size a transaction (BatchLen), publish the numbers a write is
// about to store (Publish), put calls back in the queue after a lost race
// (RaceLost, PutBack), split a batch DynamoDB refused as a whole
// (OneByOne), and keep a hot name's callers together (Linger); the queue
// itself is internal/combine's.
package engine

import (
	"errors"

	"github.com/dynamoseq/dynamoseq/internal/settle"
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
	// (the resends of settle.Resender did not settle it): the table may
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
	}
	return "other"
}

// Decide is the decision table of a write's outcome: err is the error of
// one write, as settle.Resender.Send returns it, and unknown the sentinel
// that the error of a write left unsettled wraps (Resender.Unknown). The
// rows are taken in order, the first that matches wins:
//
//	err == nil                                     Stored
//	errors.Is(err, unknown)                        Unknown
//	a cancelled transaction with a ValidationError
//	  (or ValidationException) reason, or a
//	  ValidationException                          RefusedItem
//	ReplicatedWriteConflictException               LostRace
//	settle.Classify: ConditionFailed               LostRace
//	settle.Classify: Throttled                     Throttled
//	settle.Classify: Conflict                      Conflict
//	anything else                                  Other
//
// A cancelled transaction is read by its reasons (settle.Classify): a failed
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
	case settle.ReplicatedConflict(err):
		return LostRace
	}
	switch settle.Classify(err) {
	case settle.ConditionFailed:
		return LostRace
	case settle.ThrottleRefusal:
		return Throttled
	case settle.ConflictRefusal:
		return Conflict
	}
	return Other
}

// refused reports whether DynamoDB refused the request as invalid for what
// it carries: a ValidationException, or a cancelled transaction with a
// ValidationError (or ValidationException) among its reasons.
func refused(err error) bool {
	if reasons, ok := settle.Reasons(err); ok {
		for _, r := range reasons {
			if invalidReason(settle.Code(r)) {
				return true
			}
		}
		return false
	}
	return settle.IsValidation(err)
}

// invalidReason reports whether a cancellation reason's code says that
// DynamoDB refused its action as invalid.
func invalidReason(code string) bool {
	return code == settle.ReasonValidationError || code == settle.ReasonValidationException
}
