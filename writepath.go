package dynamoseq

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/internal/combine"
)

// Limits of one TransactWriteItems call.
const (
	maxTransactItems = 100
	maxTransactBytes = 4 * 1024 * 1024
)

// The pieces of the write path that SortKey and Latest share. Their retry
// algorithms differ (a SortKey queries the last number, a Latest reads the
// version from the failed condition), and each keeps its own.

// appendReq is one call to Append, of a SortKey or a Latest, waiting for its
// number.
type appendReq struct {
	attrs map[string]types.AttributeValue // the item without its keys; the run adds them
	size  int                             // the item's size in bytes, keys included
	races int                             // races lost so far (see raceLost)
}

func (r *appendReq) lose() int {
	r.races++
	return r.races
}

// runBatches writes the calls of one run in order, in as few writes as
// DynamoDB's limits allow (maxItems; copyLast as for batchLen), counting
// each batch once in stats, and stops when a write put its calls back in
// the queue (see putBack).
func runBatches(batch []*combine.Call[appendReq, int64], maxItems int, copyLast bool, stats *appendStats, write func([]*combine.Call[appendReq, int64])) {
	for len(batch) > 0 {
		n := batchLen(len(batch), maxItems, func(i int) int { return batch[i].Req.size }, copyLast)
		if batch[0].Req.races == 0 { // a batch put back is counted once
			stats.batch(n)
		}
		write(batch[:n])
		if putBack(batch[:n], batch[n:]) {
			return
		}
		batch = batch[n:]
	}
}

// batchLen returns how many of the n calls at the head of a batch fit in one
// transaction: at most maxItems, and, beyond the first, at most
// maxTransactBytes, counting size(i) for each call and, with copyLast, the
// last one's size once more (Latest's 'latest' item holds a copy of it).
func batchLen(n, maxItems int, size func(i int) int, copyLast bool) int {
	k, bytes := 0, 0
	for k < n && k < maxItems {
		add := size(k)
		total := bytes + add
		if copyLast {
			total += add
		}
		if k > 0 && total > maxTransactBytes {
			break
		}
		bytes += add
		k++
	}
	return k
}

// oneByOne writes the calls of a batch that DynamoDB refused as a whole
// without naming the item at fault, one per write, so that only the caller
// of the bad item fails. It costs a round trip per item, for this batch
// only.
func oneByOne[Req any](calls []*combine.Call[Req, int64], write func([]*combine.Call[Req, int64])) {
	for i := range calls {
		write(calls[i : i+1])
		if putBack(calls[i:i+1], calls[i+1:]) {
			return
		}
	}
}

// putBack reports whether a call of written, which a run has just written,
// was put back in the queue (combine.Call.Again) after a lost race, and if
// so puts back rest too, unwritten: the calls of one process to one name
// are written in the order they arrived.
func putBack[Req any](written, rest []*combine.Call[Req, int64]) bool {
	for _, c := range written {
		if c.Again {
			for _, r := range rest {
				r.Again = true
			}
			return true
		}
	}
	return false
}

// racer is a write call's request, which counts the races its call lost
// (a pointer to it, so that a run can count one more).
type racer[Req any] interface {
	*Req
	lose() int // counts one more lost race and returns the count
}

// raceLost puts back in the queue (combine.Call.Again) the calls of a write
// that has just lost a race, so that they are written again as soon as the
// lead passes on, with the calls that arrived meanwhile: while a process
// waits for its turn, its next write grows. A call that has lost
// maxAttempts races fails with ErrContention instead, wrapping err, the
// last race's error. It reports whether it put any call back.
func raceLost[Req any, R racer[Req]](calls []*combine.Call[Req, int64], maxAttempts int, err error) (again bool) {
	for _, c := range calls {
		if n := R(&c.Req).lose(); n >= maxAttempts {
			c.Err = fmt.Errorf("%w: lost %d races to other writers: %w", ErrContention, n, err)
		} else {
			c.Again, again = true, true
		}
	}
	return again
}

// failCalls sets err as the outcome of every call.
func failCalls[Req any](calls []*combine.Call[Req, int64], err error) {
	for _, c := range calls {
		c.Err = err
	}
}

// callError is the error a write call returns for err, the error its run
// set; n is the number its run set with it, which an unknown outcome may
// have stored. When the caller's context has ended too, an unknown outcome
// carries the context's error as well.
func callError(ctx context.Context, op, table, name string, n int64, err error) error {
	e := &Error{Op: op, Table: table, Sequence: name, Err: err}
	if errors.Is(err, ErrUnknownOutcome) {
		e.Number = n
		if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			e.Err = errors.Join(err, cerr)
		}
	}
	return e
}
