package dynamoseq

import (
	"context"
	"time"
)

// IDMinter mints readable IDs such as "ORD-261122-000042", the 42nd order of
// 22 November 2026: a Format applied to the next number of a Counter (or a
// Block) sequence scoped to the current Period, so that numbers restart at
// the Counter's Start each day, month or year. For gap-free IDs stored with
// their items, use a SortKeyIDMinter.
//
// IDs are unique as long as every process minting for a name uses the same
// Format, Period and Location; within a period they increase, with gaps
// (see Counter). Each call reads the clock once and takes both the period
// and the ID's date from that instant. With IDMinterOptions.TTLAttribute, DynamoDB
// deletes the counters of past periods.
//
// Cost: one UpdateItem round trip and one write unit per ID, TTL included;
// over a Block, one per range, and each period starts a new range.
//
// An IDMinter is safe for concurrent use by any number of goroutines.
// docs/readable-ids.md says how the periods' sequences are named and kept.
type IDMinter struct {
	idScheme
	counter   *Counter // the Counter that holds the periods' counter items (the Block's)
	next      func(ctx context.Context, seq string, exp *expiry) (int64, error)
	ttlAttr   string        // "" when no TTL is written
	retention time.Duration // TTLRetention, or defaultRetention without TTL
}

// NewIDMinter returns an IDMinter that writes IDs with format and takes
// their numbers from seq, a *Counter or a *Block over one, starting a new
// sequence each period. It makes no call to DynamoDB; it checks the periods
// of the next ten years (about 2 ms for Daily: make it once).
//
// It returns an error wrapping ErrInvalidArgument when seq or period is
// nil, the format is invalid or has no DateLayout, the layout writes the
// same date in two periods of the next ten years (or dates of varying
// width with no Separator), a Period's answers are not consecutive
// periods, or an option is refused (an *OptionError: a TTLAttribute that
// is one of the Counter's key or value attributes, a TTL on
// GlobalTableMRSC).
func NewIDMinter[S *Counter | *Block](seq S, format Format, period Period, optFns ...func(*IDMinterOptions)) (*IDMinter, error) {
	m := &IDMinter{}
	switch s := any(seq).(type) {
	case *Counter:
		if s != nil {
			m.counter = s
			m.next = func(ctx context.Context, seq string, exp *expiry) (int64, error) {
				return s.reserve(ctx, "IDMinter.Next", seq, 1, exp)
			}
		}
	case *Block:
		if s != nil && s.counter != nil {
			m.counter, m.next = s.counter, s.next
		}
	}
	fail := func(err error) (*IDMinter, error) {
		return nil, &Error{Op: "NewIDMinter", Table: m.table, Err: err}
	}
	if m.counter == nil {
		return fail(invalidf("nil %T", seq))
	}
	m.table = m.counter.table
	if err := m.setFormat(format, period); err != nil {
		return fail(err)
	}
	o := apply(optFns)
	if err := o.resolve(); err != nil {
		return fail(err)
	}
	if o.TimeAttribute != "" {
		return fail(optionErrorf("TimeAttribute", o.TimeAttribute, "for NewSortKeyIDMinter only: a Counter or a Block stores no item to write it in"))
	}
	m.retention = defaultRetention
	if o.TTLAttribute != "" {
		if err := m.checkTTL(o.TTLAttribute); err != nil {
			return fail(err)
		}
		m.ttlAttr, m.retention = o.TTLAttribute, o.TTLRetention
	}
	if err := m.setClock(o.Location, o.Now); err != nil {
		return fail(err)
	}
	return m, nil
}

// checkTTL refuses a TTL that the Counter cannot write.
func (m *IDMinter) checkTTL(attr string) error {
	co := &m.counter.opts
	switch {
	case attr == co.PartitionKey:
		return optionErrorf("TTLAttribute", attr, "the Counter's partition key too")
	case attr == co.ValueAttribute:
		return optionErrorf("TTLAttribute", attr, "the Counter's value attribute too")
	case co.SortKeyValue != "" && attr == co.SortKey:
		return optionErrorf("TTLAttribute", attr, "the Counter's sort key too")
	case co.GlobalTable == GlobalTableMRSC:
		return optionErrorf("TTLAttribute", attr, "refused with a Counter on GlobalTableMRSC: multi-Region strongly consistent tables do not support Time to Live")
	}
	return nil
}

// Next mints the next ID of the sequence name for the current period: one
// UpdateItem of the period's counter item (which also sets its TTL when
// IDMinterOptions.TTLAttribute is set), or a number of a Block's range.
//
// It returns an error wrapping ErrInvalidArgument for an empty or invalid
// name or a Period whose answer does not hold the instant, and the
// Counter's (or Block's) errors: ErrExhausted when the period's sequence
// has reached MaxValue, ErrTableNotFound, ErrTableMismatch, and the
// context's error when ctx ends first.
func (m *IDMinter) Next(ctx context.Context, name string) (string, error) {
	t, seq, end, err := m.current(ctx, name)
	if err != nil {
		return m.fail("IDMinter.Next", seq, err)
	}
	var exp *expiry
	if m.ttlAttr != "" {
		exp = &expiry{attr: m.ttlAttr, unix: ceilUnix(end.Add(m.retention))}
	}
	n, err := m.next(ctx, seq, exp)
	if err != nil {
		return m.fail("IDMinter.Next", seq, err)
	}
	return m.format.ID(t, n), nil
}

// SequenceAt returns the name of the sequence that Next uses for name at
// the instant t, such as "orders#20261122"; Counter.Current on it tells the
// last number handed out in that period.
func (m *IDMinter) SequenceAt(name string, t time.Time) (string, error) {
	return m.sequenceAt("IDMinter.SequenceAt", name, t)
}

// expiresAt returns the TTL, in Unix epoch seconds, that Next writes on
// the counter item of the period holding t: the end of the period plus
// TTLRetention (7 days without a TTL), rounded up to a whole second.
func (m *IDMinter) expiresAt(t time.Time) (int64, error) {
	_, end, err := bounds(m.period, t.In(m.loc))
	if err != nil {
		return 0, &Error{Op: "IDMinter.ExpiresAt", Table: m.table, Err: err}
	}
	return ceilUnix(end.Add(m.retention)), nil
}

// ceilUnix is t in Unix epoch seconds, rounded up: DynamoDB deletes an item
// only after its TTL has passed, never before the instant asked for.
func ceilUnix(t time.Time) int64 {
	s := t.Unix()
	if t.Nanosecond() > 0 {
		s++
	}
	return s
}
