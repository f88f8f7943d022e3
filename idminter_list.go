package dynamoseq

import (
	"context"
	"iter"
	"time"
)

// All returns an iterator over the items of name newest or oldest first
// across periods, each with its readable ID in Item.ID, for a range loop
// (an error comes with the last iteration). after, when not "", is an ID
// (a URL's ?after=ORD-2025-000311): the listing starts just after it in
// order, in its period or the periods beyond, so the last ID of a page is
// the cursor of the next one, across a period's boundary.
//
// It walks the periods from the present (or after's) back to the one that
// holds since (NewestFirst), or from since's (or after's) up to the
// present (OldestFirst). A zero since means the oldest period whose items
// TTL keeps (now minus TTLRetention); without a TTL it is refused with
// ErrInvalidArgument, as is an after that Format cannot read. Cost: one
// strongly consistent Query per period walked, empty or not (a year of
// Daily periods is 365), and one more per page within a period (16 items,
// then twice as many up to 1000), each when the loop reaches it; a loop
// that stops early reads no further. Items appended meanwhile may or may
// not be listed.
func (m *SortKeyIDMinter) All(ctx context.Context, name string, since time.Time, after string, order Order) iter.Seq2[Item, error] {
	return func(yield func(Item, error) bool) {
		w, err := m.walkFrom(name, since, after, order)
		if err != nil {
			_, err = m.fail("SortKeyIDMinter.All", name, err)
			yield(Item{}, err)
			return
		}
		for more := w.inRange(); more; more = w.step() {
			for it, err := range m.periodItems(ctx, name, w) {
				if !yield(it, err) || err != nil {
					return
				}
			}
			w.cursor = 0
		}
	}
}

// walk is where All is in its walk over the periods.
type walk struct {
	period     Period
	order      Order
	start, end time.Time // the period being listed
	bound      time.Time // since (NewestFirst) or the present (OldestFirst)
	cursor     int64     // the number after which the period's listing starts, 0 for all
}

// walkFrom checks All's arguments and returns the walk's first period.
func (m *SortKeyIDMinter) walkFrom(name string, since time.Time, after string, order Order) (*walk, error) {
	if name == "" {
		return nil, invalidf("empty sequence name")
	}
	if order != NewestFirst && order != OldestFirst {
		return nil, invalidf("order is %v, want NewestFirst or OldestFirst", order)
	}
	now := m.now().In(m.loc)
	if since.IsZero() {
		if m.ttlAttr == "" {
			return nil, invalidf("since is zero and no TTL bounds the periods to list: pass the instant of the first ID")
		}
		since = now.Add(-m.retention)
	}
	w := &walk{period: m.period, order: order, bound: since.In(m.loc)}
	from := now
	if order == OldestFirst {
		w.bound, from = now, w.bound
	}
	if after != "" {
		parts, err := m.format.parse(after, m.loc)
		if err != nil {
			return nil, err
		}
		from, w.cursor = parts.Date, parts.Number
	}
	var err error
	w.start, w.end, err = bounds(m.period, from)
	return w, err
}

// inRange tells whether the walk's period is still to be listed: it ends
// after since (NewestFirst), or starts no later than the present.
func (w *walk) inRange() bool {
	if w.order == NewestFirst {
		return w.end.After(w.bound)
	}
	return !w.start.After(w.bound)
}

// step moves the walk to the period before (NewestFirst) or after, and
// tells whether that period is to be listed.
func (w *walk) step() bool {
	at := w.end
	if w.order == NewestFirst {
		at = w.start.Add(-time.Nanosecond)
	}
	start, end, err := bounds(w.period, at)
	if err != nil { // NewSortKeyIDMinter checked the periods; a refusal ends the walk
		return false
	}
	w.start, w.end = start, end
	return w.inRange()
}

// periodItems is the iterator over the items of name in w's period, after
// w.cursor, each with its ID.
func (m *SortKeyIDMinter) periodItems(ctx context.Context, name string, w *walk) iter.Seq2[Item, error] {
	seq, _, err := m.sequence(name, w.start)
	if err != nil {
		return func(yield func(Item, error) bool) {
			yield(Item{}, &Error{Op: "SortKeyIDMinter.All", Table: m.table, Sequence: name, Err: err})
		}
	}
	first := w.cursor
	items := pages(ctx, func(cursor int64, limit int) ([]Item, int64, error) {
		if cursor == 0 {
			cursor = first
		}
		return m.sortKey.items(ctx, "SortKeyIDMinter.All", seq, cursor, limit, w.order)
	}, func(err error) error {
		return &Error{Op: "SortKeyIDMinter.All", Table: m.table, Sequence: seq, Err: err}
	})
	return func(yield func(Item, error) bool) {
		for it, err := range items {
			if err == nil {
				it.ID = m.format.ID(w.start, it.Number)
			}
			if !yield(it, err) {
				return
			}
		}
	}
}
