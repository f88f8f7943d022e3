package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/dynamoseq/dynamoseq"
)

// writeFlagHelp is the help of next's --write.
const writeFlagHelp = "store the items of a SortKey or Latest sequence; without it, next on one writes nothing and exits 2 (a counter's next needs no --write)"

// nextWriteDoc is what next's help says about --write.
const nextWriteDoc = `
A SortKey or Latest sequence is gap-free: a number it hands out is an item
stored under that number, and no later call can take it back (deleting the
item leaves a gap, or hands its number out again when it was the last).
So next on one writes nothing unless --write is given: without it, it reads
the last number (one strongly consistent read), says what it would store,
and exits with status 2. A counter is not gap-free (a caller that fails
between taking a number and using it leaves the same hole), so a counter's
next takes its numbers without --write, which it accepts all the same.
`

// unasked returns the usage error of next on the gap-free sequence name of
// kind (sortkey or latest) without --write: what n calls would store,
// read from its last number, and why that cannot be undone. It writes
// nothing; it costs one strongly consistent read.
func (e *env) unasked(ctx context.Context, kind, name string, n int64) error {
	last, err := e.current(ctx, kind, name)
	switch {
	case errors.Is(err, dynamoseq.ErrNotFound):
		last = 0
		if kind == kindSortKey && e.start > 1 {
			last = e.start - 1
		}
	case err != nil:
		return err
	}
	what := map[string]string{kindSortKey: "a SortKey sequence", kindLatest: "a Latest document"}[kind]
	items := fmt.Sprintf("an empty item under number %d", last+1)
	if kind == kindLatest {
		items = fmt.Sprintf("an empty version %d and make it the 'latest' one", last+1)
	}
	if n > 1 {
		items = fmt.Sprintf("%d empty items under numbers %d to %d", n, last+1, last+n)
		if kind == kindLatest {
			items = fmt.Sprintf("%d empty versions, %d to %d, the last one 'latest'", n, last+1, last+n)
		}
	}
	return usageErrorf("nothing written: table %q, sequence %q is %s, gap-free: next would store %s, "+
		"and a gap-free sequence cannot take a stored number back (deleting the item leaves a gap, or hands its number out again). "+
		"Pass --write to store; 'dynamoseq current' reads the last number without writing", e.table, name, what, items)
}
