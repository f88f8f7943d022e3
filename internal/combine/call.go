package combine

import (
	"errors"
	"sync"
	"time"
)

// Call is one caller's request inside a batch, and the slot for its outcome.
// While the call is in a batch, its exported fields belong to run (and to
// no one else); Publish may be called from run only.
type Call[Req, Res any] struct {
	Req Req
	Res Res   // set by run
	Err error // set by run
	// Again, set by run instead of an outcome, puts the call back at the
	// head of its key's queue: the next run takes it again, first, with
	// the calls that arrived meanwhile. run may change Req for that run.
	// run must put a call back only if nothing was stored for it.
	Again bool
	// NotBefore, set by run on any call of its batch, asks that the key's
	// next run start no earlier than then (the latest of the batch counts;
	// the zero time asks nothing). See the package comment.
	NotBefore time.Time
	// Fill, set by run with NotBefore, lets the key's next run start
	// before NotBefore as soon as Fill calls wait in the key's queue (the
	// leader's among them): a run that waits for the callers it has just
	// answered to call again stops waiting once they are back. The
	// largest of the batch counts; 0 (the default) waits for NotBefore.
	Fill int
	// Cause, set by run with Again, says why the call was put back (for
	// example a throttled write): if the caller's context ends before the
	// call is written again, Do's error matches Cause as well as the
	// context's error (errors.Is).
	Cause error

	// The publication (see Publish), shared by run and the call's caller:
	// guarded by mu, the Group's mutex.
	mu        *sync.Mutex
	published bool // run has published pending
	pending   Res
	gone      bool // the caller has left Do while the call was in a batch
}

// ErrUnknownOutcome is the error (joined with its context's error) of a
// caller that gave up, after GroupOptions.Grace, while the write of its call
// was in flight or about to be sent: the call may or may not have been
// stored. Do returns it with the result run published (Call.Publish).
var ErrUnknownOutcome = errors.New("combine: the caller gave up with its write in flight: outcome unknown")

// Publish records pending (for example the number the call's item is about
// to be written at) as the result Do returns, with ErrUnknownOutcome, if
// the caller gives up while the call's write is in flight. run calls it
// just before it sends the call's write, and again before each resend of
// the call at another value.
//
// Publish reports false when the caller has already left Do: then run
// must not send the call's write (again). A caller that leaves before any
// Publish is told that nothing was stored, and Publish is how run learns
// it. So with GroupOptions.Grace, run must publish every call before sending
// its write; without a grace, callers stay until the outcome and Publish
// always reports true. A Call made outside a Group has no caller to lose.
func (c *Call[Req, Res]) Publish(pending Res) bool {
	if c.mu == nil {
		c.published, c.pending = true, pending
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gone {
		return false
	}
	c.published, c.pending = true, pending
	return true
}

// reset readies a call put back for its next run: only Req is kept. The
// caller holds the Group's mutex.
func (c *Call[Req, Res]) reset() {
	var zero Res
	c.Res, c.Err, c.Again, c.NotBefore, c.Fill, c.Cause = zero, nil, false, time.Time{}, 0, nil
	c.published, c.pending = false, zero
}

// errRunPanicked is the error of the calls of a run that panicked.
var errRunPanicked = errors.New("combine: run panicked")
