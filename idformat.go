package dynamoseq

import (
	"strconv"
	"strings"
	"time"
)

// Format describes a readable ID: Prefix, the date written with DateLayout,
// and the number zero-padded to Width digits, joined by Separator.
//
//	f := dynamoseq.Format{Prefix: "ORD", DateLayout: "060102", Separator: "-", Width: 6}
//	f.ID(time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC), 42) // "ORD-261122-000042"
//
// Empty parts are left out with their separator: without a Prefix the ID
// starts with the date, without a DateLayout it is the prefix and the number
// ("TKT-0042"). The zero Format writes the bare number.
type Format struct {
	// Prefix starts every ID, such as "ORD". It may be empty.
	Prefix string

	// DateLayout writes the date part with time.Time.Format, such as
	// "060102" (YYMMDD), "200601" or "2006-01-02". It may be empty for an
	// ID without a date; an IDMinter needs one that tells its periods apart.
	DateLayout string

	// Separator goes between the parts, such as "-". It may be empty when
	// DateLayout always writes the same number of characters, and must not
	// contain a digit.
	Separator string

	// Width is the least number of digits of the number part, which is
	// zero-padded to it: 6 writes 42 as "000042". A number with more digits
	// is written whole, never truncated. 0 means no padding; at most 19.
	Width int
}

// idParts is an ID taken apart by Format.Parse.
type idParts struct {
	// Date is the date part read with DateLayout, in the location given to
	// Parse. Fields the layout does not write are zero: "061122" with
	// "060102" gives midnight at the start of 22 November 2026. It is the
	// zero time when the Format has no DateLayout.
	Date time.Time

	// Number is the number part.
	Number int64
}

// maxWidth is the number of digits of math.MaxInt64.
const maxWidth = 19

// ID returns the ID for the number n at the instant t, with t's date written
// in t's location. n is a value handed out by a sequence, so at least 0; a
// negative n is written with a minus sign, which Parse rejects.
//
// ID does not check f; NewIDMinter and Parse do.
func (f Format) ID(t time.Time, n int64) string {
	var b strings.Builder
	b.Grow(len(f.Prefix) + len(f.DateLayout) + 2*len(f.Separator) + max(f.Width, maxWidth))
	if f.Prefix != "" {
		b.WriteString(f.Prefix)
		b.WriteString(f.Separator)
	}
	if f.DateLayout != "" {
		b.WriteString(t.Format(f.DateLayout))
		b.WriteString(f.Separator)
	}
	b.WriteString(f.number(n))
	return b.String()
}

// number writes n zero-padded to Width digits.
func (f Format) number(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n >= 0 && len(s) < f.Width {
		s = strings.Repeat("0", f.Width-len(s)) + s
	}
	return s
}

// Parse takes apart an ID written by f.ID, reading its date in loc (UTC when
// loc is nil). It accepts exactly the strings that ID writes, so
// f.ID(date, number) gives id back.
//
// It returns an error wrapping ErrInvalidArgument, which says what is wrong,
// when f is not a valid Format or id is not one of its IDs: another prefix,
// a missing separator, a date that DateLayout does not read or does not
// write that way, a number part that is not digits, has fewer than Width
// digits, has a needless leading zero or does not fit in an int64.
func (f Format) Parse(id string, loc *time.Location) (date time.Time, number int64, err error) {
	parts, err := f.parse(id, loc)
	if err != nil {
		return time.Time{}, 0, &Error{Op: "Format.Parse", Err: err}
	}
	return parts.Date, parts.Number, nil
}

func (f Format) parse(id string, loc *time.Location) (idParts, error) {
	if err := f.validate(); err != nil {
		return idParts{}, err
	}
	if loc == nil {
		loc = time.UTC
	}
	rest := id
	if f.Prefix != "" {
		var ok bool
		if rest, ok = strings.CutPrefix(id, f.Prefix+f.Separator); !ok {
			return idParts{}, invalidf("id %q does not start with %q", id, f.Prefix+f.Separator)
		}
	}
	if f.DateLayout == "" {
		n, err := f.parseNumber(id, rest)
		return idParts{Number: n}, err
	}
	if f.Separator != "" {
		// The number part is digits and the separator holds a non-digit,
		// so the last separator is the one before the number.
		i := strings.LastIndex(rest, f.Separator)
		if i < 0 {
			return idParts{}, invalidf("id %q has no separator %q between the date and the number", id, f.Separator)
		}
		date, err := f.parseDate(id, rest[:i], loc)
		if err != nil {
			return idParts{}, err
		}
		n, err := f.parseNumber(id, rest[i+len(f.Separator):])
		return idParts{Date: date, Number: n}, err
	}
	// No separator: the date is the one prefix of rest that DateLayout reads
	// and writes back the same, followed by a valid number part.
	var found []idParts
	for i := len(rest) - max(f.Width, 1); i >= 0 && i >= len(rest)-maxWidth; i-- {
		date, err := f.parseDate(id, rest[:i], loc)
		if err != nil {
			continue
		}
		n, err := f.parseNumber(id, rest[i:])
		if err != nil {
			continue
		}
		found = append(found, idParts{Date: date, Number: n})
	}
	switch len(found) {
	case 0:
		return idParts{}, invalidf("id %q is not a date written with %q followed by a number of at least %d digits", id, f.DateLayout, max(f.Width, 1))
	case 1:
		return found[0], nil
	}
	return idParts{}, invalidf("id %q can be read %d ways; use a Separator or a DateLayout of fixed width", id, len(found))
}

// parseDate reads the date part s, which must be exactly what DateLayout
// writes for the instant it reads.
func (f Format) parseDate(id, s string, loc *time.Location) (time.Time, error) {
	t, err := time.ParseInLocation(f.DateLayout, s, loc)
	if err != nil {
		return time.Time{}, invalidf("id %q: date %q does not match the layout %q", id, s, f.DateLayout)
	}
	if got := t.Format(f.DateLayout); got != s {
		return time.Time{}, invalidf("id %q: date %q is not written the way the layout %q writes it (%q)", id, s, f.DateLayout, got)
	}
	return t, nil
}

// parseNumber reads the number part s: ASCII digits, at least Width of them,
// without a leading zero beyond the padding.
func (f Format) parseNumber(id, s string) (int64, error) {
	if s == "" {
		return 0, invalidf("id %q has no number part", id)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, invalidf("id %q: number part %q is not all digits", id, s)
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, invalidf("id %q: number part %q does not fit in an int64", id, s)
	}
	if f.number(n) != s {
		if len(s) < f.Width {
			return 0, invalidf("id %q: number part %q has %d digits, want at least %d", id, s, len(s), f.Width)
		}
		return 0, invalidf("id %q: number part %q has a leading zero beyond the width %d", id, s, f.Width)
	}
	return n, nil
}

// validate checks the fields that Parse relies on.
func (f Format) validate() error {
	switch {
	case f.Width < 0 || f.Width > maxWidth:
		return invalidf("format width is %d, want 0 to %d", f.Width, maxWidth)
	case strings.ContainsAny(f.Separator, "0123456789"):
		return invalidf("format separator %q contains a digit", f.Separator)
	}
	return nil
}
