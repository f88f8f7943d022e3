package dynamoseq

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/internal/engine"
)

// What a lost race tells a SortKey writer. Every Put of a SortKey asks
// DynamoDB to return the item that failed its condition
// (ReturnValuesOnConditionCheckFailure ALL_OLD: no extra round trip, no
// extra capacity), and every item carries, in its write token, the last
// number of the write that stored it. So the writer that lost number n
// learns from its refused write that the write which took n stored every
// number up to e, and writes again at e+1 at once, instead of backing off
// and querying the last number: a lost race costs one round trip, not two
// plus a wait.

// learn sets the hint from a write that lost a race, err, and reports
// whether it learned the last number, from the items returned (see
// headOf). It learns nothing from a conflict with a transaction in flight.
// A turn named by the items returned is recorded (see turns).
func (s *SortKey) learn(h *hint, err error) bool {
	head, tn, ok := s.headOf(err)
	if ok {
		h.last, h.known = head, true
		h.Saw(tn, s.opts.MaxDelay)
	}
	return ok
}

// headOf returns the largest number that the items returned with the failed
// conditions of err prove stored: each item's own number, or the last
// number of the write that stored it (from its token) when larger; and the
// end of the turn of the write that stored it, if any. ok is false when err
// returned no item (a conflict with a transaction in flight, or a check on
// a missing number).
func (s *SortKey) headOf(err error) (head int64, tn engine.Turn, ok bool) {
	var items []map[string]types.AttributeValue
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		items = append(items, ccf.Item)
	}
	reasons, _ := engine.Reasons(err)
	for _, r := range reasons {
		items = append(items, r.Item)
	}
	for _, item := range items {
		if n, end, found := s.storedUpTo(item); found && n > head {
			head, tn, ok = n, end, true
		}
	}
	return head, tn, ok
}

// storedUpTo returns the number of item, or the last number of the write
// that stored it when its token says so (items written before tokens held
// it say nothing more than their own number), and the end of the turn that
// write belonged to, if any.
func (s *SortKey) storedUpTo(item map[string]types.AttributeValue) (_ int64, tn engine.Turn, _ bool) {
	key, found := item[s.opts.SortKey]
	if !found {
		return 0, tn, false
	}
	n, err := s.codec.parse(key)
	if err != nil {
		return 0, tn, false
	}
	if tok, isString := item[s.opts.TokenAttribute].(*types.AttributeValueMemberS); isString {
		last, tn, ok := engine.ParseToken(tok.Value)
		// One write stores at most engine.MaxTransactItems numbers: an end
		// further on was not written by this library, and is not believed
		// (gap-freedom rests on it).
		if ok && last > n && last <= s.max && last-n < engine.MaxTransactItems {
			return last, tn, true
		}
		return n, tn, true
	}
	return n, tn, true
}
