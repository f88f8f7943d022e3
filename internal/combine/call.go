package combine

import "time"

// Call is one caller's request inside a batch, and the slot for its outcome.
type Call[Req, Res any] struct {
	Req Req
	Res Res   // set by run
	Err error // set by run
	// Again, set by run instead of an outcome, puts the call back at the
	// head of its key's queue: the next run takes it again, first, with
	// the calls that arrived meanwhile. run may change Req for that run.
	Again bool
	// NotBefore, set by run on any call of its batch, asks that the key's
	// next run start no earlier than then (the latest of the batch counts;
	// the zero time asks nothing). See the package comment.
	NotBefore time.Time
	// Cause, set by run with Again, says why the call was put back (for
	// example a throttled write): if the caller's context ends before the
	// call is written again, Do's error matches Cause as well as the
	// context's error (errors.Is).
	Cause error
}
