package engine

import (
	"context"
	"testing"
	"time"
)

// The tests of this file run Turns.take on a simulated clock: a writer
// that comes to a name another writer wrote a moment ago (a restart, a
// deploy, a one-off writer), whose head names that writer's turn.

// simClock is a clock that moves only when told: a sleep moves it on.
type simClock struct{ t time.Time }

func (c *simClock) now() time.Time { return c.t }

func (c *simClock) sleep(_ context.Context, d time.Duration) error {
	c.t = c.t.Add(d)
	return nil
}

// startRun is what one writer did at a name, flat out, alone after the
// writer of the head it found (see runAlone).
type startRun struct {
	reads, turns, waits int           // reads of the head, turns started with others, waits
	waited              time.Duration // the time spent waiting
	readsPast           int           // reads of the head after the other's turn ended
	contendedUntil      time.Time     // when the name last counted as contended
	firstWrite          time.Time     // when the writer's first write started
	contendedWaits      int           // waits while it did
}

const (
	startWrite = 2 * time.Millisecond // a write's round trip, as on DynamoDB Local
	startRead  = time.Millisecond     // a read's
)

// runAlone runs appends writes of one writer, flat out, at a name whose
// head is tok, written by another writer that writes no more, and returns
// what the writer did; otherEnd is the end of the other's turn (for
// readsPast).
func runAlone(t *testing.T, clk *simClock, tr *Turns, tok string, otherEnd time.Time, appends int) startRun {
	t.Helper()
	var r startRun
	head, known := tok, false
	read := func() (Turn, error) {
		clk.t = clk.t.Add(startRead)
		r.reads++
		if !clk.t.Before(otherEnd) {
			r.readsPast++
		}
		_, tn, _ := parseToken(head, clk.t)
		return tn, nil
	}
	for i := range appends {
		tn, err := tr.take(context.Background(), &known, testMaxDelay, func(d time.Duration) {
			r.waits++
			r.waited += d
			if tr.contendedAt(clk.t) {
				r.contendedWaits++
			}
		}, read, clk)
		if err != nil {
			t.Fatal(err)
		}
		start := clk.t
		if i == 0 {
			r.firstWrite = start
		}
		head = token(testRequest, int64(i), tn, start)
		clk.t = clk.t.Add(startWrite)
		if tr.won(start, tn, clk.t) {
			r.turns++
		}
		if tr.contendedAt(clk.t) {
			r.contendedUntil = clk.t
		}
	}
	return r
}

// TestTurnsStartAfterAnother: a writer comes to a name whose head is
// another writer's solo turn, and that writer never writes again.
//
// With 10 ms left (a writer that stopped early in its solo turns), the
// newcomer waits for the turn's end, writes one turn of its own and waits
// one place in line, and its next read of the head, which finds only its
// own write, ends the contention: within about a read past the other's
// turn (two reads past its end, the newcomer's own turn between them), not
// contentionWindow later. Before, it took turns, each with a wait in line
// and a read, for contentionWindow (96 of them in 2,000 appends here).
//
// With 200 ms left (one that wrote flat out for a while: its solo turns
// grow to 128 round trips), the newcomer reads the head again
// probeRoundTrips round trips later, finds the same item, and writes at
// once, alone: it no longer sleeps out the rest of the turn (200 ms).
func TestTurnsStartAfterAnother(t *testing.T) {
	t.Parallel()
	for _, left := range []time.Duration{10 * time.Millisecond, 200 * time.Millisecond} {
		at := time.UnixMicro(1_795_452_382_000_000)
		otherEnd := at.Add(left)
		tok := token("other", 100, Turn{end: otherEnd, no: 9, solo: true}, at.Add(-startWrite))
		clk := &simClock{t: at}
		var tr Turns
		r := runAlone(t, clk, &tr, tok, otherEnd, 2000)
		until := "never after a write"
		if !r.contendedUntil.IsZero() {
			until = r.contendedUntil.Sub(otherEnd).String() + " after the other's turn ended"
		}
		t.Logf("%v left: first write %v after it came; 2000 appends in %v: %d reads (%d past the other's turn), %d turns, %d waits (%d while contended) of %v in all; contended %s",
			left, r.firstWrite.Sub(at), clk.t.Sub(at), r.reads, r.readsPast, r.turns, r.waits, r.contendedWaits, r.waited, until)
		if want := min(left, probeRoundTrips*startRead) + 3*startWrite; r.firstWrite.Sub(at) > want {
			t.Errorf("%v left: the first write started %v after the writer came, want at most %v", left, r.firstWrite.Sub(at), want)
		}
		// The other's turn, then one turn of this writer (turnRoundTrips
		// writes), a place in line (turnSpacing round trips) and a read.
		bound := otherEnd.Add((turnRoundTrips+turnSpacing+2)*startWrite + 2*startRead)
		if r.contendedUntil.After(bound) {
			t.Errorf("%v left: the name counted as contended until %v after the other's turn ended, want at most %v (one turn and one place in line past it), far from contentionWindow (%v)",
				left, r.contendedUntil.Sub(otherEnd), bound.Sub(otherEnd), contentionWindow)
		}
		if r.readsPast > 2 || r.turns > 1 || r.contendedWaits > 2 {
			t.Errorf("%v left: reads past the other's turn %d, turns %d, waits while contended %d; want at most 2, 1 and 2 (the other's end, one place in line)",
				left, r.readsPast, r.turns, r.contendedWaits)
		}
		// Alone from then on: a read of the head only at the start.
		if r.reads > 3 {
			t.Errorf("%v left: %d reads of the head in 2000 appends alone, want at most 3", left, r.reads)
		}
	}
}

// TestTurnsProbeLiveHolder: a writer that reads another's solo turn with
// long left and, on its probe, a later write of the same turn (the holder
// writes on) waits for the turn's end, as without a probe.
func TestTurnsProbeLiveHolder(t *testing.T) {
	t.Parallel()
	at := time.UnixMicro(1_795_452_382_000_000)
	solo := Turn{end: at.Add(200 * time.Millisecond), no: 9, solo: true}
	tr := Turns{rtt: startRead}
	read := func(tok string, now time.Time) {
		_, tn, _ := parseToken(tok, now)
		tr.saw(tn, testMaxDelay, now)
	}
	now := at.Add(startRead)
	read(token("other", 100, solo, at.Add(-startWrite)), now)
	d, wait := tr.wait(now, testMaxDelay)
	if !wait || d > probeRoundTrips*startRead {
		t.Fatalf("wait() = %v, %v after reading a solo turn 200 ms from its end, want a probe within %v", d, wait, probeRoundTrips*startRead)
	}
	now = now.Add(d + startRead)
	read(token("other", 140, solo, now.Add(-startRead-startWrite)), now) // written meanwhile
	if d, wait := tr.wait(now, testMaxDelay); !wait || now.Add(d).Before(solo.end.Add(-startRead)) {
		t.Errorf("wait() = %v, %v after the holder wrote again, want until the turn's end (%v)", d, wait, solo.end.Sub(now))
	}
	t.Run("the same item", func(t *testing.T) {
		tr = Turns{rtt: startRead}
		now := at.Add(startRead)
		tok := token("other", 100, solo, at.Add(-startWrite))
		read(tok, now)
		d, _ := tr.wait(now, testMaxDelay)
		now = now.Add(d + startRead)
		read(tok, now)
		if d, wait := tr.wait(now, testMaxDelay); wait {
			t.Errorf("wait() = %v after reading the same item of a solo turn again, want none (its holder stopped)", d)
		}
		if tn := tr.next(now, testMaxDelay); !tn.IsZero() {
			t.Errorf("next() = %+v after the holder stopped, want no turn (alone)", tn)
		}
	})
}

// TestTurnsStartKeepsRealContention: what ends contention seen in another's
// turn does not end contention that is real.
func TestTurnsStartKeepsRealContention(t *testing.T) {
	t.Parallel()
	at := time.UnixMicro(1_795_452_382_000_000)
	otherEnd := at.Add(10 * time.Millisecond)
	tok := token("other", 100, Turn{end: otherEnd, no: 9, solo: true}, at.Add(-startWrite))
	t.Run("a lost race counts for the window", func(t *testing.T) {
		clk := &simClock{t: at}
		tr := Turns{rtt: startWrite, write: startWrite}
		tr.lose(clk.t)
		r := runAlone(t, clk, &tr, tok, otherEnd, 200)
		// The last append within the window ended up to a turn, a place
		// in line and a read before its end.
		slack := (turnRoundTrips+turnSpacing+1)*startWrite + startRead
		if want := at.Add(contentionWindow - slack); r.contendedUntil.Before(want) {
			t.Errorf("after a lost race the name counted as contended until %v, want until contentionWindow (%v) after it",
				r.contendedUntil.Sub(at), contentionWindow)
		}
	})
	t.Run("the others' next turn keeps it", func(t *testing.T) {
		// This writer's turn ended; the first in line took the next.
		tr := Turns{rtt: startWrite, write: startWrite}
		tr.saw(Turn{end: at.Add(-time.Millisecond), no: 9}, testMaxDelay, at.Add(-2*time.Millisecond))
		tn := tr.next(at, testMaxDelay)
		tr.won(at, tn, at.Add(startWrite))
		later := tn.end.Add(turnSpacing * startWrite)
		tr.saw(Turn{end: later.Add(startWrite), no: tn.no + 1, line: 1}, testMaxDelay, later)
		if !tr.contendedAt(later) {
			t.Errorf("another's turn after this writer's did not keep the name contended")
		}
	})
	t.Run("its own turn read too soon keeps it", func(t *testing.T) {
		// The head read just after this writer's turn (say, after a
		// write of unknown outcome): the first in line may not have
		// written yet.
		now := at
		tr := Turns{rtt: startWrite, write: startWrite}
		tr.saw(Turn{end: now.Add(time.Millisecond), no: 9}, testMaxDelay, now)
		now = now.Add(2 * time.Millisecond)
		tn := tr.next(now, testMaxDelay)
		tr.won(now, tn, now.Add(startWrite))
		for _, after := range []time.Duration{-startWrite, 0, startWrite} {
			tr.saw(tn, testMaxDelay, tn.end.Add(after))
			if !tr.contendedAt(tn.end.Add(after)) {
				t.Errorf("its own turn read %v after its end ended contention, want it kept until %d round trips after", after, otherGone)
			}
		}
		tr.saw(tn, testMaxDelay, tn.end.Add(otherGone*startWrite))
		if tr.contendedAt(tn.end.Add(otherGone * startWrite)) {
			t.Errorf("its own turn read %d round trips after its end kept the name contended, want it over", otherGone)
		}
	})
}

// TestTurnsSoloGapShare: what the solo turns cost a writer alone flat out,
// on a simulated clock with writes of exactly one round trip: the gap of
// soloGap round trips at the end of each solo turn, and the part of a
// round trip that a write which would end after the turn leaves (a whole
// one here): soloGap+1 round trips in every soloRoundTrips+soloGap+1,
// 2.3%, once the solo turns have grown, and more over a writer's first
// appends, while they grow from soloFirst round trips.
func TestTurnsSoloGapShare(t *testing.T) {
	t.Parallel()
	at := time.UnixMicro(1_795_452_382_000_000)
	clk := &simClock{t: at}
	var tr Turns
	first := runAlone(t, clk, &tr, token("other", 0, Turn{}, at), at, 2000) // a head of no turn
	firstTook := clk.t.Sub(at)
	mid := clk.t
	steady := runAlone(t, clk, &tr, token(testRequest, 0, Turn{}, mid), mid, 20000)
	share := func(r startRun, took time.Duration) float64 { return 100 * float64(r.waited) / float64(took) }
	want := 100 * float64(soloGap+1) / float64(soloRoundTrips+soloGap+1)
	t.Logf("first 2,000 appends: %d waits, %.2f%% of the time; next 20,000: %d waits, %.2f%% (by construction %.2f%%)",
		first.waits, share(first, firstTook), steady.waits, share(steady, clk.t.Sub(mid)), want)
	if got := share(steady, clk.t.Sub(mid)); got > want+0.2 || got < want-0.5 {
		t.Errorf("a writer alone flat out waited %.2f%% of its time, want about %.2f%% (soloGap+1 round trips a solo turn)", got, want)
	}
}
