package dynamoseq

import (
	"testing"

	"github.com/dynamoseq/dynamoseq/internal/engine"
)

func TestPacingCharged(t *testing.T) {
	// The table's share takes a slot of the units DynamoDB charges a
	// write, the units Won records admitted: a Latest without
	// transactions writes two PutItems a call (the version and 'latest'),
	// and one of a 3 KB item is charged 6 units, not 3.
	calls := func(sizes ...int) []*engine.Call[appendReq, int64] {
		var cs []*engine.Call[appendReq, int64]
		for _, n := range sizes {
			cs = append(cs, &engine.Call[appendReq, int64]{Req: appendReq{size: n}})
		}
		return cs
	}
	for _, tc := range []struct {
		name  string
		p     pacing
		calls []*engine.Call[appendReq, int64]
		want  float64
	}{
		{"Latest without transactions", pacing{copyLast: true, single: true}, calls(3000, 100), 6},
		{"SortKey without transactions", pacing{single: true}, calls(3000, 100), 3},
		{"Latest, a transaction", pacing{copyLast: true}, calls(3000, 100), 2 * (3 + 1 + 1)},
		{"SortKey, a lone PutItem", pacing{}, calls(3000), 3},
	} {
		if got := tc.p.charged(tc.calls); got != tc.want {
			t.Errorf("%s: charged = %v units, want %v", tc.name, got, tc.want)
		}
	}
	single := pacing{copyLast: true, single: true}
	if got, want := single.charged(calls(1000)), single.oneWrite(calls(1000)); got != want {
		t.Errorf("Latest without transactions: charged = %v units, want %v, the units Won records (oneWrite)", got, want)
	}
}
