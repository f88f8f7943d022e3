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
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/dynamoseq/dynamoseq/internal/backoff"
)

// contentionWindow is how long after a lost race, or after seeing another
// writer's turn, a name counts as contended, and its writers take turns.
const contentionWindow = time.Second

// turnRoundTrips is the length of a turn, in round trips of one write.
const turnRoundTrips = 6

// turnSpacing is the time between the writers in line at the end of a turn,
// in round trips: enough for one to read the head and write, so that the
// next one reads the turn it started instead of colliding with it.
const turnSpacing = 3

// maxTurnWaits is how many turns of others in a row a writer waits through
// before it writes without waiting.
const maxTurnWaits = 16

// Turn is a writer's turn at a name: when it ends, and its number. Every
// write made in a turn names it in its item (see Token). The zero Turn is
// no turn.
type Turn struct {
	end  time.Time
	no   int64 // one more than the turn before it
	line int64 // the turns of others between its writer's last two
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
// within contentionWindow), a writer whose write wins holds a turn of
// turnRoundTrips round trips and writes back to back until it ends. Every
// write of the turn names the turn, its end and its number, in the item
// that the others read: in the item returned by a lost race, or by a read
// of the head. A writer that learns of another's turn sleeps until it ends,
// reads the head again and writes, which starts its own turn. The writers
// go in the order of the turns they last held: the one whose last turn is
// the oldest writes at once when the turn ends, the next turnSpacing round
// trips later, by when it reads the new turn and waits for it, and so on.
// A writer whose turn has ended gets in line last. A writer that has not
// met another lately holds no turn and never waits: a single process pays
// nothing.
//
// The turn's end is a point in time set by the writer's clock; a waiting
// writer never sleeps longer than MaxDelay for it, so a skewed clock costs
// throughput, never progress. The turns only order the writes: the
// conditions of the writes keep the guarantees, whatever the turns say.
type Turns struct {
	rtt       time.Duration // how long a won write takes, a moving average
	contended time.Time     // until when the name counts as contended
	mine      Turn          // this writer's turn, while it lasts
	other     Turn          // the newest turn of another writer seen
	held      int64         // the number of this writer's last turn
	waited    int64         // the number of the last turn of another waited for
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
	var until time.Time
	var behind int64 // writers in line before this one
	switch {
	case now.Before(t.other.end) && t.other.no != t.waited && t.other.no-t.held <= maxTurnWaits:
		// Once per turn: a writer that wakes before the turn ends (the
		// first in line does, by half a round trip) writes after its
		// read, whatever the read says of the same turn.
		until, behind = t.other.end, max(0, t.other.line-(t.other.no-t.held))
		t.waited = t.other.no
	case !t.mine.end.IsZero() && !now.Add(t.rtt).Before(t.mine.end):
		// Over: in line after the others, after one at least, so as not
		// to take the next turn from the first in line.
		until, behind = t.mine.end, max(t.mine.line, 1)
		t.mine = Turn{}
	default:
		return 0, false
	}
	// The first in line reads the head half a round trip before the turn
	// ends, as the last write of the turn lands.
	inLine := min(time.Duration(behind*turnSpacing)*t.rtt, maxDelay)
	wake := until.Add(inLine - t.rtt/2 + rand.N(t.rtt/4+1))
	return max(0, wake.Sub(now)), true
}

// Take waits as the turns say before a write (see wait), reads the head
// with read whenever the writer does not know it (known false; a wait
// makes it so), and returns the turn the write belongs to (see next). read
// records the head in the writer's hint and returns the turn of the write
// that stored it. waited is told of every wait and its length.
func (t *Turns) Take(ctx context.Context, known *bool, maxDelay time.Duration, waited func(time.Duration), read func() (Turn, error)) (Turn, error) {
	for {
		if d, wait := t.wait(time.Now(), maxDelay); wait {
			waited(d)
			if err := backoff.Sleep(ctx, d); err != nil {
				return Turn{}, err
			}
			*known = false // the others wrote meanwhile
		}
		if *known {
			return t.next(time.Now(), maxDelay), nil
		}
		start := time.Now()
		tn, err := read()
		t.sample(time.Since(start))
		if err != nil {
			return Turn{}, err
		}
		*known = true
		t.Saw(tn, maxDelay)
	}
}

// next returns the turn that a write starting at now belongs to: this
// writer's turn while a write started now ends within it, else a new turn
// of turnRoundTrips round trips (at most maxDelay) when the name is
// contended, else no turn.
func (t *Turns) next(now time.Time, maxDelay time.Duration) Turn {
	switch {
	case !now.Before(t.contended):
		// Contention is over; when it comes back, the turns are
		// numbered afresh.
		t.other, t.held, t.waited = Turn{}, 0, 0
		return Turn{}
	case now.Add(t.rtt).Before(t.mine.end):
		return t.mine
	}
	end := now.Add(min(max(turnRoundTrips*t.rtt, time.Millisecond), maxDelay))
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

// Won records a write that started at start, belonged to turn tn (the zero
// turn: none) and has just succeeded, and reports whether it started the
// turn.
func (t *Turns) Won(start time.Time, tn Turn) (started bool) {
	t.sample(time.Since(start))
	started = tn.no != 0 && tn.no != t.held
	if tn.no != 0 {
		t.held = tn.no
	}
	t.mine = tn
	return started
}

// Lost records a write that started at start and has just lost a race to
// another writer: this writer's turn, if any, is over. Its time is not a
// round trip: a write that loses may have waited for the winner's.
func (t *Turns) Lost(start time.Time) {
	t.contended = time.Now().Add(contentionWindow)
	t.mine = Turn{}
}

// Saw records a turn read from an item written by the name's latest write:
// another writer's turn, unless it is over, is to be waited for, at most
// maxDelay from when it is first seen. A turn seen before, or this
// writer's own, changes nothing.
func (t *Turns) Saw(tn Turn, maxDelay time.Duration) {
	now := time.Now()
	if !now.Before(t.contended) {
		// Contention was over; the turns are numbered afresh.
		t.other, t.held, t.waited = Turn{}, 0, 0
	}
	if tn.no == 0 || tn.no == t.held || tn.no <= t.other.no {
		return
	}
	t.other = tn
	if !tn.end.After(now) {
		return
	}
	t.contended = now.Add(contentionWindow)
	if limit := now.Add(maxDelay); tn.end.After(limit) {
		t.other.end = limit
	}
	t.mine = Turn{}
}

// RoundTrip is the moving average of the writer's round trips at the name
// (its won writes and its reads of the head); 0 before it measured any.
func (t *Turns) RoundTrip() time.Duration { return t.rtt }

// sample adds the time a write or a read took to the moving average of
// round trips.
func (t *Turns) sample(took time.Duration) {
	if t.rtt == 0 {
		t.rtt = took
	}
	t.rtt = (3*t.rtt + took) / 4
}

// The write token of an item is written by one writer (Token) and read by
// the others (ParseToken, TurnOfItem), of any process. Its format:
//
//	<request>:<last>                     outside a turn
//	<request>:<last>:<end>:<no>:<line>   in a turn
//
// request is the write's request token (RequestToken), which tells
// the attempts of one write from any other; last is the last number the
// write stores; end, no and line are the write's turn: its end in Unix
// microseconds, its number and its line, in decimal. Every attempt of a
// write carries the same token.

// TokenBytes is the largest size of a write token: 32 hex digits, a colon,
// up to 19 digits, a colon and a turn.
const TokenBytes = 32 + 1 + 19 + 1 + turnTokenBytes

// turnTokenBytes is the largest size of a turn in a write token.
const turnTokenBytes = 3*19 + 2

// Token returns the write token of the items of one write: the write's
// request token, the last number the write stores and, for a write made in
// a turn, the turn.
func Token(request string, last int64, tn Turn) string {
	tok := request + ":" + strconv.FormatInt(last, 10)
	if tn.no == 0 {
		return tok
	}
	return tok + ":" + strconv.FormatInt(tn.end.UnixMicro(), 10) + ":" + strconv.FormatInt(tn.no, 10) + ":" + strconv.FormatInt(tn.line, 10)
}

// ParseToken reads a write token written by Token: the last number of its
// write, and its turn (the zero Turn when it names none). ok is false when
// s is not such a token.
func ParseToken(s string) (last int64, tn Turn, ok bool) {
	f := strings.Split(s, ":")
	switch len(f) {
	case 2:
	case 5:
		if tn = parseTurn(f[2], f[3], f[4]); tn.no == 0 {
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
