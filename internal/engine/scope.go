// The scope of a throttle: which ceiling refused a write, as far as
// DynamoDB's answer says.

package engine

import (
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Scope is which of DynamoDB's ceilings a throttled write met: one
// partition key value's, or one that the table's names share.
type Scope int

const (
	// ScopeUnknown: the answer does not say. A cancelled transaction's
	// reasons (ThrottlingError, ProvisionedThroughputExceeded) never do,
	// nor an exception without ThrottlingReasons.
	ScopeUnknown Scope = iota
	// ScopeKey: the partition key value's own limit
	// (...KeyRangeThroughputExceeded), which the table's other names do
	// not share.
	ScopeKey
	// ScopeShared: a write ceiling that every name of the table shares:
	// a provisioned table's or index's capacity, an on-demand table's
	// maximum or its account quota (Table or Index, Write,
	// ProvisionedThroughputExceeded, MaxOnDemandThroughputExceeded or
	// AccountLimitExceeded), or the account's request limit.
	ScopeShared
	// ScopeRead: a read ceiling (a reason with OperationType Read): not
	// the writes' budget.
	ScopeRead
)

func (s Scope) String() string {
	switch s {
	case ScopeKey:
		return "key"
	case ScopeShared:
		return "shared"
	case ScopeRead:
		return "read"
	}
	return "unknown"
}

// ThrottleScope returns the scope of err, a throttle (Classify's
// ThrottleRefusal), read from the ThrottlingReasons of the SDK's typed
// exceptions, each "ResourceType+OperationType+LimitType"
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ThrottlingReason.html):
// ScopeShared if any reason names a write limit other than a key range's,
// else ScopeKey if one names a key range's write limit, else ScopeRead if
// one names a read limit; ScopeUnknown without reasons. RequestLimitExceeded
// (the account's request limit) is ScopeShared.
func ThrottleScope(err error) Scope {
	var (
		od    *types.ThrottlingException
		pte   *types.ProvisionedThroughputExceededException
		limit *types.RequestLimitExceeded
	)
	var reasons []types.ThrottlingReason
	switch {
	case errors.As(err, &od):
		reasons = od.ThrottlingReasons
	case errors.As(err, &pte):
		reasons = pte.ThrottlingReasons
	case errors.As(err, &limit):
		return ScopeShared
	default:
		return ScopeUnknown
	}
	scope := ScopeUnknown
	for _, r := range reasons {
		if r.Reason == nil {
			continue
		}
		switch s := reasonScope(*r.Reason); {
		case s == ScopeShared:
			return ScopeShared
		case s == ScopeKey, s == ScopeRead && scope == ScopeUnknown:
			scope = s
		}
	}
	return scope
}

// reasonScope is the scope of one ThrottlingReason.
func reasonScope(reason string) Scope {
	switch {
	case strings.Contains(reason, "Read"):
		return ScopeRead
	case !strings.Contains(reason, "Write"):
		return ScopeUnknown
	case strings.HasSuffix(reason, "KeyRangeThroughputExceeded"):
		return ScopeKey
	}
	return ScopeShared
}
