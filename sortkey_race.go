package dynamoseq

import (
	"errors"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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

// learn sets the hint from a write that lost a race, err, which wrote from
// first (with check, after checking first-1) and reports whether it learned
// the last number: from the items returned (see headOf), or, when only the
// check failed, first-2, which the writer knew was stored. It learns
// nothing from a conflict with a transaction in flight.
func (s *SortKey) learn(h *hint, err error, first int64, check bool) bool {
	if head, ok := s.headOf(err); ok {
		h.last, h.known = head, true
		return true
	}
	if reasons, _ := cancelReasons(err); check && len(reasons) > 0 && reasonCode(reasons[0]) == reasonConditionalCheckFailed {
		h.last, h.known = first-2, true
		return true
	}
	return false
}

// itemToken returns the value of the token attribute of the items of one
// write: the write's request token, then a colon and the last number the
// write stores. Every attempt of the write carries the same value.
func itemToken(token string, last int64) string {
	return token + ":" + strconv.FormatInt(last, 10)
}

// itemTokenBytes is the largest size of an item token: 32 hex digits, a
// colon, and up to 19 digits.
const itemTokenBytes = 32 + 1 + 19

// headOf returns the largest number that the items returned with the failed
// conditions of err prove stored: each item's own number, or the last
// number of the write that stored it (from its token) when larger. ok is
// false when err returned no item (a conflict with a transaction in
// flight, or a check on a missing number).
func (s *SortKey) headOf(err error) (head int64, ok bool) {
	var items []map[string]types.AttributeValue
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		items = append(items, ccf.Item)
	}
	reasons, _ := cancelReasons(err)
	for _, r := range reasons {
		items = append(items, r.Item)
	}
	for _, item := range items {
		if n, found := s.storedUpTo(item); found && n > head {
			head, ok = n, true
		}
	}
	return head, ok
}

// storedUpTo returns the number of item, or the last number of the write
// that stored it when its token says so (items written before tokens held
// it say nothing more than their own number).
func (s *SortKey) storedUpTo(item map[string]types.AttributeValue) (int64, bool) {
	key, found := item[s.opts.SortKey]
	if !found {
		return 0, false
	}
	n, err := s.codec.parse(key)
	if err != nil {
		return 0, false
	}
	if tok, isString := item[s.opts.TokenAttribute].(*types.AttributeValueMemberS); isString {
		if _, end, cut := strings.Cut(tok.Value, ":"); cut {
			// One write stores at most maxTransactItems numbers: an end
			// further on was not written by this library, and is not
			// believed (gap-freedom rests on it).
			if last, err := strconv.ParseInt(end, 10, 64); err == nil && last > n && last <= s.max && last-n < maxTransactItems {
				return last, true
			}
		}
	}
	return n, true
}
