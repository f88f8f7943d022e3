package engine

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// These are the package's own tests, which see the Turns's fields. What
// the turns buy across processes is shown by the root package's
// TestSortKeyAppendProcesses, TestLatestAppendProcesses and
// BenchmarkProcessesOneName.

const (
	testRTT      = 4 * time.Millisecond
	testMaxDelay = 200 * time.Millisecond
)

// pause is how long wait tells the writer to sleep at now, -1 for no wait.
func pause(tr *Turns, now time.Time) time.Duration {
	d, wait := tr.wait(now, testMaxDelay)
	if !wait {
		return -1
	}
	return d
}

func TestTurnsLoneWriterNeverWaits(t *testing.T) {
	t.Parallel()
	// A lone writer that pauses between its writes (longer than a round
	// trip) holds no turn and never waits.
	tr := Turns{rtt: testRTT, write: testRTT}
	now := time.Now()
	for range 3 {
		if d := pause(&tr, now); d != -1 {
			t.Fatalf("wait() = %v for a writer that met no other, want none", d)
		}
		tn := tr.next(now, testMaxDelay)
		if tn != (Turn{}) {
			t.Fatalf("next() = %+v for a writer that met no other and pauses, want no turn", tn)
		}
		tr.Won(now, tn)
		now = tr.wonAt.Add(2 * testRTT)
	}
}

// TestTurnsSoloTurn: a lone writer flat out holds solo turns, each twice
// as long as the one before (at most soloRoundTrips round trips), and at
// the end of each leaves the name alone for soloGap round trips, without
// reading the head again; once another writer's turn is seen, the turns
// are the contended ones.
func TestTurnsSoloTurn(t *testing.T) {
	t.Parallel()
	tr := Turns{rtt: testRTT, write: testRTT}
	tr.wonAt = time.Now() // its last write just ended: flat out
	now := tr.wonAt
	var last time.Duration
	for i := range 6 {
		tn := tr.next(now, time.Hour)
		if tn.IsZero() || tn.line != 0 {
			t.Fatalf("solo turn %d: next() = %+v, want a solo turn of line 0", i, tn)
		}
		long := tn.end.Sub(now)
		want := time.Duration(min(soloFirst<<i, soloRoundTrips)) * testRTT
		if long < want-time.Millisecond || long > want+time.Millisecond {
			t.Errorf("solo turn %d lasts %v, want about %v", i, long, want)
		}
		if long < last {
			t.Errorf("solo turn %d lasts %v, shorter than the one before (%v)", i, long, last)
		}
		last = long
		if started := tr.Won(now, tn); started {
			t.Errorf("solo turn %d counted as a turn taken with other writers", i)
		}
		tr.write, tr.rtt = testRTT, testRTT // the won write took no time here
		tr.wonAt = tn.end.Add(-testRTT / 2) // the last write of the turn ended
		now = tr.wonAt
		d, wait := tr.wait(now, time.Hour)
		if gap := soloGap*testRTT + testRTT/2; !wait || d != gap {
			t.Fatalf("solo turn %d: wait() at its end = %v, %v, want %v (soloGap round trips after the end)", i, d, wait, gap)
		}
		now = now.Add(d)
	}
	// A writer that waited for the end wrote meanwhile: its turn, read
	// from its item, makes this writer wait in turns.
	now = time.Now() // Saw reads the clock
	tr.Lost(now)
	tr.Saw(Turn{end: now.Add(20 * time.Millisecond), no: tr.solo + 1, line: 1}, testMaxDelay)
	if d := pause(&tr, now); d <= 0 {
		t.Errorf("wait() after another's turn = %v, want a wait", d)
	}
	if tr.soloLen != 0 {
		t.Errorf("soloLen = %d once contended, want 0 (the next solo turn is short again)", tr.soloLen)
	}
}

// TestTurnsConflicted: a write that met another's transaction in flight
// makes the writer wait half to all of a write's round trip before it
// reads the head, and the name contended.
func TestTurnsConflicted(t *testing.T) {
	t.Parallel()
	tr := Turns{rtt: testRTT, write: 2 * testRTT}
	now := time.Now()
	tr.Conflicted(now)
	d := pause(&tr, now)
	if d < testRTT-time.Millisecond || d > 2*testRTT {
		t.Errorf("wait() after a conflict = %v, want %v to %v", d, testRTT, 2*testRTT)
	}
	if !tr.contendedAt(now) {
		t.Errorf("a conflict did not make the name contended")
	}
	if d := pause(&tr, now.Add(2*testRTT+time.Millisecond)); d != -1 {
		t.Errorf("wait() after the conflict's wait = %v, want none", d)
	}
}

func TestTurnsHolderWritesUntilItsTurnEnds(t *testing.T) {
	t.Parallel()
	tr := Turns{rtt: testRTT, write: testRTT}
	tr.Lost(time.Now())
	tr.Saw(Turn{end: time.Now().Add(-time.Millisecond), no: 7, line: 2}, testMaxDelay) // over
	now := time.Now()
	if d := pause(&tr, now); d != -1 {
		t.Fatalf("wait() = %v after a turn that is over, want none", d)
	}
	tn := tr.next(now, testMaxDelay)
	if tn.no != 8 || tn.line != 1 {
		t.Errorf("next() = turn %d, line %d after seeing turn 7, want turn 8, line 1 (the holder of 7)", tn.no, tn.line)
	}
	if want := now.Add(turnRoundTrips * testRTT); tn.end.Before(want.Add(-time.Millisecond)) || tn.end.After(want.Add(time.Millisecond)) {
		t.Errorf("next().end = %v, want about %v (%d round trips)", tn.end, want, turnRoundTrips)
	}
	tr.Won(now, tn)
	if got := tr.next(now.Add(testRTT), testMaxDelay); got != tn {
		t.Errorf("next() within the turn = %+v, want the same turn %+v", got, tn)
	}
	if d := pause(&tr, now.Add(testRTT)); d != -1 {
		t.Errorf("wait() within the turn = %v, want none", d)
	}
	// A write that would end after the turn: the turn is over, and the
	// holder gets in line after the one writer it saw.
	rtt := tr.rtt // the won write's time went into it
	late := tn.end.Add(-rtt / 2)
	if d, lo := pause(&tr, late), turnSpacing*rtt; d < lo || d > lo+rtt/4 {
		t.Errorf("wait() as the turn ends = %v, want %v to %v", d, lo, lo+rtt/4)
	}
	if tr.mine != (Turn{}) {
		t.Errorf("mine = %+v after the turn is over, want none", tr.mine)
	}
}

func TestTurnsWaitInLine(t *testing.T) {
	t.Parallel()
	// Turn 12 was started by a writer that saw 3 others in line. The
	// writer that held turn 9 has waited longest and goes first, half a
	// round trip before the turn ends; turn 10's holder goes turnSpacing
	// round trips later, turn 11's twice that.
	for held, behind := range map[int64]int64{9: 0, 10: 1, 11: 2} {
		tr := Turns{rtt: testRTT, write: testRTT, held: held, contended: time.Now().Add(time.Second)}
		now := time.Now()
		end := now.Add(20 * time.Millisecond)
		tr.Saw(Turn{end: end, no: 12, line: 3}, testMaxDelay)
		d := pause(&tr, now)
		lo := end.Sub(now) + time.Duration(behind*turnSpacing)*testRTT - testRTT/2
		if d < lo || d > lo+testRTT/4 {
			t.Errorf("held turn %d: wait() = %v, want %v to %v", held, d, lo, lo+testRTT/4)
		}
		if !tr.contendedAt(now) {
			t.Errorf("held turn %d: another's turn did not make the name contended", held)
		}
	}
}

func TestTurnsSaw(t *testing.T) {
	t.Parallel()
	now := time.Now()
	t.Run("own turn", func(t *testing.T) {
		tr := Turns{rtt: testRTT, mine: Turn{end: now.Add(time.Second), no: 5}, held: 5, contended: now.Add(time.Second)}
		tr.Saw(tr.mine, testMaxDelay)
		tr.mine = Turn{} // over, as wait makes it: the head still names it
		tr.Saw(Turn{end: now.Add(time.Second), no: 5}, testMaxDelay)
		if d := pause(&tr, time.Now()); d != -1 {
			t.Errorf("wait() = %v after seeing its own turn, want none", d)
		}
	})
	t.Run("older turn", func(t *testing.T) {
		tr := Turns{rtt: testRTT, write: testRTT}
		tr.Saw(Turn{end: now.Add(time.Second), no: 5}, testMaxDelay)
		tr.Saw(Turn{end: now.Add(2 * time.Second), no: 4}, testMaxDelay)
		if tr.other.no != 5 {
			t.Errorf("other = turn %d, want 5: an older turn changes nothing", tr.other.no)
		}
	})
	t.Run("capped by MaxDelay", func(t *testing.T) {
		tr := Turns{rtt: testRTT, write: testRTT}
		tr.Saw(Turn{end: now.Add(time.Hour), no: 5, line: maxTurnWaits}, testMaxDelay)
		if d := pause(&tr, time.Now()); d > testMaxDelay {
			t.Errorf("wait() = %v for a turn an hour long, last in line, want at most MaxDelay (%v)", d, testMaxDelay)
		}
	})
	t.Run("solo capped by soloCap MaxDelays", func(t *testing.T) {
		tr := Turns{rtt: testRTT, write: testRTT}
		tr.Saw(Turn{end: now.Add(time.Hour), no: 5, solo: true}, testMaxDelay)
		if d := pause(&tr, time.Now()); d <= testMaxDelay || d > soloCap*testMaxDelay {
			t.Errorf("wait() = %v for a solo turn an hour long, want more than MaxDelay, at most %d MaxDelays (a solo turn's longest)", d, soloCap)
		}
	})
	t.Run("skewed clock", func(t *testing.T) {
		// The writer's clock ahead (the turn would seem to end later):
		// the turn ends when its token says it had left, less a
		// write's round trip. Behind (up to skewLimit): when its end
		// says, the earlier of the two.
		now := now.Truncate(time.Microsecond) // as a token writes an end
		for _, c := range []struct {
			skew time.Duration
			want time.Duration
		}{
			{time.Hour, 50*time.Millisecond - testRTT},
			{skewLimit / 2, 50*time.Millisecond - testRTT},
			{0, 50*time.Millisecond - testRTT},
			{-40 * time.Millisecond, 10 * time.Millisecond},
		} {
			tr := Turns{rtt: testRTT, write: testRTT}
			tok := token(testRequest, 1, Turn{end: now.Add(c.skew + 50*time.Millisecond), no: 5, solo: true}, now.Add(c.skew))
			_, tn, _ := parseToken(tok, now)
			tr.Saw(tn, testMaxDelay)
			if want := now.Add(c.want); !tr.other.end.Equal(want) {
				t.Errorf("clock %v ahead: the turn ends at %v, want %v", c.skew, tr.other.end.Sub(now), c.want)
			}
		}
		tr := Turns{rtt: testRTT, write: testRTT}
		tok := token(testRequest, 1, Turn{end: now.Add(-skewLimit/2 + 50*time.Millisecond), no: 5, solo: true}, now.Add(-skewLimit/2))
		_, tn, _ := parseToken(tok, now)
		tr.Saw(tn, testMaxDelay)
		if d := pause(&tr, time.Now()); d != -1 {
			t.Errorf("wait() = %v for a turn whose writer's clock is %v behind, want none (its end is past by this clock)", d, skewLimit/2)
		}
	})
	t.Run("stale token", func(t *testing.T) {
		// An item of a writer that stopped, read long after: its
		// turn is over, whatever time it had left.
		tr := Turns{rtt: testRTT, write: testRTT}
		old := now.Add(-time.Hour)
		_, tn, _ := parseToken(token(testRequest, 1, Turn{end: old.Add(time.Second), no: 5, solo: true}, old), now)
		tr.Saw(tn, testMaxDelay)
		if d := pause(&tr, time.Now()); d != -1 {
			t.Errorf("wait() = %v for a turn that ended an hour ago, want none", d)
		}
	})
	t.Run("another's turn ends mine", func(t *testing.T) {
		tr := Turns{rtt: testRTT, mine: Turn{end: now.Add(time.Second), no: 5}}
		tr.Saw(Turn{end: now.Add(time.Second), no: 6}, testMaxDelay)
		if tr.mine != (Turn{}) {
			t.Errorf("mine = %+v after another writer's turn 6, want none", tr.mine)
		}
	})
	t.Run("waited through too many turns", func(t *testing.T) {
		tr := Turns{rtt: testRTT, write: testRTT, held: 1, contended: now.Add(time.Second)}
		tr.Saw(Turn{end: now.Add(time.Second), no: 2 + maxTurnWaits}, testMaxDelay)
		if d := pause(&tr, time.Now()); d != -1 {
			t.Errorf("wait() = %v after %d turns of others, want none", d, maxTurnWaits+1)
		}
	})
}

// Found in review: each bounded by a test.
func TestTurnsBounded(t *testing.T) {
	t.Parallel()
	t.Run("a turn read again is not waited for again", func(t *testing.T) {
		// A head item that names a solo turn ending in an hour (a
		// token not believed): the writer waits soloCap MaxDelays once,
		// then writes, however often it reads the same turn.
		tr := Turns{rtt: testRTT, write: testRTT, held: 1}
		far := Turn{end: time.Now().Add(time.Hour), no: 2, solo: true}
		tr.Saw(far, testMaxDelay)
		if d := pause(&tr, time.Now()); d <= 0 || d > soloCap*testMaxDelay+testRTT {
			t.Fatalf("first wait() = %v, want up to %d MaxDelays", d, soloCap)
		}
		later := time.Now().Add(soloCap*testMaxDelay + testRTT) // after the wait
		tr.Saw(far, testMaxDelay)
		if d := pause(&tr, later); d != -1 {
			t.Errorf("wait() after reading the same turn again = %v, want none", d)
		}
	})
	t.Run("a long line is capped", func(t *testing.T) {
		// 489 turns of others since this writer's last: the line it
		// announces is one more than the last holder's, and at most
		// maxTurnWaits.
		for seen, want := range map[int64]int64{3: 4, maxTurnWaits: maxTurnWaits} {
			tr := Turns{rtt: 10 * time.Millisecond, held: 10, contended: time.Now().Add(time.Second)}
			tr.Saw(Turn{end: time.Now().Add(-time.Millisecond), no: 500, line: seen}, testMaxDelay)
			if tn := tr.next(time.Now(), testMaxDelay); tn.line != want {
				t.Errorf("next().line = %d after turn 500 of line %d, want %d", tn.line, seen, want)
			}
		}
		tr := Turns{rtt: 10 * time.Millisecond, held: 10, contended: time.Now().Add(time.Second)}
		tr.Saw(Turn{end: time.Now().Add(-time.Millisecond), no: 500, line: maxTurnWaits}, testMaxDelay)
		tn := tr.next(time.Now(), testMaxDelay)
		item := map[string]types.AttributeValue{"wtok": &types.AttributeValueMemberS{Value: Token("abc", 1, tn)}}
		if got := TurnOfItem(item, "wtok"); !sameTurn(got, tn) {
			t.Errorf("the others read %+v from its token, want %+v", got, tn)
		}
		tr.Won(time.Now(), tn)
		if d := pause(&tr, tn.end); d > testMaxDelay+tr.rtt {
			t.Errorf("wait() at the end of the turn = %v, want at most MaxDelay", d)
		}
	})
	t.Run("own solo turn read from the head", func(t *testing.T) {
		// A writer alone flat out reads its own solo turn in the head
		// (after a wait, say): it does not wait for it, nor does
		// another writer's turn of the same number pass for its own.
		tr := Turns{rtt: testRTT, write: testRTT}
		tr.wonAt = time.Now()
		tn := tr.next(time.Now(), testMaxDelay)
		tr.Won(time.Now(), tn)
		tr.Saw(tn, testMaxDelay)
		if d := pause(&tr, time.Now()); d != -1 {
			t.Errorf("wait() after reading its own solo turn = %v, want none", d)
		}
		other := Turn{end: tn.end.Add(time.Millisecond), no: tn.no}
		tr.Saw(other, testMaxDelay)
		if d := pause(&tr, time.Now()); d <= 0 {
			t.Errorf("wait() after another's turn of the same number = %v, want a wait", d)
		}
	})
	t.Run("own turn read after it ended", func(t *testing.T) {
		tr := Turns{rtt: testRTT, write: testRTT, contended: time.Now().Add(time.Second)}
		tn := tr.next(time.Now(), testMaxDelay)
		tr.Won(time.Now(), tn)
		pause(&tr, tn.end)       // over: mine is cleared
		tr.Saw(tn, testMaxDelay) // the head still names it
		if d := pause(&tr, time.Now()); d != -1 {
			t.Errorf("wait() after reading its own turn = %v, want none", d)
		}
	})
}

// Found in review too: a writer's first turn, and turns numbered afresh.
func TestTurnsFirstAndAfresh(t *testing.T) {
	t.Parallel()
	t.Run("a first turn goes to the back of the line", func(t *testing.T) {
		// Its line is 0 (it saw no one in line), yet at its end it lets
		// the first in line go, and reads the head again.
		tr := Turns{rtt: testRTT, write: testRTT, contended: time.Now().Add(time.Second)}
		tn := tr.next(time.Now(), testMaxDelay)
		tr.Won(time.Now(), tn)
		if tn.line != 0 {
			t.Fatalf("first turn's line = %d, want 0", tn.line)
		}
		if d := pause(&tr, tn.end); d < turnSpacing*tr.rtt-tr.rtt/2 {
			t.Errorf("wait() at the end of a first turn = %v, want at least %v", d, turnSpacing*tr.rtt-tr.rtt/2)
		}
	})
	t.Run("a turn read after a quiet second is numbered afresh", func(t *testing.T) {
		tr := Turns{rtt: testRTT, held: 40, other: Turn{no: 41}} // contention long over
		tr.Saw(Turn{end: time.Now().Add(time.Second), no: 1}, testMaxDelay)
		if tr.other.no != 1 {
			t.Errorf("another writer's turn 1 was ignored after a quiet second")
		}
	})
	t.Run("numbering starts afresh after contention", func(t *testing.T) {
		tr := Turns{rtt: testRTT, held: 40, other: Turn{no: 41}}
		if tn := tr.next(time.Now(), testMaxDelay); tn != (Turn{}) {
			t.Fatalf("next() = %+v once contention is over, want no turn", tn)
		}
		tr.Lost(time.Now())
		tr.Saw(Turn{end: time.Now().Add(time.Second), no: 1}, testMaxDelay)
		if tr.other.no != 1 {
			t.Errorf("a new writer's turn 1 was ignored after contention came back")
		}
	})
}

func TestTurnTokenRoundTrip(t *testing.T) {
	t.Parallel()
	tn := Turn{end: time.UnixMicro(1_795_452_382_005_262), no: 12, line: 3}
	tok := Token("0123456789abcdef0123456789abcdef", 42, tn)
	if len(tok) > TokenBytes {
		t.Errorf("Token is %d bytes, more than TokenBytes (%d)", len(tok), TokenBytes)
	}
	item := map[string]types.AttributeValue{"wtok": &types.AttributeValueMemberS{Value: tok}}
	if got := TurnOfItem(item, "wtok"); !sameTurn(got, tn) {
		t.Errorf("TurnOfItem(%q) = %+v, want %+v", tok, got, tn)
	}
	if got := Token("0123456789abcdef0123456789abcdef", 42, Turn{}); strings.Count(got, ":") != 1 {
		t.Errorf("Token without a turn = %q, want the token and the last number only", got)
	}
	for _, bad := range []string{"", "abc", "abc:42", "abc:42:", "abc:42:x:1:2", "abc:42:1:2", "abc:42:1:2:3:4:5", "abc:42:1:2:3:-4", "abc:42:1:2:3:x", "abc:42:1:2:3:4t", "abc:42:1:2:3:",
		"abc:42:-1:2:3", "abc:42:1:0:3", "abc:42:1:2:-3", "abc:42:1:2:99"} {
		item := map[string]types.AttributeValue{"wtok": &types.AttributeValueMemberS{Value: bad}}
		if got := TurnOfItem(item, "wtok"); got != (Turn{}) {
			t.Errorf("TurnOfItem(%q) = %+v, want no turn", bad, got)
		}
	}
	if got := TurnOfItem(map[string]types.AttributeValue{"wtok": &types.AttributeValueMemberN{Value: "1"}}, "wtok"); got != (Turn{}) {
		t.Errorf("TurnOfItem(a Number) = %+v, want no turn", got)
	}
}

func TestParseToken(t *testing.T) {
	t.Parallel()
	for tok, want := range map[string]int64{"abc:7": 7, "abc:7:1795452382005262:3:2": 7, "abc:7:1795452382005262:3:2:1500": 7, "abc:7:1795452382005262:3:0:1500s": 7} {
		if last, _, ok := ParseToken(tok); !ok || last != want {
			t.Errorf("ParseToken(%q) = %d, %v, want %d, true", tok, last, ok, want)
		}
	}
	for _, bad := range []string{"abc", "abc:x", "x:7:junk", "abc:7:1:2", "abc:7:1:2:99", "abc:7:x:2:3", ""} {
		if last, _, ok := ParseToken(bad); ok {
			t.Errorf("ParseToken(%q) = %d, true, want not a token", bad, last)
		}
	}
}

const testRequest = "0123456789abcdef0123456789abcdef" // as RequestToken makes them

// sameTurn reports whether a and b are the same turn; when they were read
// from a token (seen) does not count.
func sameTurn(a, b Turn) bool {
	a.seen, b.seen = time.Time{}, time.Time{}
	return a == b
}

// TestTokenRoundTrip: what Token writes, ParseToken reads back, within
// TokenBytes, at the ends of every field's range.
func TestTokenRoundTrip(t *testing.T) {
	t.Parallel()
	longest := Turn{end: time.UnixMicro(math.MaxInt64), no: math.MaxInt64, line: maxTurnWaits}
	tests := []struct {
		name string
		last int64
		tn   Turn
	}{
		{"no turn", 1, Turn{}},
		{"largest number, no turn", math.MaxInt64, Turn{}},
		{"a turn", 42, Turn{end: time.UnixMicro(1_795_452_382_005_262), no: 12, line: 3}},
		{"first turn, empty line", 7, Turn{end: time.UnixMicro(1), no: 1, line: 0}},
		{"longest", math.MaxInt64, longest},
		{"solo", 42, Turn{end: time.UnixMicro(1_795_452_382_005_262), no: 12, solo: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := Token(testRequest, tt.last, tt.tn)
			if len(tok) > TokenBytes {
				t.Errorf("Token() = %q, %d bytes, more than TokenBytes (%d)", tok, len(tok), TokenBytes)
			}
			last, tn, ok := ParseToken(tok)
			if !ok || last != tt.last || !sameTurn(tn, tt.tn) {
				t.Errorf("ParseToken(%q) = %d, %+v, %v, want %d, %+v, true", tok, last, tn, ok, tt.last, tt.tn)
			}
		})
	}
}

// FuzzTokenRoundTrip: any last number and any turn Token may be given
// round-trip through ParseToken; a turn ParseToken would not accept is
// written as none.
func FuzzTokenRoundTrip(f *testing.F) {
	f.Add(int64(42), int64(1_795_452_382_005_262), int64(12), int64(3))
	f.Add(int64(1), int64(0), int64(0), int64(0))
	f.Add(int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64), int64(maxTurnWaits))
	f.Fuzz(func(t *testing.T, last, end, no, line int64) {
		tn := Turn{end: time.UnixMicro(end), no: no, line: line}
		if end <= 0 || no <= 0 || line < 0 || line > maxTurnWaits {
			tn = Turn{}
		}
		tok := Token(testRequest, last, tn)
		got, gotTurn, ok := ParseToken(tok)
		if !ok || got != last || !sameTurn(gotTurn, tn) {
			t.Fatalf("ParseToken(%q) = %d, %+v, %v, want %d, %+v, true", tok, got, gotTurn, ok, last, tn)
		}
		if last >= 0 && len(tok) > TokenBytes {
			t.Fatalf("Token() = %q, %d bytes, more than TokenBytes (%d)", tok, len(tok), TokenBytes)
		}
	})
}

// FuzzParseToken: ParseToken never fails on what another writer may have
// stored, and what it accepts, Token writes back the same.
func FuzzParseToken(f *testing.F) {
	for _, s := range []string{"abc:7", "abc:7:1795452382005262:3:2", "abc:7:1795452382005262:3:2:1500s", "", ":", "abc:7:1:2", "a:-1:1:1:16"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		last, tn, ok := ParseToken(s)
		if !ok {
			if last != 0 || tn != (Turn{}) {
				t.Fatalf("ParseToken(%q) = %d, %+v, false, want zeros", s, last, tn)
			}
			return
		}
		request, _, _ := strings.Cut(s, ":")
		again, againTurn, ok := ParseToken(Token(request, last, tn))
		if !ok || again != last || !sameTurn(againTurn, tn) {
			t.Fatalf("ParseToken(Token(ParseToken(%q))) = %d, %+v, %v, want %d, %+v", s, again, againTurn, ok, last, tn)
		}
	})
}
