package dynamoseq

import (
	"context"
	"errors"

	"github.com/dynamoseq/dynamoseq/internal/combine"
)

// The pieces of the write path that SortKey and Latest share. Their retry
// algorithms differ (a SortKey queries the last number, a Latest reads the
// version from the failed condition), and each keeps its own.

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
	}
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
