package engine

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func reasons(rs ...string) []types.ThrottlingReason {
	var out []types.ThrottlingReason
	for _, r := range rs {
		out = append(out, types.ThrottlingReason{Reason: aws.String(r)})
	}
	return out
}

// ThrottleScope reads the documented ThrottlingReason codes of both
// throttle forms; a cancelled transaction says nothing of its scope.
func TestThrottleScope(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want Scope
	}{
		{"on-demand key range", &types.ThrottlingException{ThrottlingReasons: reasons("TableWriteKeyRangeThroughputExceeded")}, ScopeKey},
		{"on-demand maximum", &types.ThrottlingException{ThrottlingReasons: reasons("TableWriteMaxOnDemandThroughputExceeded")}, ScopeShared},
		{"account quota", &types.ThrottlingException{ThrottlingReasons: reasons("TableWriteAccountLimitExceeded")}, ScopeShared},
		{"provisioned table", &types.ProvisionedThroughputExceededException{ThrottlingReasons: reasons("TableWriteProvisionedThroughputExceeded")}, ScopeShared},
		{"provisioned key range", &types.ProvisionedThroughputExceededException{ThrottlingReasons: reasons("TableWriteKeyRangeThroughputExceeded")}, ScopeKey},
		{"index and key range", &types.ProvisionedThroughputExceededException{ThrottlingReasons: reasons("TableWriteKeyRangeThroughputExceeded", "IndexWriteProvisionedThroughputExceeded")}, ScopeShared},
		{"read", &types.ThrottlingException{ThrottlingReasons: reasons("TableReadMaxOnDemandThroughputExceeded")}, ScopeRead},
		{"no reasons", &types.ThrottlingException{}, ScopeUnknown},
		{"request limit", &types.RequestLimitExceeded{}, ScopeShared},
		{"transaction", &types.TransactionCanceledException{CancellationReasons: []types.CancellationReason{{Code: aws.String(ReasonThrottlingError)}}}, ScopeUnknown},
		{"wrapped", fmt.Errorf("op: %w", &types.ThrottlingException{ThrottlingReasons: reasons("TableWriteMaxOnDemandThroughputExceeded")}), ScopeShared},
		{"other", errors.New("boom"), ScopeUnknown},
	} {
		if got := ThrottleScope(tc.err); got != tc.want {
			t.Errorf("%s: ThrottleScope() = %v, want %v", tc.name, got, tc.want)
		}
	}
}
