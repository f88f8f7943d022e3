// The turns make the processes that write one name flat out take
// turns, so that their writes do not collide (Turns), and writes and reads
// the write token that items carry (Token, ParseToken, TurnOfItem), which names
// the last number of their write and, for a write made in a turn, the turn.
//
// Nothing here touches DynamoDB: a strategy reads the head of a name and
// writes, and tells its Turns what it saw and what happened.

package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/dynamoseq/dynamoseq/internal/backoff"
)

// contentionWindow is how long after a lost race, or after seeing another
// writer's turn, a name counts as contended, and its writers take turns.
// Contention seen only in another's turn ends sooner when that writer
// does not write again after this one's turn (see Saw).
const contentionWindow = time.Second

// otherGone is how long after the end of its own turn, in round trips of a
// write, a writer that reads the head and finds its own write there takes
// it that the others it saw have stopped: the first in line wakes half a
// round trip before the turn ends, reads and writes, so its write has
// landed by then (see Saw).
const otherGone = 2

// turnRoundTrips is the length of a turn, in round trips of one write.
const turnRoundTrips = 2

// turnSpacing is the time between the writers in line at the end of a turn,
// in round trips: enough for one to read the head and write, so that the
// next one reads the turn it started instead of colliding with it.
const turnSpacing = 3

// skewLimit is how far apart the clocks of two hosts may be for their
// turns: a turn read from a token whose end, by its writer's clock, is
// further in the past by the reader's is over, whatever time it had left
// (an item read long after its write, of a writer that stopped).
const skewLimit = 10 * time.Second

// probeRoundTrips is when, in round trips of a write, a writer that read
// another's solo turn from the head reads the head again, when the turn
// has longer left: a holder flat out has written meanwhile; if the head
// is the same item, the holder has stopped (a restart, a deploy) and the
// writer writes at once instead of sleeping out the rest of the turn, up
// to soloRoundTrips round trips (see probed).
const probeRoundTrips = 8

// maxTurnWaits is how many turns of others in a row a writer waits through
// before it writes without waiting.
const maxTurnWaits = 16

// A writer that writes flat out (each write starts as soon as the one
// before it ended) at a name it has met no other writer of holds a solo
// turn: soloFirst round trips at first, twice as long each time, up to
// soloRoundTrips round trips and at most soloCap times MaxDelay. At its
// end the writer leaves the name alone for soloGap round trips, so that a
// writer of another process that waits for the turn's end (it read the
// turn from an item) writes first: its write then makes the two take
// turns (the holder loses a race, or meets its transaction). Otherwise a
// writer flat out whose writes are transactions holds the name's items
// all the time, and a writer of another process meets them at every try.
// A writer alone flat out pays soloGap round trips and a part of one every
// solo turn: 2.3% of its time once its solo turns have grown, 2.9% over
// its first 2,000 writes (TestTurnsSoloGapShare); one that pauses between
// writes holds none.
const (
	soloFirst      = turnRoundTrips
	soloRoundTrips = 128
	soloCap        = 10
	soloGap        = 2
)

// Turn is a writer's turn at a name: when it ends, and its number. Every
// write made in a turn names it in its item (see Token). The zero Turn is
// no turn.
type Turn struct {
	end  time.Time // by its writer's clock: it tells the writer's turns apart
	no   int64     // one more than the turn before it
	line int64     // the turns of others between its writer's last two
	solo bool      // a solo turn (see soloFirst)
	// For a turn read from a write token: its end by the reader's clock,
	// from the time the turn had left when its write started (see
	// ParseToken); zero otherwise, and then end is used.
	seen time.Time
}

// IsZero reports whether t is no turn.
func (t Turn) IsZero() bool { return t.no == 0 }

// Turns is what one writer knows of the turns at one name, and makes the
// processes that write the name flat out take turns, so that their writes
// do not collide. A strategy's per-name hint embeds it; only the run in
// progress for the name touches it (see Group), so it needs no
// lock. The zero Turns is a writer that has met no other.
//
// Why: writers of different processes cannot share a queue. Without turns,
// each one that has calls waiting writes, one of them wins and the others
// lose the race and write again at once: with k processes, every stored
// batch costs about k requests, and each lost one holds up the server, and
// the winner, for as long as a write.
//
// How: while the name is contended (a race lost, or another's turn seen,
// within contentionWindow; see Saw for the end of the latter), a writer
// whose write wins holds a turn of
// turnRoundTrips round trips and writes back to back until it ends. Every
// write of the turn names the turn, its end and its number, in the item
// that the others read: in the item returned by a lost race, or by a read
// of the head. A writer that learns of another's turn sleeps until it ends,
// reads the head again and writes, which starts its own turn. The writers
// go in the order of the turns they last held: the one whose last turn is
// the oldest writes at once when the turn ends, the next turnSpacing round
// trips later, by when it reads the new turn and waits for it, and so on.
// A writer whose turn has ended gets in line last. A write that meets
// another's transaction in flight (a conflict) counts as a lost race: the
// writer reads the head once that write has landed, and waits for its
// turn (see Conflicted).
//
// A writer that has not met another lately and pauses between its writes
// holds no turn and never waits. One that writes flat out holds solo
// turns and, at the end of each, leaves the name alone for soloGap round
// trips (see soloFirst): a writer of another process, which cannot win a
// race against writes that follow each other back to back, reads the
// solo turn, waits for its end and writes then, and from then on the two
// take turns. A solo turn with long left is read again first, after
// probeRoundTrips round trips: the same item means that its holder has
// stopped (a restart), and the writer writes at once. Contention only
// read in another's turn ends when a read shows that the other stopped
// (see Saw). The single process flat out pays that gap, 2-3% of its
// time, more over its first thousand writes while its solo turns grow
// (docs/performance.md).
//
// A skewed clock never makes a writer wait longer: an item tells its
// turn's end by its writer's clock and the time the turn had left when its
// write started, and a reader takes the earlier of that end and the time
// left counted from its read, less one round trip of a write (the item
// landed one after it was made). A writer whose clock runs behind thus
// wakes a round trip and a read late at most; one whose clock runs ahead
// wakes early and loses a race, as any writer outside a turn can. A turn
// whose end by its writer's clock is skewLimit past is over. A waiting
// writer never sleeps longer than MaxDelay for a turn and its place in
// line, soloCap times MaxDelay for a solo turn. The turns only order the
// writes: the conditions of the writes keep the guarantees, whatever the
// turns say.
type Turns struct {
	rtt       time.Duration // how long a won write or a read takes, a moving average
	raced     time.Time     // until when the name counts as contended after a lost race or a conflict
	contended time.Time     // until when it counts as contended after another's turn was seen (see Saw)
	mine      Turn          // this writer's turn, while it lasts
	other     Turn          // the newest turn of another writer seen; its end by this writer's clock
	otherBy   time.Time     // the latest wake for it, its place in line included
	held      int64         // the number of this writer's last turn
	heldEnd   time.Time     // and its end, when this writer won a write in it
	waited    int64         // the number of the last turn of another waited for
	solo      int64         // the number of this writer's last solo turn
	soloEnd   time.Time     // and its end
	soloLen   int64         // the round trips of its next solo turn; 0: soloFirst
	wonAt     time.Time     // when its last won write ended
	write     time.Duration // how long a won write takes, a moving average
	retry     time.Time     // after a conflict: when to read the head again
	probe     Turn          // another's solo turn read from the head, to be read again (see probeRoundTrips)
	probeAt   time.Time     // when it was read; zero: no probe pending
}

// wait reports whether the writer must wait before its next write at now,
// and for how long (0 when its place in the line has come already): while
// another writer has its turn, or once this writer's own turn is over (it
// goes to the back of the line), until that turn ends, plus turnSpacing
// round trips for each writer in line before this one (at most maxDelay),
// less half a round trip, plus a jitter of up to a quarter. After a wait,
// the writer must read the head again: the others wrote meanwhile.
func (t *Turns) wait(now time.Time, maxDelay time.Duration) (time.Duration, bool) {
	if t.held == 0 && t.other.no != 0 { // the first turn this writer sees: in line after the others
		t.held = t.other.no - 1
	}
	var until, limit time.Time
	var behind int64 // writers in line before this one
	switch {
	case now.Before(t.retry):
		// A conflict: another writer's write is in flight. The head
		// is read once it landed, to learn its turn.
		return t.retry.Sub(now), true
	case t.isSolo(t.mine) && !now.Add(t.writeRTT()).Before(t.mine.end):
		// A solo turn is over: unless the writer paused since its last
		// write (a writer waiting for the end wrote then), it leaves the
		// name alone for soloGap round trips (see soloFirst).
		end := t.mine.end
		t.mine = Turn{}
		if now.Sub(t.wonAt) > t.writeRTT() {
			return 0, false
		}
		wake := end.Add(min(soloGap*t.writeRTT(), soloCap*maxDelay))
		t.wonAt = wake // flat out still: the next solo turn is longer
		return max(0, wake.Sub(now)), true
	case now.Before(t.other.end) && t.other.no != t.waited && t.other.no-t.held <= maxTurnWaits:
		// Once per turn: a writer that wakes before the turn ends (the
		// first in line does, by half a round trip) writes after its
		// read, whatever the read says of the same turn.
		if at, ok := t.probeWake(); ok {
			return max(0, at.Sub(now)), true // the head is read again then (see probed)
		}
		until, behind = t.other.end, max(0, t.other.line-(t.other.no-t.held))
		t.waited, limit = t.other.no, t.otherBy
	case !t.mine.end.IsZero() && !now.Add(t.writeRTT()).Before(t.mine.end):
		// Over: in line after the others, after one at least, so as not
		// to take the next turn from the first in line.
		until, behind = t.mine.end, max(t.mine.line, 1)
		t.mine = Turn{}
	default:
		return 0, false
	}
	// The first in line reads the head half a round trip before the turn
	// ends, as the last write of the turn lands.
	inLine := min(time.Duration(behind*turnSpacing)*t.writeRTT(), maxDelay)
	wake := until.Add(inLine - t.rtt/2 + rand.N(t.rtt/4+1))
	if !limit.IsZero() && wake.After(limit) {
		wake = limit
	}
	return max(0, wake.Sub(now)), true
}

// Take waits as the turns say before a write (see wait), reads the head
// with read whenever the writer does not know it (known false; a wait
// makes it so), and returns the turn the write belongs to (see next). read
// records the head in the writer's hint and returns the turn of the write
// that stored it. waited is told of every wait and its length.
func (t *Turns) Take(ctx context.Context, known *bool, maxDelay time.Duration, waited func(time.Duration), read func() (Turn, error)) (Turn, error) {
	return t.take(ctx, known, maxDelay, waited, read, systemClock{})
}

// take is Take on clock c.
func (t *Turns) take(ctx context.Context, known *bool, maxDelay time.Duration, waited func(time.Duration), read func() (Turn, error), c clock) (Turn, error) {
	for {
		solo := t.isSolo(t.mine)
		if d, wait := t.wait(c.now(), maxDelay); wait {
			waited(d)
			if err := c.sleep(ctx, d); err != nil {
				return Turn{}, err
			}
			if !solo {
				*known = false // the others wrote meanwhile
			}
		}
		if *known {
			return t.next(c.now(), maxDelay), nil
		}
		start := c.now()
		tn, err := read()
		t.sample(c.now().Sub(start))
		if err != nil {
			return Turn{}, err
		}
		*known = true
		t.saw(tn, maxDelay, c.now())
	}
}

// clock is the time Turns read and sleep by: the system's, or a test's.
type clock interface {
	now() time.Time
	sleep(ctx context.Context, d time.Duration) error
}

// systemClock is the system's clock.
type systemClock struct{}

func (systemClock) now() time.Time { return time.Now() }

func (systemClock) sleep(ctx context.Context, d time.Duration) error { return backoff.Sleep(ctx, d) }

// contendedAt reports whether the name counts as contended at now: after a
// lost race, or while another's turn seen counts (see Saw).
func (t *Turns) contendedAt(now time.Time) bool {
	return now.Before(t.raced) || now.Before(t.contended)
}

// next returns the turn that a write starting at now belongs to: this
// writer's turn while a write started now ends within it, else a new turn
// of turnRoundTrips round trips (at most maxDelay) when the name is
// contended, else a solo turn when the writer writes flat out (see
// soloTurn), else no turn.
func (t *Turns) next(now time.Time, maxDelay time.Duration) Turn {
	switch {
	case !t.contendedAt(now):
		// Contention is over: the others' turns are forgotten.
		t.other, t.waited = Turn{}, 0
		return t.soloTurn(now, maxDelay)
	case now.Add(t.writeRTT()).Before(t.mine.end):
		return t.mine
	}
	end := now.Add(min(max(turnRoundTrips*t.writeRTT(), time.Millisecond), maxDelay))
	tn := Turn{
		end: time.UnixMicro(end.UnixMicro()), // as Token writes it
		no:  max(t.other.no, t.held) + 1,
	}
	// The writers in line: the turns of others since this writer's last
	// one, and at most one more than the previous holder saw (a writer
	// that sat out some rounds must not make the line look longer than
	// it is). The others order themselves by it during the turn (see
	// wait).
	tn.line = min(max(0, tn.no-t.held-1), t.other.line+1, maxTurnWaits)
	return tn
}

// soloTurn returns the turn that a write starting at now belongs to at a
// name the writer has met no other writer of: its solo turn while a write
// started now ends within it; else, when the writer writes flat out (its
// last write ended within a round trip), a new solo turn, twice as long
// as the last one (see soloFirst); else none.
func (t *Turns) soloTurn(now time.Time, maxDelay time.Duration) Turn {
	switch {
	case t.isSolo(t.mine) && now.Add(t.writeRTT()).Before(t.mine.end):
		return t.mine
	case t.wonAt.IsZero() || now.Sub(t.wonAt) > t.writeRTT():
		return Turn{} // the next solo turn is as long still: a pause (a paced write) is no other writer
	}
	n := max(t.soloLen, soloFirst)
	t.soloLen = min(2*n, soloRoundTrips)
	end := now.Add(min(max(time.Duration(n)*t.writeRTT(), time.Millisecond), soloCap*maxDelay))
	t.solo, t.soloEnd = max(t.held, t.solo)+1, time.UnixMicro(end.UnixMicro()) // as Token writes it
	return Turn{end: t.soloEnd, no: t.solo, solo: true}
}

// isSolo reports whether tn is this writer's last solo turn: its number
// and its end, since the writer's turns with others may take the number
// again.
func (t *Turns) isSolo(tn Turn) bool {
	return tn.no != 0 && tn.no == t.solo && tn.end.Equal(t.soloEnd)
}

// Won records a write that started at start, belonged to turn tn (the zero
// turn: none) and has just succeeded, and reports whether it started the
// turn.
func (t *Turns) Won(start time.Time, tn Turn) (started bool) {
	return t.won(start, tn, time.Now())
}

// won is Won at now.
func (t *Turns) won(start time.Time, tn Turn, now time.Time) (started bool) {
	t.wonAt = now
	t.sample(t.wonAt.Sub(start))
	t.write = average(t.write, t.wonAt.Sub(start))
	started = tn.no != 0 && tn.no != t.held && !t.isSolo(tn)
	if tn.no != 0 {
		t.held, t.heldEnd = tn.no, tn.end
	}
	t.mine = tn
	return started
}

// Lost records a write that started at start and has just lost a race to
// another writer: this writer's turn, if any, is over. Its time is not a
// round trip: a write that loses may have waited for the winner's.
func (t *Turns) Lost(start time.Time) { t.lose(time.Now()) }

// lose is Lost at now. A lost race is contention whatever the turns say:
// it lasts contentionWindow (see Saw for contention only seen).
func (t *Turns) lose(now time.Time) {
	t.raced = now.Add(contentionWindow)
	t.mine, t.soloLen = Turn{}, 0
}

// Conflicted records a write that started at start and met another
// writer's transaction in flight (a conflict, which DynamoDB refuses): as
// a lost race (see Lost), and the writer waits about the rest of that
// write's round trip (half to all of one) before it reads the head, to
// learn the turn the write belongs to. The caller must read the head
// before it writes again.
func (t *Turns) Conflicted(start time.Time) {
	t.lose(time.Now())
	w := t.writeRTT()
	t.retry = time.Now().Add(w/2 + rand.N(w/2+1))
}

// Saw records a turn read from an item written by the name's latest write:
// another writer's turn, unless it is over, is to be waited for, with the
// writer's place in line, at most maxDelay from when it is first seen,
// soloCap times maxDelay for a solo turn (its longest). A turn read from a
// token ends at the earlier of its end and the time ParseToken says less a
// round trip of a write (the item landed that long after it was made),
// unless its end is skewLimit past. A turn seen before, or this writer's
// own, changes nothing, but for one case:
//
// The name counts as contended for contentionWindow after another's turn
// is seen, unless the writer reads, otherGone round trips or more after
// the end of a turn of its own that followed the other's, that its own
// turn is still the head: the others in line would have written by then
// (see wait), so they have stopped, and contention ends at once. A writer
// that comes to a name another wrote a moment ago (a restart, a deploy)
// thus takes one turn and one place in line, not contentionWindow of
// them. A lost race (Lost) is contention for contentionWindow all the same.
func (t *Turns) Saw(tn Turn, maxDelay time.Duration) { t.saw(tn, maxDelay, time.Now()) }

// saw is Saw at now.
func (t *Turns) saw(tn Turn, maxDelay time.Duration, now time.Time) {
	if !t.contendedAt(now) {
		// Contention was over; the turns are numbered afresh.
		t.other, t.held, t.waited = Turn{}, 0, 0
	}
	if t.ownAfterOther(tn, now) {
		t.contended = time.Time{} // the others stopped
	}
	if t.probed(tn, now) {
		t.other.end, t.contended = now, time.Time{} // its holder stopped
		return
	}
	if tn.no == 0 || tn.no == t.held || tn.no <= t.other.no || t.isSolo(tn) {
		return
	}
	t.other = tn
	if !tn.seen.IsZero() && tn.end.After(now.Add(-skewLimit)) {
		if seen := tn.seen.Add(-t.writeRTT()); seen.Before(tn.end) {
			t.other.end = seen
		}
	}
	if !t.other.end.After(now) {
		return
	}
	t.contended = now.Add(contentionWindow)
	t.otherBy = now.Add(maxDelay)
	t.probeAt = time.Time{}
	if tn.solo {
		t.otherBy = now.Add(soloCap * maxDelay)
		if !tn.seen.IsZero() { // a token that tells the time left
			t.probe, t.probeAt = tn, now
		}
	}
	if t.other.end.After(t.otherBy) {
		t.other.end = t.otherBy // a solo turn's longest, or a token not believed
	}
	t.mine, t.soloLen = Turn{}, 0
}

// ownAfterOther reports whether tn, read from the head at now, is this
// writer's own turn, taken after the others' turn it saw last, and ended
// otherGone round trips of a write ago or more (see Saw).
func (t *Turns) ownAfterOther(tn Turn, now time.Time) bool {
	return tn.no != 0 && !tn.solo && tn.no == t.held && tn.end.Equal(t.heldEnd) && tn.no > t.other.no &&
		!now.Before(tn.end.Add(otherGone*t.writeRTT()))
}

// probeWake returns when to read the head again to probe another's solo
// turn (see probeRoundTrips); false when no probe is pending, or the turn
// ends by then anyway.
func (t *Turns) probeWake() (time.Time, bool) {
	if t.probeAt.IsZero() || t.probe.no != t.other.no {
		return time.Time{}, false
	}
	at := t.probeAt.Add(probeRoundTrips * t.writeRTT())
	if !at.Before(t.other.end.Add(-t.rtt)) {
		t.probeAt = time.Time{}
		return time.Time{}, false
	}
	return at, true
}

// probed reports whether tn, read from the head at now, is the very item
// that the pending probe read (see probeRoundTrips): the same solo turn,
// its end as read moved on by the time between the two reads, as it does
// for one item read twice, not for two writes of the turn (the later one
// had less time left, by at least the holder's round trip). It ends the
// probe either way. A reader that stalls between its read and now by
// more than the tolerance takes the item for another: it then waits for
// the turn's end, as without a probe.
func (t *Turns) probed(tn Turn, now time.Time) bool {
	if t.probeAt.IsZero() || tn.no != t.probe.no || !tn.end.Equal(t.probe.end) || !tn.solo || tn.seen.IsZero() {
		return false
	}
	moved := tn.seen.Sub(t.probe.seen) - now.Sub(t.probeAt)
	t.probeAt = time.Time{}
	return moved.Abs() <= min(t.writeRTT()/2, time.Millisecond)
}

// RoundTrip is the moving average of the writer's round trips at the name
// (its won writes and its reads of the head); 0 before it measured any.
func (t *Turns) RoundTrip() time.Duration { return t.rtt }

// sample adds the time a write or a read took to the moving average of
// round trips.
func (t *Turns) sample(took time.Duration) { t.rtt = average(t.rtt, took) }

// average adds took to the moving average avg (0: none yet).
func average(avg, took time.Duration) time.Duration {
	if avg == 0 {
		avg = took
	}
	return (3*avg + took) / 4
}

// writeRTT is the moving average of the writer's won writes, which sets
// the length of its turns and the spacing of the line; its round trip
// (reads too) before it won any.
func (t *Turns) writeRTT() time.Duration {
	if t.write == 0 {
		return t.rtt
	}
	return t.write
}

// The write token of an item is written by one writer (Token) and read by
// the others (ParseToken, TurnOfItem), of any process. Its format:
//
//	<request>:<last>                            outside a turn
//	<request>:<last>:<end>:<no>:<line>:<left>   in a turn
//
// request is the write's request token (RequestToken), which tells
// the attempts of one write from any other; last is the last number the
// write stores; end, no, line and left are the write's turn: its end in
// Unix microseconds by the writer's clock (which only tells its writer's
// turns apart), its number, its line, and the microseconds it had left
// when the write's token was made, in decimal, followed by "s" for a solo
// turn. Every attempt of a write carries the same token. ParseToken also
// reads <request>:<last>:<end>:<no>:<line>, as written before left was
// (the end then read by the reader's clock).

// TokenBytes is the largest size of a write token: 32 hex digits, a colon,
// up to 19 digits, a colon and a turn.
const TokenBytes = 32 + 1 + 19 + 1 + turnTokenBytes

// turnTokenBytes is the largest size of a turn in a write token.
const turnTokenBytes = 4*19 + 3 + 1

// Token returns the write token of the items of one write: the write's
// request token, the last number the write stores and, for a write made in
// a turn, the turn, with the time it has left now.
func Token(request string, last int64, tn Turn) string {
	return token(request, last, tn, time.Now())
}

// token is Token at now.
func token(request string, last int64, tn Turn, now time.Time) string {
	tok := request + ":" + strconv.FormatInt(last, 10)
	if tn.no == 0 {
		return tok
	}
	tok += ":" + strconv.FormatInt(tn.end.UnixMicro(), 10) + ":" + strconv.FormatInt(tn.no, 10) + ":" + strconv.FormatInt(tn.line, 10) +
		":" + strconv.FormatInt(max(0, tn.end.Sub(now).Microseconds()), 10)
	if tn.solo {
		tok += "s"
	}
	return tok
}

// ParseToken reads a write token written by Token: the last number of its
// write, and its turn (the zero Turn when it names none), which ends, by
// this process's clock, the time it had left after now (see Saw). ok is
// false when s is not such a token.
func ParseToken(s string) (last int64, tn Turn, ok bool) {
	return parseToken(s, time.Now())
}

// parseToken is ParseToken at now.
func parseToken(s string, now time.Time) (last int64, tn Turn, ok bool) {
	f := strings.Split(s, ":")
	switch len(f) {
	case 2:
	case 5, 6:
		if tn = parseTurn(f[2], f[3], f[4]); tn.no == 0 {
			return 0, Turn{}, false
		}
		if len(f) == 6 && !parseLeft(&tn, f[5], now) {
			return 0, Turn{}, false
		}
	default:
		return 0, Turn{}, false
	}
	last, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, Turn{}, false
	}
	return last, tn, true
}

// parseTurn reads the fields of a turn written by Token; the zero Turn when
// they are not one.
func parseTurn(end, no, line string) Turn {
	us, err1 := strconv.ParseInt(end, 10, 64)
	n, err2 := strconv.ParseInt(no, 10, 64)
	l, err3 := strconv.ParseInt(line, 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || us <= 0 || n <= 0 || l < 0 || l > maxTurnWaits {
		return Turn{}
	}
	return Turn{end: time.UnixMicro(us), no: n, line: l}
}

// parseLeft reads the time a turn had left, and whether it is solo, as
// Token writes them, into tn, its end by the reader's clock counted from
// now; false when left is not such a field.
func parseLeft(tn *Turn, left string, now time.Time) bool {
	left, tn.solo = strings.CutSuffix(left, "s")
	us, err := strconv.ParseInt(left, 10, 64)
	if err != nil || us < 0 {
		return false
	}
	tn.seen = now.Add(time.Duration(min(us, int64(math.MaxInt64/time.Microsecond))) * time.Microsecond)
	return true
}

// TurnOfItem returns the turn named by the write token of item, in its
// attribute attr; the zero Turn when it names none.
func TurnOfItem(item map[string]types.AttributeValue, attr string) Turn {
	tok, ok := item[attr].(*types.AttributeValueMemberS)
	if !ok {
		return Turn{}
	}
	_, tn, _ := ParseToken(tok.Value)
	return tn
}
