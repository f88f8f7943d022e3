package engine

import (
	"testing"
	"time"
)

// top is a Rand that returns its largest value: each wait is its ceiling.
func top(n int64) int64 { return n - 1 }

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestCapacityConflict(t *testing.T) {
	// Full jitter from a round trip, doubling per refusal in a row, at
	// most RefusedGap; before a round trip was measured, from
	// minCapacityBase.
	c := Capacity{Rand: top}
	rtt := 30 * time.Millisecond
	for i, want := range []time.Duration{30 * time.Millisecond, 60 * time.Millisecond, 120 * time.Millisecond, 240 * time.Millisecond, RefusedGap, RefusedGap} {
		if got := c.Conflict(rtt); got != want {
			t.Errorf("refusal %d: Conflict(%v) = %v, want %v", i+1, rtt, got, want)
		}
	}
	if c.Streak() != 6 {
		t.Errorf("Streak() = %d, want 6", c.Streak())
	}
	c.Reset()
	if got := c.Conflict(0); got != minCapacityBase {
		t.Errorf("after Reset, Conflict(0) = %v, want %v (no round trip measured yet)", got, minCapacityBase)
	}
}

// bracketed returns a Capacity whose estimate is rate units a second,
// bracketed by a write of units admitted, one refused and one admitted
// (see Capacity.Won), with waits at their ceilings.
func bracketed(rate, units float64) *Capacity {
	c := &Capacity{Rand: top}
	refill := seconds(units / rate)
	c.Won(epoch, units)
	c.Throttled(epoch.Add(refill*15/16), seconds(4*units/rate), units) // the first estimate: rate
	c.Won(epoch.Add(refill*17/16), units)
	return c
}

func TestCapacityThrottled(t *testing.T) {
	// Before a refill was bracketed the waits are a conflict's, from the
	// round trip.
	fresh := Capacity{Rand: top}
	if got := fresh.Throttled(epoch, 30*time.Millisecond, 32); got != 30*time.Millisecond {
		t.Errorf("the first refusal of a fresh writer: Throttled(30ms, 32) = %v, want 30ms (the round trip)", got)
	}
	// Then they start at firstShare of the refill of the write's units at
	// the estimate (32 units at 200 a second: 160ms), doubling, at most
	// RefusedGap, from the upper half of the ceiling; each at least twice
	// the time since the first refusal (at most RefusedGap/2), and the
	// sixth send no sooner than a second after the first (refusedBurst).
	// Each send here goes when its wait ends, from a second after the
	// bracket.
	c := bracketed(200, 32)
	if got := c.Rate(); got != 200 {
		t.Fatalf("Rate() = %v, want 200", got)
	}
	at := epoch.Add(time.Second)
	for i, want := range []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 60 * time.Millisecond, 180 * time.Millisecond, 730 * time.Millisecond, 320 * time.Millisecond, RefusedGap, RefusedGap} {
		got := c.Throttled(at, 0, 32)
		if got != want {
			t.Errorf("refusal %d, %v after the first: Throttled(32) = %v, want %v", i+1, at.Sub(epoch.Add(time.Second)), got, want)
		}
		at = at.Add(got)
	}
	low := bracketed(200, 32)
	low.Rand = func(int64) int64 { return 0 }
	for i := range 10 {
		if got, ceiling := low.Throttled(epoch, 0, 32), min(RefusedGap, 10*time.Millisecond<<i); got < ceiling/2 {
			t.Errorf("refusal %d: Throttled = %v, want at least half its ceiling %v", i+1, got, ceiling)
		}
	}
	// A partition that refills slower than RefusedGap is waited for as
	// long as its refill takes, no longer.
	slow := bracketed(2, 2)
	for range 8 {
		slow.Throttled(epoch, 0, 2)
	}
	if got := slow.Throttled(epoch, 0, 2); got != time.Second {
		t.Errorf("refusal 9 at 2 units a second: Throttled(2) = %v, want 1s (the refill)", got)
	}
}

func TestCapacityPace(t *testing.T) {
	// Before a throttle nothing is paced; after one, the next write starts
	// the refill of the units written (at the rate, probed) after the
	// start of the last; pacedWrites admitted writes in a row end that.
	var c Capacity
	if got := c.Won(epoch, 32); !got.IsZero() {
		t.Fatalf("Won before any throttle = %v, want the zero time", got)
	}
	c.Throttled(epoch.Add(40*time.Millisecond), 160*time.Millisecond, 32) // 800 units a second
	now := epoch.Add(100 * time.Millisecond)
	for i := range pacedWrites {
		next := c.Won(now, 32)
		if gap, refill := next.Sub(now), seconds(32/c.Rate()); next.IsZero() || gap > refill || gap < refill/2 {
			t.Fatalf("write %d after the throttle: the next %v after it, want at most the refill at the estimate, %v, and at least half of it", i+1, gap, refill)
		}
		now = next
	}
	if got := c.Won(now, 32); !got.IsZero() {
		t.Errorf("Won after %d writes not refused = %v, want the zero time", pacedWrites, got)
	}
}

// refusedFor counts refusals of a write of units units from at, one every
// RefusedGap, for d: an outage, as Throttled sees it.
func refusedFor(c *Capacity, at time.Time, d time.Duration, rtt time.Duration, units float64) time.Time {
	for end := at.Add(d); at.Before(end); at = at.Add(RefusedGap) {
		c.Throttled(at, rtt, units)
	}
	return at
}

func TestCapacityOutage(t *testing.T) {
	// A writer whose estimate was bracketed at 200 units a second comes
	// out of an 8 s outage with the estimate down by a quarter, and the
	// write after the first one admitted paced at afterOutage of the
	// estimate from before: found again in one write.
	c := bracketed(200, 32)
	back := refusedFor(c, epoch.Add(time.Second), 8*time.Second, 30*time.Millisecond, 32)
	next := c.Won(back, 32)
	if got, want := c.Rate(), 150.0; got != want {
		t.Errorf("after the outage: Rate() = %v, want %v (a quarter down)", got, want)
	}
	if got, want := next.Sub(back), seconds(32/(200*afterOutage)); got != want {
		t.Errorf("after the outage: the next write %v after the first, want %v (the rate from before, times afterOutage)", got, want)
	}
	c.Won(next, 32)
	if got, want := c.Rate(), 200*afterOutage; got < want*0.999 || got > want*1.001 {
		t.Errorf("after the second write admitted: Rate() = %v, want %v", got, want)
	}

	// A writer that met the outage before any refill was bracketed does
	// not take the outage for its rate (it paced the next write 8 s
	// later): the write after the first one admitted goes within
	// RefusedGap.
	var fresh Capacity
	fresh.Won(epoch, 32)
	back = refusedFor(&fresh, epoch.Add(30*time.Millisecond), 8*time.Second, 30*time.Millisecond, 32)
	if next := fresh.Won(back, 32); next.Sub(back) > RefusedGap {
		t.Errorf("a fresh writer after an 8 s outage: the next write %v after the first, want at most %v", next.Sub(back), RefusedGap)
	}
	// Its waits, from the round trip until then, are drawn from the upper
	// half of RefusedGap once they reach it: at most 5 requests a second.
	low := Capacity{Rand: func(int64) int64 { return 0 }}
	for i := range 12 {
		got := low.Throttled(epoch, 30*time.Millisecond, 32)
		if reached := 30*time.Millisecond<<i >= RefusedGap; reached && got < RefusedGap/2 {
			t.Errorf("a fresh writer's refusal %d: Throttled = %v, want at least %v (the cap's upper half)", i+1, got, RefusedGap/2)
		}
	}
}

func TestCapacityBracketSmallAfterBatch(t *testing.T) {
	// A batch of 32 admitted at t0, then a lone call's write of 2 units
	// refused at t0+refused and admitted at t0+won: the bracket is the
	// refill of the 2 units that waited, and the refusal shows the rate
	// is below 2/refused. The batch's 32 units read as the refill gave
	// 567 units a second from 400 in the first case.
	for _, tc := range []struct {
		refused, won time.Duration
	}{
		{10 * time.Millisecond, 50 * time.Millisecond}, // the middle: 67 a second
		{6 * time.Millisecond, 8 * time.Millisecond},   // the middle above half the estimate
	} {
		c := bracketed(400, 32)
		if got := c.Rate(); got != 400 {
			t.Fatalf("Rate() = %v, want 400", got)
		}
		t0 := epoch.Add(165 * time.Millisecond)
		c.Won(t0, 32)
		c.Throttled(t0.Add(tc.refused), 0, 2)
		c.Won(t0.Add(tc.won), 2)
		if got, bound := c.Rate(), 2/tc.refused.Seconds(); got > bound*1.0001 {
			t.Errorf("2 units refused %v and admitted %v after a batch of 32: Rate() = %v, want at most %v (the refusal's bound)", tc.refused, tc.won, got, bound)
		}
	}
}

// A write that waited for its slot in the table's line (Lined) says
// nothing of its partition's refill: a name refused once at a ceiling of
// unknown scope before the line started, then admitted a round of the
// line later (1.6 s), keeps its estimate and is not paced at 4 units a
// round on top of its slots.
func TestCapacityLined(t *testing.T) {
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, lined := range []bool{false, true} {
		c := Capacity{Rand: func(n int64) int64 { return n - 1 }}
		c.Won(epoch, 4)
		c.Throttled(epoch.Add(100*time.Millisecond), 50*time.Millisecond, 4) // 320 units a second
		if lined {
			c.Lined()
		}
		start := epoch.Add(1700 * time.Millisecond)
		pace := c.Won(start, 4).Sub(start)
		t.Logf("lined %v: paced %v, estimate %.1f units a second", lined, pace, c.Rate())
		if lined && pace > 50*time.Millisecond {
			t.Errorf("after a wait in the line: the next write paced %v later (estimate %.1f units a second), want at most 50 ms", pace, c.Rate())
		}
		if !lined && pace < 500*time.Millisecond {
			t.Errorf("without Lined the refusal's bracket reads %.1f units a second, pace %v: the test no longer shows what Lined prevents", c.Rate(), pace)
		}
	}
}

func TestEstimate(t *testing.T) {
	// The rules Capacity and Share both move their estimates by: a bound
	// shown raises it, a bracket's rate moves it all of the way from none
	// or under below times it, else 1/gain of the way.
	for _, tc := range []struct {
		name        string
		from        float64
		do          func(e *estimate)
		want        float64
		wantMeasure bool
	}{
		{"guess", 0, func(e *estimate) { e.guess(40) }, 40, false},
		{"raise higher", 100, func(e *estimate) { e.raise(30, 0.25) }, 120, true},
		{"raise lower", 100, func(e *estimate) { e.raise(5, 0.1) }, 100, true},
		{"raise no span", 100, func(e *estimate) { e.raise(5, 0) }, 100, true},
		{"move from none", 0, func(e *estimate) { e.move(80, 1.0/2, 4) }, 80, true},
		{"move under half", 100, func(e *estimate) { e.move(40, 1.0/2, 4) }, 40, true},
		{"move a quarter down", 100, func(e *estimate) { e.move(60, 1.0/2, 4) }, 90, true},
		{"move a quarter up", 100, func(e *estimate) { e.move(200, 1.0/2, 4) }, 125, true},
		{"move all the way down", 100, func(e *estimate) { e.move(99, 1, 2) }, 99, true},
		{"move half up", 100, func(e *estimate) { e.move(200, 1, 2) }, 150, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := estimate{rate: tc.from, measured: true}
			tc.do(&e)
			if e.rate != tc.want || e.measured != tc.wantMeasure {
				t.Errorf("from %v: rate %v, measured %v; want %v, %v", tc.from, e.rate, e.measured, tc.want, tc.wantMeasure)
			}
		})
	}
}
