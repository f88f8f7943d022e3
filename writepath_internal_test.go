package dynamoseq

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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

func TestPacingLate(t *testing.T) {
	// While DynamoDB refuses a name's writes for want of capacity, a call
	// whose caller's deadline comes within a round trip is held back, if
	// the batch holds a call that a refusal put back: no write is sent
	// for it, and its caller gets ErrThrottled at its deadline. Otherwise,
	// or with a later deadline, it is sent: calls that no refusal put back
	// send the write that tells whether the refusals are over.
	p := pacing{Pace: engine.Pace{RTT: &engine.RoundTrip{}}, maxWait: time.Minute}
	p.RTT.Add(time.Second)
	g := engine.NewGroup[string, struct{}, appendReq, int64](16, 16)
	call := func(w *engine.NameWriter, d time.Duration, putBack bool) (sent bool, err error) {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		req := appendReq{size: 100}
		if putBack {
			req.waitingSince = time.Now()
		}
		_, err = g.Do(ctx, "name", req, func(_ context.Context, _ string, _ *struct{}, batch []*engine.Call[appendReq, int64]) {
			for _, c := range p.late(w, batch) {
				sent, c.Res = true, 1
			}
		})
		return sent, err
	}
	var refused engine.NameWriter
	refused.Capacity.Throttled(time.Now(), time.Millisecond, 1)
	if sent, err := call(&refused, 50*time.Millisecond, true); sent || !errors.Is(err, ErrThrottled) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a name refused, a call put back, a deadline within the round trip (1 s): sent %v, %v; want not sent, ErrThrottled and the deadline", sent, err)
	} else if wait, retry := RetryAfter(err); !retry || wait != time.Second {
		t.Errorf("RetryAfter(%v) = %v, %v; want the round trip (1s), true", err, wait, retry)
	}
	if sent, err := call(&refused, 5*time.Second, true); !sent || err != nil {
		t.Errorf("a name refused, a call put back, a deadline after the round trip: sent %v, %v; want sent, no error", sent, err)
	}
	if sent, err := call(&refused, 50*time.Millisecond, false); !sent || err != nil {
		t.Errorf("a name refused, a call no refusal put back, a deadline within the round trip: sent %v, %v; want sent, no error", sent, err)
	}
	if sent, err := call(&engine.NameWriter{}, 50*time.Millisecond, true); !sent || err != nil {
		t.Errorf("a name not refused, a deadline within the round trip: sent %v, %v; want sent, no error", sent, err)
	}
	var conflicted engine.NameWriter
	conflicted.Capacity.Conflict(time.Millisecond)
	if sent, err := call(&conflicted, 50*time.Millisecond, true); sent || !errors.Is(err, ErrContention) || errors.Is(err, ErrThrottled) {
		t.Errorf("a name whose last write met a conflict, a call put back, a deadline within the round trip: sent %v, %v; want not sent, ErrContention and not ErrThrottled", sent, err)
	}
	conflicted.Capacity.Throttled(time.Now(), time.Millisecond, 1)
	if sent, err := call(&conflicted, 50*time.Millisecond, true); sent || !errors.Is(err, ErrThrottled) {
		t.Errorf("a conflict then a throttle, a call put back, a deadline within the round trip: sent %v, %v; want not sent, ErrThrottled", sent, err)
	}

	// The table's share counts a throttle at a ceiling the names share
	// (the Seat), the Capacity a conflict: whichever came last is the kind.
	p.Share, p.stats = sharedLine(), &appendStats{}
	var lined engine.NameWriter
	refuse := func(err error) {
		held := []*engine.Call[appendReq, int64]{{Req: appendReq{size: 100}}}
		p.refused(&lined, held, time.Now(), err)
	}
	refuse(&types.RequestLimitExceeded{Message: aws.String("the account's ceiling")})
	refuse(&types.TransactionConflictException{Message: aws.String("another writer's transaction")})
	if sent, err := call(&lined, 50*time.Millisecond, true); sent || !errors.Is(err, ErrContention) || errors.Is(err, ErrThrottled) {
		t.Errorf("a shared throttle then a conflict, a call put back, a deadline within the round trip: sent %v, %v; want not sent, ErrContention and not ErrThrottled", sent, err)
	}
	refuse(&types.RequestLimitExceeded{Message: aws.String("the account's ceiling")})
	if sent, err := call(&lined, 50*time.Millisecond, true); sent || !errors.Is(err, ErrThrottled) || errors.Is(err, ErrContention) {
		t.Errorf("a conflict then a shared throttle, a call put back, a deadline within the round trip: sent %v, %v; want not sent, ErrThrottled and not ErrContention", sent, err)
	}
}

func TestLateHeldBeforeShare(t *testing.T) {
	// A SortKey's or Latest's run holds back the calls that late holds
	// before it asks the table's share for a slot: the share is charged
	// only for writes that are sent, so another name's slot does not move
	// for calls held (here a 300 KB item's 293 units, which would move it
	// by seconds). Every call is held, so no request is sent.
	for _, tc := range []struct {
		name  string
		write func(p pacing, w *engine.NameWriter, calls []*engine.Call[appendReq, int64])
	}{
		{"SortKey", func(p pacing, w *engine.NameWriter, calls []*engine.Call[appendReq, int64]) {
			(&SortKey{pace: p}).run(context.Background(), "pk", &hint{NameWriter: *w}, calls)
		}},
		{"SortKey without transactions", func(p pacing, w *engine.NameWriter, calls []*engine.Call[appendReq, int64]) {
			(&SortKey{pace: p, single: true}).run(context.Background(), "pk", &hint{NameWriter: *w}, calls)
		}},
		{"Latest", func(p pacing, w *engine.NameWriter, calls []*engine.Call[appendReq, int64]) {
			(&Latest{pace: p}).run(context.Background(), "base", &latestHint{NameWriter: *w}, calls)
		}},
		{"Latest without transactions", func(p pacing, w *engine.NameWriter, calls []*engine.Call[appendReq, int64]) {
			(&Latest{pace: p, single: true}).run(context.Background(), "base", &latestHint{NameWriter: *w}, calls)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pacing{Pace: engine.Pace{RTT: &engine.RoundTrip{}, Share: sharedLine()}, maxWait: time.Minute, stats: &appendStats{}}
			p.RTT.Add(time.Second)
			control := sharedLine()
			var refused engine.NameWriter
			refused.Capacity.Throttled(time.Now(), time.Millisecond, 1)
			g := engine.NewGroup[string, struct{}, appendReq, int64](16, 16)
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			_, err := g.Do(ctx, "name", appendReq{size: 300_000, waitingSince: time.Now()}, func(_ context.Context, _ string, _ *struct{}, batch []*engine.Call[appendReq, int64]) {
				tc.write(p, &refused, batch)
			})
			if !errors.Is(err, ErrThrottled) {
				t.Fatalf("a name refused, a call put back, a deadline within the round trip (1 s): %v; want ErrThrottled (held, not sent)", err)
			}
			now := time.Now()
			var a, b engine.Seat
			got, want := p.Share.Take(&a, now, 2), control.Take(&b, now, 2)
			if got.Sub(want) > 100*time.Millisecond {
				t.Errorf("another name's slot after a call held back: %v after now, want %v as in a share that saw no call (the held call's units are not charged)", got.Sub(now), want.Sub(now))
			}
		})
	}
}
