package dynamoseq

import (
	"context"
	"fmt"
	"iter"
	"strconv"
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

func (o Order) name() string {
	switch o {
	case NewestFirst:
		return "NewestFirst"
	case OldestFirst:
		return "OldestFirst"
	}
	return "Order(" + strconv.Itoa(int(o)) + ")"
}

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

// Decoded is an item of a sequence or a version of a document decoded into
// the caller's type T, with its number, as Decode yields it.
type Decoded[T any] struct {
	Number int64
	Value  T
}

// Decode returns an iterator over the entries of seq (SortKey.All or
// Latest.All) decoded into T, as Item.Decode does: T is
// what attributevalue.UnmarshalMap accepts a pointer to (a struct with
// dynamodbav tags, a map) or map[string]types.AttributeValue.
//
//	type Ticket struct {
//		Title string `dynamodbav:"title"`
//	}
//	for t, err := range dynamoseq.Decode[Ticket](tickets.All(ctx, "projectA", dynamoseq.NewestFirst)) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(t.Number, t.Value.Title)
//	}
//
// The iteration ends after an error: seq's, or an *Error wrapping
// ErrTableMismatch for an entry that does not fit T, yielded with the
// entry's Number. Decode reads nothing itself: the cost is seq's.
func Decode[T any](seq iter.Seq2[Item, error]) iter.Seq2[Decoded[T], error] {
	return func(yield func(Decoded[T], error) bool) {
		for e, err := range seq {
			if err != nil {
				yield(Decoded[T]{}, err)
				return
			}
			n, attrs := e.Number, e.Item
			d := Decoded[T]{Number: n}
			if err := decodeAttributes(attrs, &d.Value); err != nil {
				yield(d, &Error{Op: "Decode", Err: fmt.Errorf("%w (number %d)", err, n)})
				return
			}
			if !yield(d, nil) {
				return
			}
		}
	}
}
