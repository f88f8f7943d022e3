package engine

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// Limits of one TransactWriteItems call.
const (
	MaxTransactItems = 100
	MaxTransactBytes = 4 * 1024 * 1024
)

// BatchLen returns how many of the n calls at the head of a batch fit in
// one transaction: at most maxItems, and, beyond the first, at most
// MaxTransactBytes, counting size(i) for each call and, with copyLast, the
// last one's size once more (Latest's 'latest' item holds a copy of it).
func BatchLen(n, maxItems int, size func(i int) int, copyLast bool) int {
	k, bytes := 0, 0
	for k < n && k < maxItems {
		add := size(k)
		total := bytes + add
		if copyLast {
			total += add
		}
		if k > 0 && total > MaxTransactBytes {
			break
		}
		bytes += add
		k++
	}
	return k
}

// OneByOne writes the calls of a batch that DynamoDB refused as a whole
// without naming the item at fault, one per write, so that only the caller
// of the bad item fails. It costs a round trip per item, for this batch
// only.
func OneByOne[Req any](calls []*Call[Req, int64], write func([]*Call[Req, int64])) {
	for i := range calls {
		write(calls[i : i+1])
		if PutBack(calls[i:i+1], calls[i+1:]) {
			return
		}
	}
}

// PutBack reports whether a call of written, which a run has just written,
// was put back in the queue (Call.Again) after a lost race or to
// wait for capacity, and if so puts back rest too, unwritten, with the
// same cause: the calls of one process to one name are written in the
// order they arrived.
func PutBack[Req any](written, rest []*Call[Req, int64]) bool {
	for _, c := range written {
		if c.Again {
			for _, r := range rest {
				r.Again, r.Cause = true, c.Cause
			}
			return true
		}
	}
	return false
}

// lingerShare is the share of a round trip that the next run of a hot name
// waits at most for its callers (see Linger): usually they are all back
// long before, and the wait ends then; a caller that stopped calling costs
// the whole wait once.
const lingerShare = 5

// Linger asks, after a run of batch, that the name's next run wait for the
// callers the run has just answered if the batch held more than one call
// (the name is hot): until as many calls wait as the batch held, for at
// most lingerShare of rtt. They call again at once, and so join one batch,
// instead of a leader sending its own call alone the moment the run ends
// and the others waiting a round trip for the next. A caller alone on a
// name never waits (one left alone by callers that stopped waits once),
// and neither does a batch put back (its wait for capacity stands).
func Linger[Req any](batch []*Call[Req, int64], rtt time.Duration) {
	if len(batch) < 2 {
		return
	}
	for _, c := range batch {
		if c.Again || !c.NotBefore.IsZero() { // put back, or paced (Capacity.Won)
			return
		}
	}
	batch[0].NotBefore, batch[0].Fill = time.Now().Add(rtt/lingerShare), len(batch)
}

// ErrCallerLeft is the outcome of a call whose caller left before its
// write was sent (Call.Publish reported false); nobody reads it.
var ErrCallerLeft = errors.New("the caller left before its write was sent")

// Publish tells the callers of calls, just before their write is sent,
// what they are about to get: first, first+step, first+2*step...
// (Call.Publish: what a caller whose context ends while the write
// is in flight is told, with the root's ErrUnknownOutcome; the numbers of
// a SortKey's or a Latest's items, step 1, and 0 for a Counter's ranges,
// step 0). A caller that has left already is not written: Publish returns
// the calls to write, in order, and calls itself when every caller is
// still there.
func Publish[Req any](calls []*Call[Req, int64], first, step int64) []*Call[Req, int64] {
	next := first
	var kept []*Call[Req, int64] // nil while every caller is there
	for i, c := range calls {
		if !c.Publish(next) {
			if kept == nil {
				kept = append(make([]*Call[Req, int64], 0, len(calls)), calls[:i]...)
			}
			c.Err = ErrCallerLeft
			continue
		}
		next += step
		if kept != nil {
			kept = append(kept, c)
		}
	}
	if kept == nil {
		return calls
	}
	return kept
}

// Racer is a write call's request, which counts the races its call lost
// (a pointer to it, so that a run can count one more).
type Racer[Req any] interface {
	*Req
	Lose() int // counts one more lost race and returns the count
}

// RaceLost puts back in the queue (Call.Again) the calls of a
// write that has just lost a race, so that they are written again as soon
// as the lead passes on, with the calls that arrived meanwhile: while a
// process waits for its turn, its next write grows. A call that has lost
// maxAttempts races fails with contention (the root's ErrContention)
// instead, wrapping err, the last race's error. It reports whether it put
// any call back.
func RaceLost[Req any, R Racer[Req]](calls []*Call[Req, int64], maxAttempts int, contention, err error) (again bool) {
	for _, c := range calls {
		if n := R(&c.Req).Lose(); n >= maxAttempts {
			c.Err = fmt.Errorf("%w: lost %d races to other writers: %w", contention, n, err)
		} else {
			c.Again, again = true, true
		}
	}
	return again
}

// Fail sets err as the outcome of every call.
func Fail[Req any](calls []*Call[Req, int64], err error) {
	for _, c := range calls {
		c.Err = err
	}
}

// Batched is a write call's request as RunBatches reads it (a pointer to
// it).
type Batched[Req any] interface {
	*Req
	Bytes() int  // the item's size in bytes, keys included
	Races() int  // races lost so far (see RaceLost)
	Key() string // the partition key value of the call's key item (see KeyAttribute); "" for none
}

// RunBatches writes the calls of one run in order, in as few writes as
// DynamoDB's limits allow (maxItems; copyLast as for BatchLen), counting
// each batch once with counted, and stops when a write put its calls back
// in the queue (see PutBack). Key items must fit too: a batch holding a
// call with a key takes at most half of maxItems calls (each may bring its
// key item), and a call whose key repeats an earlier call's of the batch
// starts the next one (DynamoDB refuses two actions on one item in a
// transaction; the second meets the first's key item, and replays it).
func RunBatches[Req any, R Batched[Req]](batch []*Call[Req, int64], maxItems int, copyLast bool, counted func(n int), write func([]*Call[Req, int64])) {
	for len(batch) > 0 {
		k, limit := keyed[Req, R](batch, maxItems)
		n := BatchLen(k, limit, func(i int) int { return R(&batch[i].Req).Bytes() }, copyLast)
		if R(&batch[0].Req).Races() == 0 { // a batch put back is counted once
			counted(n)
		}
		write(batch[:n])
		if PutBack(batch[:n], batch[n:]) {
			return
		}
		batch = batch[n:]
	}
}

// keyed returns how many calls at the head of batch may share one write as
// far as their key items go, and the most calls that write may hold:
// maxItems, or half of it once a call brings a key item (see RunBatches).
func keyed[Req any, R Batched[Req]](batch []*Call[Req, int64], maxItems int) (n, limit int) {
	limit = maxItems
	var seen map[string]bool // made at the first key: calls without one allocate nothing
	for ; n < len(batch) && n < limit; n++ {
		k := R(&batch[n].Req).Key()
		if k == "" {
			continue
		}
		if seen == nil {
			seen, limit = map[string]bool{}, max(maxItems/2, 1)
		}
		if seen[k] {
			break
		}
		seen[k] = true
	}
	return min(n, limit), limit
}

// NameWriter is what a SortKey or a Latest knows of the writes of one
// name, beside its last number: the waits for capacity and the turns with
// other processes (see turns.go). Only the run in progress for the name
// touches it (see Group).
type NameWriter struct {
	Capacity Capacity // the waits after throttles and conflicts
	Seat     Seat     // the name's place in its table's Share
	Turns             // with writers of other processes
}

// Pace is what a strategy's runs need to pace the writes of a name: the
// strategy's round trips, the count of the turns its writes started, and
// the table's write budget that its names share.
type Pace struct {
	RTT      *RoundTrip
	Turns    *atomic.Int64
	Share    *Share
	CopyLast bool // a write carries the last item twice (Latest's 'latest')
	Single   bool // one item a request, without transactions
}

// Won records a write of w's name that started at start, in turn tn, and
// succeeded (both writes, without transactions): units write units of
// items, for which DynamoDB charged charged (see Charged). It returns when
// the name's next write may start (see Capacity.Won).
func (p Pace) Won(w *NameWriter, start time.Time, tn Turn, units, charged float64) time.Time {
	now := time.Now()
	p.RTT.Add(now.Sub(start))
	p.Share.Admitted(&w.Seat, start, charged)
	next := w.Capacity.Won(start, units)
	if w.Won(start, tn) {
		p.Turns.Add(1)
	}
	return next
}

// WonBatch is Won for the write of calls, in one request.
func WonBatch[Req any, R Batched[Req]](p Pace, w *NameWriter, start time.Time, tn Turn, calls []*Call[Req, int64]) time.Time {
	return p.Won(w, start, tn, BatchUnits[Req, R](calls, p.CopyLast), Charged[Req, R](p, calls))
}

// Slot returns when the write of calls may start, as the table's share
// says (see Share.Take): the zero time for now.
func Slot[Req any, R Batched[Req]](p Pace, w *NameWriter, calls []*Call[Req, int64]) time.Time {
	return p.Share.Take(&w.Seat, time.Now(), Charged[Req, R](p, calls))
}

// Charged is the write units DynamoDB charges the write of calls, as the
// table's share counts them: twice the items' for a transaction (see
// Units); with Single, the first call's write alone, one item a request
// (twice with CopyLast: a Latest's version and 'latest').
func Charged[Req any, R Batched[Req]](p Pace, calls []*Call[Req, int64]) float64 {
	if p.Single {
		return BatchUnits[Req, R](calls[:1], p.CopyLast)
	}
	u := BatchUnits[Req, R](calls, p.CopyLast)
	if p.CopyLast || len(calls) > 1 || R(&calls[0].Req).Key() != "" {
		u *= 2 // a TransactWriteItems
	}
	return u
}

// BatchUnits is the write units of the items of calls (see Units), with
// copyLast the last one's once more (as for BatchLen).
func BatchUnits[Req any, R Batched[Req]](calls []*Call[Req, int64], copyLast bool) float64 {
	var u float64
	for _, c := range calls {
		u += Units(R(&c.Req).Bytes())
	}
	if copyLast && len(calls) > 0 {
		u += Units(R(&calls[len(calls)-1].Req).Bytes())
	}
	return u
}

// RoundTrip is a moving average of a strategy's round trips, across its
// names: the first wait for capacity of a request made outside a run, and
// the grace of a caller whose context ends while its write is in flight.
// It is safe for concurrent use.
type RoundTrip struct{ ns atomic.Int64 }

// Add adds a round trip that took d. Concurrent adds may lose one of
// them: an estimate needs no more.
func (r *RoundTrip) Add(d time.Duration) {
	old := time.Duration(r.ns.Load())
	if old == 0 {
		old = d
	}
	r.ns.Store(int64((3*old + d) / 4))
}

// Load returns the average; 0 before any round trip was added.
func (r *RoundTrip) Load() time.Duration { return time.Duration(r.ns.Load()) }

// minGrace is the shortest grace of a caller whose context ends while its
// write is in flight: about DynamoDB's median PutItem round trip, for a
// strategy that has measured none yet.
const minGrace = 10 * time.Millisecond

// Grace is how long a caller whose context has ended waits for the outcome
// of its write in flight (GroupOptions.Grace): one round trip, at least
// minGrace.
func (r *RoundTrip) Grace() time.Duration { return max(r.Load(), minGrace) }
