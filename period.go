package dynamoseq

import (
	"fmt"
	"time"
)

// Period divides time into consecutive intervals, such as days. An IDMinter
// keeps one counter per name and period, so that its numbers restart at
// the Counter's Start when a new period begins.
//
// Daily, Monthly and Yearly are the calendar periods; a type of your own
// can divide time into shifts or fiscal years (docs/readable-ids.md).
type Period interface {
	// Bounds returns the period that holds t, as the instant it starts and
	// the instant the next one starts: start <= t < end. Every instant of
	// one period must give the same start and end.
	Bounds(t time.Time) (start, end time.Time)
}

// CalendarPeriod is a calendar day, month or year in the location of the
// instant given to Bounds (IDMinterOptions.Location for an IDMinter).
type CalendarPeriod int

// The calendar periods.
const (
	Daily   CalendarPeriod = iota + 1 // from midnight to midnight
	Monthly                           // from the first of the month to the first of the next
	Yearly                            // from 1 January to 1 January
)

// Bounds returns the day, month or year that holds t, in t's location. On a
// day when midnight does not exist (a daylight saving change at 00:00), the
// day starts at the first instant that does.
func (p CalendarPeriod) Bounds(t time.Time) (start, end time.Time) {
	y, m, d := t.Date()
	loc := t.Location()
	switch p {
	case Daily:
		return dayStart(y, m, d, loc), dayStart(y, m, d+1, loc)
	case Monthly:
		return dayStart(y, m, 1, loc), dayStart(y, m+1, 1, loc)
	case Yearly:
		return dayStart(y, 1, 1, loc), dayStart(y+1, 1, 1, loc)
	}
	// Not a period: an empty interval, which NewIDMinter rejects.
	return t, t
}

// dayStart returns the first instant of the day y-m-d in loc (d may be out
// of range, as with time.Date): its midnight, or, when the clocks skip
// midnight that day, the instant they jump at.
func dayStart(y int, m time.Month, d int, loc *time.Location) time.Time {
	s := time.Date(y, m, d, 0, 0, 0, 0, loc)
	if s.Hour() != 0 && s.Day() != time.Date(y, m, d, 12, 0, 0, 0, loc).Day() {
		// Midnight does not exist, and time.Date chose an instant of the day
		// before, in the zone that ends at the jump: the day starts there.
		// (Otherwise it chose the jump itself, shown as 01:00.)
		_, s = s.ZoneBounds()
	}
	return s
}

func (p CalendarPeriod) name() string {
	switch p {
	case Daily:
		return "Daily"
	case Monthly:
		return "Monthly"
	case Yearly:
		return "Yearly"
	}
	return fmt.Sprintf("CalendarPeriod(%d)", int(p))
}

// periodKey names the period that starts at start, for the counter's
// sequence name: "20261122" for a day, "202611" for a month, "2026" for a
// year, and the start in UTC to the nanosecond for any other period.
func periodKey(p Period, start time.Time) string {
	if cp, ok := p.(CalendarPeriod); ok {
		switch cp {
		case Daily:
			return start.Format("20060102")
		case Monthly:
			return start.Format("200601")
		case Yearly:
			return start.Format("2006")
		}
	}
	return start.UTC().Format("20060102T150405.999999999Z0700")
}

// periodName names p in messages.
func periodName(p Period) string {
	if cp, ok := p.(CalendarPeriod); ok {
		return cp.name()
	}
	return fmt.Sprintf("%T", p)
}

// bounds calls p.Bounds and checks that the answer is a period holding t.
func bounds(p Period, t time.Time) (start, end time.Time, err error) {
	start, end = p.Bounds(t)
	if start.After(t) || !end.After(t) {
		return start, end, invalidf("period %s: Bounds(%s) = [%s, %s), which does not hold it",
			periodName(p), t.Format(time.RFC3339Nano), start.Format(time.RFC3339Nano), end.Format(time.RFC3339Nano))
	}
	return start, end, nil
}
