package engine_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/dynamoseq/dynamoseq/internal/engine"
)

type req struct{ races int }

func (r *req) Lose() int {
	r.races++
	return r.races
}

func calls(n int) []*engine.Call[req, int64] {
	cs := make([]*engine.Call[req, int64], n)
	for i := range cs {
		cs[i] = &engine.Call[req, int64]{}
	}
	return cs
}

// TestBatchLen: a transaction holds at most maxItems calls and, beyond the
// first, at most MaxTransactBytes, counting the last one twice with
// copyLast.
func TestBatchLen(t *testing.T) {
	const mb = 1024 * 1024
	tests := []struct {
		name     string
		sizes    []int
		maxItems int
		copyLast bool
		want     int
	}{
		{"all fit", []int{10, 10, 10}, 100, false, 3},
		{"max items", []int{10, 10, 10}, 2, false, 2},
		{"bytes", []int{2 * mb, 1 * mb, 1 * mb, 1}, 100, false, 3},
		{"bytes, last copied", []int{2 * mb, 1 * mb, 1 * mb}, 100, true, 2},
		{"bytes, last copied, one only", []int{2 * mb, mb + mb/2}, 100, true, 1},
		{"a first call over the limit goes alone", []int{5 * mb, 1}, 100, false, 1},
		{"empty", nil, 100, false, 0},
	}
	for _, tt := range tests {
		got := engine.BatchLen(len(tt.sizes), tt.maxItems, func(i int) int { return tt.sizes[i] }, tt.copyLast)
		if got != tt.want {
			t.Errorf("%s: BatchLen = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestRaceLostAndPutBack: the calls of a lost race go back in the queue
// until one has lost maxAttempts races, which fails with the contention
// sentinel; a call put back puts back the calls after it, with its cause.
func TestRaceLostAndPutBack(t *testing.T) {
	contention, lost := errors.New("contention"), errors.New("lost")
	cs := calls(3)
	cs[0].Req.races = 2
	if !engine.RaceLost(cs[:2], 3, contention, lost) {
		t.Fatal("RaceLost = false, want true: call 1 has races left")
	}
	if !errors.Is(cs[0].Err, contention) || !errors.Is(cs[0].Err, lost) || cs[0].Again {
		t.Errorf("call 0 after its third race: Err %v, Again %v; want contention wrapping the race, not put back", cs[0].Err, cs[0].Again)
	}
	if cs[1].Err != nil || !cs[1].Again || cs[1].Req.races != 1 {
		t.Errorf("call 1 after its first race: Err %v, Again %v, races %d; want put back, 1 race", cs[1].Err, cs[1].Again, cs[1].Req.races)
	}
	cs[1].Cause = lost
	if !engine.PutBack(cs[:2], cs[2:]) || !cs[2].Again || cs[2].Cause != lost {
		t.Errorf("PutBack: call 2 Again %v, Cause %v; want put back with the cause of call 1", cs[2].Again, cs[2].Cause)
	}
	if engine.PutBack(calls(2), calls(1)) {
		t.Error("PutBack of calls none of which was put back = true, want false")
	}
}

// TestPublishAndLinger: every caller is told its number; a hot batch asks
// the next run to wait for as many callers, a lone call or a batch put
// back does not.
func TestPublishAndLinger(t *testing.T) {
	cs := calls(3)
	if got := engine.Publish(cs, 7, 1); len(got) != 3 {
		t.Fatalf("Publish kept %d calls, want 3", len(got))
	}
	engine.Linger(cs, 50*time.Millisecond)
	if cs[0].Fill != 3 || cs[0].NotBefore.IsZero() {
		t.Errorf("Linger of 3 calls: Fill %d, NotBefore %v; want 3 and a time", cs[0].Fill, cs[0].NotBefore)
	}
	lone := calls(1)
	engine.Linger(lone, time.Second)
	back := calls(2)
	back[1].Again = true
	engine.Linger(back, time.Second)
	if lone[0].Fill != 0 || back[0].Fill != 0 {
		t.Errorf("Linger of a lone call or a batch put back: Fill %d and %d, want 0", lone[0].Fill, back[0].Fill)
	}
	// Paced: a pace still ahead stands; one that has passed by the run's
	// end is dropped, and the batch lingers.
	ahead := calls(2)
	pace := time.Now().Add(time.Hour)
	ahead[0].NotBefore, ahead[0].Cause = pace, errors.New("paced")
	engine.Linger(ahead, time.Second)
	if ahead[0].Fill != 0 || !ahead[0].NotBefore.Equal(pace) {
		t.Errorf("Linger of a batch paced an hour ahead: Fill %d, NotBefore %v; want 0 and the pace", ahead[0].Fill, ahead[0].NotBefore)
	}
	passed := calls(2)
	passed[0].NotBefore, passed[0].Cause = time.Now().Add(-time.Millisecond), errors.New("paced")
	engine.Linger(passed, time.Second)
	if passed[0].Fill != 2 || !passed[0].NotBefore.After(time.Now()) || passed[0].Cause != nil {
		t.Errorf("Linger of a batch whose pace has passed: Fill %d, NotBefore %v, Cause %v; want 2, a time ahead, nil", passed[0].Fill, passed[0].NotBefore, passed[0].Cause)
	}
	engine.Fail(cs, errors.New("x"))
	for i, c := range cs {
		if c.Err == nil {
			t.Errorf("Fail: call %d has no error", i)
		}
	}
}

// keyedReq is a request with a size, races and a key (engine.Batched).
type keyedReq struct {
	key   string
	races int
}

func (r *keyedReq) Bytes() int  { return 100 }
func (r *keyedReq) Races() int  { return r.races }
func (r *keyedReq) Key() string { return r.key }

// TestRunBatchesKeys: calls without keys fill maxItems a write; a write
// holding a key takes at most half of maxItems calls, and a key that
// repeats one of its write's starts the next write.
func TestRunBatchesKeys(t *testing.T) {
	keys := func(ks ...string) []*engine.Call[keyedReq, int64] {
		cs := make([]*engine.Call[keyedReq, int64], len(ks))
		for i, k := range ks {
			cs[i] = &engine.Call[keyedReq, int64]{Req: keyedReq{key: k}}
		}
		return cs
	}
	many := func(n int, key func(i int) string) []string {
		ks := make([]string, n)
		for i := range ks {
			ks[i] = key(i)
		}
		return ks
	}
	for _, tt := range []struct {
		name     string
		keys     []string
		maxItems int
		want     []int
	}{
		{"no keys", many(150, func(int) string { return "" }), 100, []int{100, 50}},
		{"distinct keys", many(60, func(i int) string { return string(rune('A' + i)) }), 100, []int{50, 10}},
		{"a key late in the write", many(80, func(i int) string { return map[bool]string{true: "k"}[i == 70] }), 100, []int{50, 30}},
		{"a repeated key", []string{"a", "b", "a", "", "c"}, 100, []int{2, 3}},
		{"one item a write", []string{"a", "a"}, 1, []int{1, 1}},
	} {
		var got []int
		engine.RunBatches(keys(tt.keys...), tt.maxItems, false, func(int) {}, func(cs []*engine.Call[keyedReq, int64]) {
			got = append(got, len(cs))
		})
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: writes of %v calls, want %v", tt.name, got, tt.want)
		}
	}
}
