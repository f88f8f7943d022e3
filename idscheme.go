package dynamoseq

import (
	"context"
	"errors"
	"time"
)

// idScheme is what IDMinter and SortKeyIDMinter share: how IDs are
// written, the period that scopes their sequences, and the clock.
type idScheme struct {
	table  string // the table of the numbers, for errors
	format Format
	period Period
	loc    *time.Location
	now    func() time.Time
}

// setFormat checks and sets the format and the period.
func (m *idScheme) setFormat(format Format, period Period) error {
	if period == nil {
		return invalidf("nil Period")
	}
	if err := format.validate(); err != nil {
		return err
	}
	if format.DateLayout == "" {
		return invalidf("format has no DateLayout: IDs of different periods would repeat")
	}
	m.format, m.period = format, period
	return nil
}

// setClock sets the clock and checks the periods of the next ten years
// from its present.
func (m *idScheme) setClock(loc *time.Location, now func() time.Time) error {
	m.loc, m.now = loc, now
	return checkPeriods(m.format, m.period, m.now().In(m.loc))
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

// checkOneDate refuses a date layout that writes more than one date in a
// period (a day in a yearly period), checking the period that holds ref
// and the next two: IDs listed are dated with their period's start, which
// must write what the instant of the append wrote.
func checkOneDate(f Format, period Period, ref time.Time) error {
	for t, i := ref, 0; i < 3; i++ {
		start, end, err := bounds(period, t)
		if err != nil {
			return err
		}
		if first, last := start.Format(f.DateLayout), end.Add(-time.Nanosecond).Format(f.DateLayout); first != last {
			return invalidf("date layout %q writes both %q and %q in the %s period starting %s; over a SortKey, want one date per period, so that a listed ID reads as the one Append returned",
				f.DateLayout, first, last, periodName(period), start.Format(time.RFC3339))
		}
		t = end
	}
	return nil
}

// current reads the clock once and returns the instant, the sequence of
// name in the period that holds it, and the period's end.
func (m *idScheme) current(ctx context.Context, name string) (t time.Time, seq string, end time.Time, err error) {
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
func (m *idScheme) sequence(name string, t time.Time) (string, time.Time, error) {
	start, end, err := bounds(m.period, t.In(m.loc))
	if err != nil {
		return name, end, err
	}
	return name + "#" + periodKey(m.period, start), end, nil
}

// sequenceAt is SequenceAt for the operation op.
func (m *idScheme) sequenceAt(op, name string, t time.Time) (string, error) {
	seq, _, err := m.sequence(name, t)
	if err != nil {
		return "", &Error{Op: op, Table: m.table, Sequence: name, Err: err}
	}
	return seq, nil
}

// parse is Parse for the operation op.
func (m *idScheme) parse(op, id string) (idParts, error) {
	parts, err := m.format.parse(id, m.loc)
	if err != nil {
		return idParts{}, &Error{Op: op, Table: m.table, Err: err}
	}
	return parts, nil
}

// fail returns err as the error of op on the sequence seq: as it is when
// it is already an *Error (which names the table and the period's
// sequence), nil when err is nil.
func (m *idScheme) fail(op, seq string, err error) (string, error) {
	var e *Error
	if err == nil || errors.As(err, &e) {
		return "", err
	}
	return "", &Error{Op: op, Table: m.table, Sequence: seq, Err: err}
}
