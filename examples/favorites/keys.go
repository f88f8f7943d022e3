package favorites

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sep separates the parts of a composite key ("Tag#alice"), and Esc escapes
// a Sep or an Esc inside a part, so that any part, including one that holds
// Sep or is empty, survives Key and SplitKey unchanged.
const (
	Sep = '#'
	Esc = '\\'
)

// Key joins parts into a composite key value, escaping Sep and Esc in each
// part: Key("Tag", "al#ice") is `Tag#al\#ice`. For any parts a and b,
// Key(a, b, ...) starts with Key(a)+"#" and no key whose first part differs
// from a does, so a Query with begins_with(Key(a)+"#") finds exactly the keys
// under a. It panics when called with no parts (a programming error).
func Key(parts ...string) string {
	if len(parts) == 0 {
		panic("favorites: Key needs at least one part")
	}
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(Sep)
		}
		for j := 0; j < len(p); j++ {
			if c := p[j]; c == Sep || c == Esc {
				b.WriteByte(Esc)
			}
			b.WriteByte(p[j])
		}
	}
	return b.String()
}

// errBadKey reports a string that Key could not have returned.
var errBadKey = errors.New("favorites: malformed composite key")

// SplitKey returns the parts Key joined: SplitKey(Key(p...)) equals p. It
// fails on a string Key cannot return (an Esc that escapes neither Sep nor
// Esc, or one at the end).
func SplitKey(key string) ([]string, error) {
	var parts []string
	var b strings.Builder
	for i := 0; i < len(key); i++ {
		switch c := key[i]; c {
		case Esc:
			if i+1 == len(key) || (key[i+1] != Sep && key[i+1] != Esc) {
				return nil, fmt.Errorf("%w: %q: bad escape at byte %d", errBadKey, key, i)
			}
			i++
			b.WriteByte(key[i])
		case Sep:
			parts = append(parts, b.String())
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(parts, b.String()), nil
}

// timeLayout formats times at a fixed width (30 bytes) in UTC with all nine
// fractional digits, so that the string order of two keys is their time
// order. time.RFC3339Nano trims trailing zeros and would not sort.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

// TimeKey returns t as a sort key that sorts as a string in time order. t
// must fall in the years 1 to 9999.
func TimeKey(t time.Time) (string, error) {
	if y := t.UTC().Year(); y < 1 || y > 9999 {
		return "", fmt.Errorf("%w: time %v: want a year from 1 to 9999", ErrInvalidArgument, t)
	}
	return t.UTC().Format(timeLayout), nil
}

// parseTimeKey is the inverse of TimeKey.
func parseTimeKey(s string) (time.Time, error) {
	return time.Parse(timeLayout, s)
}

// idWidth is the width of an id in a key: that of math.MaxInt64.
const idWidth = 19

// IDKey returns id zero-padded to 19 digits, so that ids sort as strings in
// numeric order. id must be positive, as dynamoseq's ids are.
func IDKey(id int64) string {
	return fmt.Sprintf("%0*d", idWidth, id)
}
