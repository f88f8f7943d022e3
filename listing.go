package dynamoseq

import (
	"context"
	"iter"
)

// Order is the order in which a listing returns numbered items.
type Order int

const (
	// NewestFirst lists the highest number first (the default, the zero
	// value).
	NewestFirst Order = iota
	// OldestFirst lists number 1 first.
	OldestFirst
)

// The pages of the iterators (SortKey.All, Latest.All): the first holds
// firstPage entries, each next one twice as many, up to maxPage.
const (
	firstPage = 16
	maxPage   = 1000
)

// pages is the iterator over the entries of the pages that fetch returns,
// from cursor 0 on, each fetched when the loop reaches it. fetch returns a
// page of at most limit entries and the cursor of the next page, 0 after
// the last. The iteration ends after yielding an error: fetch's, or ctx's
// (checked before each entry), wrapped by fail.
func pages[E any](ctx context.Context, fetch func(cursor int64, limit int) ([]E, int64, error), fail func(error) error) iter.Seq2[E, error] {
	return func(yield func(E, error) bool) {
		var zero E
		cursor, limit := int64(0), firstPage
		for {
			page, next, err := fetch(cursor, limit)
			if err != nil {
				yield(zero, err)
				return
			}
			for _, e := range page {
				if err := ctx.Err(); err != nil {
					yield(zero, fail(err))
					return
				}
				if !yield(e, nil) {
					return
				}
			}
			if next == 0 {
				return
			}
			cursor, limit = next, min(2*limit, maxPage)
		}
	}
}

// cursorAfter is the cursor of the page after one whose last entry, in
// order, is numbered last, when DynamoDB said that more may follow (a
// LastEvaluatedKey): last, or 0 when no number can follow it.
func cursorAfter(last int64, more bool, order Order) int64 {
	if !more || order == NewestFirst && last <= 1 {
		return 0
	}
	return last
}
