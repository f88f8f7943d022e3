package dynamoseq

import (
	"context"
	"errors"
	"reflect"
	"time"
)

// IDMinter mints readable IDs such as "ORD-261122-000042", the 42nd order of
// 22 November 2026: a Format applied to a number from a sequence that is
// scoped to the current Period, so that numbers restart at the Counter's
// Start each day, month or year.
//
// For the name "orders" and the day 22 November 2026 the sequence is
// "orders#20261122" ("orders#202611" for a month, "orders#2026" for a year,
// and the period's start in UTC to the nanosecond, such as
// "orders#20261122T060000Z", for a PeriodFunc); with a Counter that is the
// partition key value KeyPrefix+"orders#20261122". Counter.Current on
// SequenceAt's answer tells how many IDs a period has had.
//
// Each call reads the clock (IDMinterOptions.Now) once, in Location, and
// takes both the period's sequence and the ID's date from that one instant:
// an ID minted at 23:59:59.999 carries that day's date and that day's
// number, and the first ID after midnight carries the new date and the
// first number.
//
// Over a SortKey, Append stores an item under each ID, and the IDs of a
// period are gap-free: "ORD-2026-000123" exists only if its item does, and
// so do 1 to 122 of 2026. The period's sequence is then an item
// collection, KeyPrefix+"orders#2026", holding the items under their
// numbers, and Get reads an item back by its ID.
//
// Guarantees: IDs are unique as long as the numbers of the Sequencer are
// and every process minting IDs for a name uses the same Format, Period
// and Location (NewIDMinter checks that the date layout tells the periods
// apart). With a Counter, IDs of one period are handed out in increasing
// order, but not gap-free: see Counter. With a SortKey they are gap-free
// and increasing per period: see SortKey. IDs sort by time as strings only
// when the date layout writes the largest unit first ("060102") and the
// numbers stay within Width.
//
// Housekeeping: with IDMinterOptions.TTL set, every write of a period's
// counter item also sets TTL.Attribute to the end of the period plus
// TTL.Retention, so that DynamoDB's Time to Live deletes the counters of
// past periods. TTL must be enabled on the table for that attribute; see
// docs/readable-ids.md.
//
// Cost: what the Sequencer costs. With a Counter, one UpdateItem round trip
// and one write unit per ID, TTL included. With a SortKey, what
// SortKey.Append costs: one conditional PutItem when warm, the first call
// of a period one Query more. With a Block, one NextN per block, but each
// period is a new sequence for the Block, which starts a new block and
// leaves the numbers left in the old one unused.
//
// An IDMinter is safe for concurrent use by any number of goroutines.
type IDMinter struct {
	seq       Sequencer
	counter   *Counter // seq, when it is a *Counter
	sortKey   *SortKey // seq, when it is a *SortKey
	table     string   // the Counter's or the SortKey's table, for errors; "" for other sequencers
	format    Format
	period    Period
	loc       *time.Location
	now       func() time.Time
	ttlAttr   string        // "" when no TTL is written
	retention time.Duration // TTL.Retention, or defaultRetention without TTL
}

// NewIDMinter returns an IDMinter that writes IDs with format, takes their
// numbers from seq (a *Counter, a *SortKey, a *Block or any Sequencer) and
// starts a new sequence each period, with the options optFns set; the
// first value of each period and the key layout are the Sequencer's.
//
// It makes no call to DynamoDB; it checks the periods of the next ten
// years (docs/readable-ids.md says how long that takes). It returns an
// error wrapping ErrInvalidArgument when:
//   - seq (or the pointer it holds) or period is nil;
//   - the format is invalid (a Width outside 0 to 19, a Separator with a
//     digit) or has no DateLayout;
//   - the layout writes the same date in two of the periods of the next ten
//     years, so IDs would repeat ("0601", year and month, with Daily), or
//     writes dates of varying width and there is no Separator;
//   - period is a PeriodFunc whose answers are not consecutive periods
//     holding the instant asked about;
//   - TTL is set and seq is not a *Counter (the TTL is written in the
//     Counter's UpdateItem), or TTL.Attribute names one of the Counter's
//     key attributes or its value attribute, or the Counter is on
//     GlobalTableMRSC (no TTL there): an *OptionError;
//   - an option is out of range: an *OptionError.
func NewIDMinter(seq Sequencer, format Format, period Period, optFns ...func(*IDMinterOptions)) (*IDMinter, error) {
	m := &IDMinter{seq: seq, format: format, period: period}
	fail := func(err error) (*IDMinter, error) {
		return nil, &Error{Op: "NewIDMinter", Table: m.table, Err: err}
	}
	if v := reflect.ValueOf(seq); seq == nil || v.Kind() == reflect.Pointer && v.IsNil() {
		return fail(invalidf("nil Sequencer"))
	}
	switch s := seq.(type) {
	case *Counter:
		m.counter, m.table = s, s.table
	case *SortKey:
		m.sortKey, m.table = s, s.table
	}
	if period == nil {
		return fail(invalidf("nil Period"))
	}
	if err := format.validate(); err != nil {
		return fail(err)
	}
	if format.DateLayout == "" {
		return fail(invalidf("format has no DateLayout: IDs of different periods would repeat"))
	}
	o := apply(optFns)
	if err := o.resolve(); err != nil {
		return fail(err)
	}
	m.loc, m.now, m.retention = o.Location, o.Now, defaultRetention
	if o.TTL != nil {
		if err := m.checkTTL(o.TTL); err != nil {
			return fail(err)
		}
		m.ttlAttr, m.retention = o.TTL.Attribute, o.TTL.Retention
	}
	if err := checkPeriods(format, period, m.now().In(m.loc)); err != nil {
		return fail(err)
	}
	return m, nil
}

// checkTTL refuses a TTL that the Sequencer cannot write.
func (m *IDMinter) checkTTL(ttl *PeriodTTL) error {
	if m.counter == nil {
		return optionErrorf("TTL", *ttl, "needs a *Counter, which writes it in the same UpdateItem; the Sequencer is a %T", m.seq)
	}
	co := &m.counter.opts
	switch {
	case ttl.Attribute == co.PartitionKey:
		return optionErrorf("TTL.Attribute", ttl.Attribute, "the Counter's partition key too")
	case ttl.Attribute == co.ValueAttribute:
		return optionErrorf("TTL.Attribute", ttl.Attribute, "the Counter's value attribute too")
	case co.SortKey != nil && ttl.Attribute == co.SortKey.Name:
		return optionErrorf("TTL.Attribute", ttl.Attribute, "the Counter's sort key too")
	case co.GlobalTable == GlobalTableMRSC:
		return optionErrorf("TTL", *ttl, "refused with a Counter on GlobalTableMRSC: multi-Region strongly consistent tables do not support Time to Live")
	}
	return nil
}

// Periods checked by checkPeriods: those of the next ten years, at most
// this many.
const maxCheckedPeriods = 4000

// checkPeriods checks that period gives consecutive periods from ref on, and
// that the date part of the format tells them apart, over the periods of the
// next ten years: no date part is written in two periods, so that no two
// periods can give the same ID. Without a separator the date part must also
// have a fixed width, so that an ID reads only one way.
func checkPeriods(f Format, period Period, ref time.Time) error {
	seen := make(map[string]time.Time) // date part -> start of the period that writes it
	width := -1
	horizon := ref.AddDate(10, 0, 0)
	t := ref
	for i := 0; i < maxCheckedPeriods && t.Before(horizon); i++ {
		start, end, err := bounds(period, t)
		if err != nil {
			return err
		}
		if i > 0 && !start.Equal(t) {
			return invalidf("period %s: the period after one ending at %s starts at %s; want consecutive periods",
				periodName(period), t.Format(time.RFC3339Nano), start.Format(time.RFC3339Nano))
		}
		for _, at := range []time.Time{start, end.Add(-time.Nanosecond)} {
			d := at.Format(f.DateLayout)
			if other, ok := seen[d]; ok && !other.Equal(start) {
				return invalidf("date layout %q writes %q in the period starting %s and in the one starting %s, so IDs would repeat; use a layout that tells %s periods apart",
					f.DateLayout, d, other.Format(time.RFC3339), start.Format(time.RFC3339), periodName(period))
			}
			seen[d] = start
			if f.Separator == "" {
				if width >= 0 && len(d) != width {
					return invalidf("with no Separator the date layout %q must write a fixed width, and it writes both %d and %d characters", f.DateLayout, width, len(d))
				}
				width = len(d)
			}
		}
		t = end
	}
	return nil
}

// Next mints the next ID of the sequence name for the current period. It
// reads the clock once; with a Counter it issues one UpdateItem, which also
// sets the TTL attribute when IDMinterOptions.TTL is set; with a SortKey it
// appends an item with no attributes (see Append).
//
// It returns an error wrapping ErrInvalidArgument for an empty or invalid
// name or a PeriodFunc whose answer does not hold the instant, and the
// Sequencer's errors: with a Counter, ErrExhausted when the period's
// sequence has reached MaxValue, ErrTableNotFound, ErrTableMismatch, and the
// context's error when ctx ends first.
func (m *IDMinter) Next(ctx context.Context, name string) (string, error) {
	t, seq, end, err := m.current(ctx, name)
	if err != nil {
		return m.fail("IDMinter.Next", seq, err)
	}
	var n int64
	switch {
	case m.counter != nil:
		var exp *expiry
		if m.ttlAttr != "" {
			exp = &expiry{attr: m.ttlAttr, unix: ceilUnix(end.Add(m.retention))}
		}
		n, err = m.counter.reserve(ctx, "IDMinter.Next", seq, 1, exp)
	default:
		n, err = m.seq.Next(ctx, seq)
	}
	if err != nil {
		return m.fail("IDMinter.Next", seq, err)
	}
	return m.format.ID(t, n), nil
}

// Append stores item under the next number of the current period's
// sequence of name and returns its ID, as SortKey.Append does with the
// sequence SequenceAt names ("orders#2026"): the IDs of a period are
// gap-free, and an ID is returned only once its item is stored. It needs
// an IDMinter over a *SortKey. It reads the clock once.
//
// item is what SortKey.Append takes. When the error wraps
// ErrUnknownOutcome, the ID returned with it is the one that may hold the
// item (Get tells). Errors: ErrInvalidArgument for an IDMinter over another
// Sequencer (use Next), a bad name or item; and SortKey.Append's.
func (m *IDMinter) Append(ctx context.Context, name string, item any) (string, error) {
	if m.sortKey == nil {
		return m.fail("IDMinter.Append", name, invalidf("Append needs an IDMinter over a *SortKey, which stores the item under its number; the Sequencer is a %T, use Next", m.seq))
	}
	t, seq, _, err := m.current(ctx, name)
	if err != nil {
		return m.fail("IDMinter.Append", seq, err)
	}
	n, err := m.sortKey.Append(ctx, seq, item)
	if err != nil {
		var e *Error
		if errors.Is(err, ErrUnknownOutcome) && errors.As(err, &e) && e.Number > 0 {
			return m.format.ID(t, e.Number), err
		}
		return m.fail("IDMinter.Append", seq, err)
	}
	return m.format.ID(t, n), nil
}

// Get reads the item stored under the ID id of the sequence name into out,
// as SortKey.Get does: one strongly consistent GetItem in the sequence of
// the period whose date id carries. It needs an IDMinter over a *SortKey.
// It returns ErrNotFound when no item has that ID, and ErrInvalidArgument
// for an id that Parse refuses or an IDMinter over another Sequencer.
func (m *IDMinter) Get(ctx context.Context, name, id string, out any) error {
	fail := func(seq string, err error) error {
		_, err = m.fail("IDMinter.Get", seq, err)
		return err
	}
	if m.sortKey == nil {
		return fail(name, invalidf("Get needs an IDMinter over a *SortKey, which stores items under their IDs; the Sequencer is a %T", m.seq))
	}
	if name == "" {
		return fail(name, invalidf("empty sequence name"))
	}
	parts, err := m.format.parse(id, m.loc)
	if err != nil {
		return fail(name, err)
	}
	seq, _, err := m.sequence(name, parts.Date)
	if err != nil {
		return fail(name, err)
	}
	return fail(seq, m.sortKey.Get(ctx, seq, parts.Number, out))
}

// current reads the clock once and returns the instant, the sequence of
// name in the period that holds it, and the period's end.
func (m *IDMinter) current(ctx context.Context, name string) (t time.Time, seq string, end time.Time, err error) {
	if err := ctx.Err(); err != nil {
		return t, name, end, err
	}
	if name == "" {
		return t, name, end, invalidf("empty sequence name")
	}
	t = m.now().In(m.loc) // the one reading of the clock
	seq, end, err = m.sequence(name, t)
	return t, seq, end, err
}

// sequence returns the sequence of name in the period that holds t, in
// m's Location, and the end of that period.
func (m *IDMinter) sequence(name string, t time.Time) (string, time.Time, error) {
	start, end, err := bounds(m.period, t.In(m.loc))
	if err != nil {
		return name, end, err
	}
	return name + "#" + periodKey(m.period, start), end, nil
}

// fail returns err as the error of op on the sequence seq: as it is when
// it is already an *Error (which names the table and the period's
// sequence), nil when err is nil.
func (m *IDMinter) fail(op, seq string, err error) (string, error) {
	var e *Error
	if err == nil || errors.As(err, &e) {
		return "", err
	}
	return "", &Error{Op: op, Table: m.table, Sequence: seq, Err: err}
}

// SequenceAt returns the name of the sequence that Next and Append use for
// name at the instant t, such as "orders#20261122"; Counter.Current (or
// SortKey.Last) on it tells the last number handed out in that period, and
// SortKey.All lists a period's items.
func (m *IDMinter) SequenceAt(name string, t time.Time) (string, error) {
	seq, _, err := m.sequence(name, t)
	if err != nil {
		return "", &Error{Op: "IDMinter.SequenceAt", Table: m.table, Sequence: name, Err: err}
	}
	return seq, nil
}

// ExpiresAt returns the TTL, in Unix epoch seconds, that Next writes on the
// counter item of the period holding t: the end of the period plus
// TTL.Retention (7 days without a TTL), rounded up to a whole
// second.
func (m *IDMinter) ExpiresAt(t time.Time) (int64, error) {
	_, end, err := bounds(m.period, t.In(m.loc))
	if err != nil {
		return 0, &Error{Op: "IDMinter.ExpiresAt", Table: m.table, Err: err}
	}
	return ceilUnix(end.Add(m.retention)), nil
}

// Parse takes apart an ID minted by m, reading its date in its
// Location. See Format.Parse.
func (m *IDMinter) Parse(id string) (IDParts, error) {
	parts, err := m.format.parse(id, m.loc)
	if err != nil {
		return IDParts{}, &Error{Op: "IDMinter.Parse", Table: m.table, Err: err}
	}
	return parts, nil
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
