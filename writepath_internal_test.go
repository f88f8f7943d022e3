package dynamoseq

import (
	"errors"
	"testing"
	"time"

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
		p     engine.Pace
		calls []*engine.Call[appendReq, int64]
		want  float64
	}{
		{"Latest without transactions", engine.Pace{CopyLast: true, Single: true}, calls(3000, 100), 6},
		{"SortKey without transactions", engine.Pace{Single: true}, calls(3000, 100), 3},
		{"Latest, a transaction", engine.Pace{CopyLast: true}, calls(3000, 100), 2 * (3 + 1 + 1)},
		{"SortKey, a lone PutItem", engine.Pace{}, calls(3000), 3},
		{"SortKey, a lone PutItem with its key item", engine.Pace{}, []*engine.Call[appendReq, int64]{{Req: appendReq{size: 3000, key: &idemKey{pk: "k"}}}}, 6},
	} {
		if got := engine.Charged(tc.p, tc.calls); got != tc.want {
			t.Errorf("%s: charged = %v units, want %v", tc.name, got, tc.want)
		}
	}
}

// sharedLine returns a Share whose line is on: another name of the table
// was throttled at a shared ceiling just now, so a name's next write
// waits for a slot.
func sharedLine() *engine.Share {
	var s engine.Share
	var a, b engine.Seat
	now := time.Now()
	s.Admitted(&a, now, 1)
	s.Throttled(&b, now, now, 1, engine.ScopeShared)
	return &s
}

func TestSeatedMaxWait(t *testing.T) {
	// A call that waits for its slot in the table's share waits for
	// capacity: the wait starts its Retry.MaxWait, and one that would
	// overrun it fails with ErrThrottled instead of waiting.
	seated := func(p engine.Pace, maxWait time.Duration, calls []*engine.Call[appendReq, int64]) bool {
		at := engine.Slot(p, &engine.NameWriter{}, calls)
		if at.IsZero() {
			return false
		}
		seatWait(calls, at, maxWait)
		return true
	}
	call := &engine.Call[appendReq, int64]{Req: appendReq{size: 100}}
	before := time.Now()
	if !seated(engine.Pace{Share: sharedLine(), Single: true}, time.Minute, []*engine.Call[appendReq, int64]{call}) {
		t.Fatal("Slot = now under a shared line, want later (the call waits for its slot)")
	}
	if !call.Again || call.NotBefore.IsZero() {
		t.Errorf("a call waiting for its slot: Again = %v, NotBefore = %v, want true and the slot", call.Again, call.NotBefore)
	}
	if call.Req.waitingSince.Before(before) {
		t.Errorf("a call waiting for its slot: waitingSince = %v, want the time of the wait (after %v): MaxWait counts from it", call.Req.waitingSince, before)
	}

	late := &engine.Call[appendReq, int64]{Req: appendReq{size: 100}}
	if !seated(engine.Pace{Share: sharedLine(), Single: true}, time.Millisecond, []*engine.Call[appendReq, int64]{late}) {
		t.Fatal("Slot = now under a shared line, want later")
	}
	if late.Again || !errors.Is(late.Err, ErrThrottled) {
		t.Errorf("a call whose slot is past its MaxWait (1ms): Again = %v, Err = %v, want false and ErrThrottled", late.Again, late.Err)
	}
}
