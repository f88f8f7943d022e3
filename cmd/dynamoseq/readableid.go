package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/dynamoseq/dynamoseq"
)

// idFlags are the fields of the IDMinter's Format, with which get takes a
// readable ID ("INV-2026-000002") for VERSION, and get, versions and
// current print IDs beside numbers.
type idFlags struct {
	format dynamoseq.Format
	fs     *pflag.FlagSet
}

// idFlagNames are the flags of idFlags, in the order the hint writes them.
var idFlagNames = []string{"id-prefix", "id-separator", "id-date-layout", "id-width"}

// defineIDFormat defines --id-prefix, --id-separator, --id-date-layout and
// --id-width on fs.
func defineIDFormat(fs *pflag.FlagSet) *idFlags {
	f := &idFlags{fs: fs}
	fs.StringVar(&f.format.Prefix, "id-prefix", "", `with --period: the IDMinter's Format.Prefix, such as "INV"`)
	fs.StringVar(&f.format.Separator, "id-separator", "", `with --period: the IDMinter's Format.Separator, such as "-"`)
	fs.StringVar(&f.format.DateLayout, "id-date-layout", "", `with --period: the IDMinter's Format.DateLayout, a Go time layout such as "2006" or "060102"; given, VERSION may be a readable ID`)
	fs.IntVar(&f.format.Width, "id-width", 0, "with --period: the IDMinter's Format.Width, the least digits of the number")
	return f
}

// given reports whether the Format was given: --id-date-layout, without
// which an IDMinter has no period in its IDs.
func (f *idFlags) given() bool { return f.format.DateLayout != "" }

// check refuses the Format's other flags without --id-date-layout, and the
// Format without --period, which names the IDMinter's period; it returns
// the IDs of the period that --date (or now) names, nil without the Format.
func (f *idFlags) check(p *periodFlags, now time.Time) (func(int64) string, error) {
	for _, name := range idFlagNames {
		if !f.given() && f.fs.Changed(name) {
			return nil, usageErrorf("--%s is read only with --id-date-layout, the IDMinter's date layout", name)
		}
	}
	if !f.given() {
		return nil, nil
	}
	if p.period == "" {
		return nil, usageErrorf("--id-date-layout is read only with --period day|month|year, the IDMinter's period")
	}
	return f.ids(p, now)
}

// minter is an IDMinter of --period in --location with the Format, made
// for Parse, SequenceAt and the Format's IDs: it never mints.
func (f *idFlags) minter(p *periodFlags) (*dynamoseq.IDMinter, *time.Location, error) {
	loc, err := p.loc()
	if err != nil {
		return nil, nil, err
	}
	m, err := namingMinter(f.format, periods[p.period].period, loc)
	return m, loc, err
}

// sequenceOfID returns the sequence of NAME that the readable ID id was
// minted in, and its number: the period of the date it carries. --date,
// which would name another period, is refused beside it.
func (f *idFlags) sequenceOfID(p *periodFlags, name, id string) (string, int64, error) {
	if p.date != "" {
		return "", 0, usageErrorf("--date is not read with a readable ID: its date names the period")
	}
	m, loc, err := f.minter(p)
	if err != nil {
		return "", 0, err
	}
	date, n, err := f.format.Parse(id, loc)
	if err != nil {
		return "", 0, err
	}
	seq, err := m.SequenceAt(name, date)
	return seq, n, err
}

// ids returns the function that writes a number of the period that
// --date (or now) names as the IDMinter writes its ID.
func (f *idFlags) ids(p *periodFlags, now time.Time) (func(int64) string, error) {
	_, loc, err := f.minter(p) // NewIDMinter checks that the layout tells the periods apart
	if err != nil {
		return nil, err
	}
	t, err := p.instant(now.In(loc), loc)
	if err != nil {
		return nil, err
	}
	return func(n int64) string { return f.format.ID(t, n) }, nil
}

// idsOf returns the function that writes a number of the period of the
// readable ID id as the IDMinter writes its ID.
func (f *idFlags) idsOf(p *periodFlags, id string) (func(int64) string, error) {
	_, loc, err := f.minter(p)
	if err != nil {
		return nil, err
	}
	date, _, err := f.format.Parse(id, loc)
	if err != nil {
		return nil, err
	}
	return func(n int64) string { return f.format.ID(date, n) }, nil
}

// notANumber is the usage error for a VERSION that is not a number: with
// --period, the Format flags that read it as a readable ID, when a guess
// at them reads it (and writes it back the same).
func notANumber(version string, p *periodFlags) error {
	msg := fmt.Sprintf("VERSION is %q, want a positive whole number", version)
	if p.period == "" {
		return usageErrorf("%s, or a readable ID with --period and the IDMinter's Format (--id-date-layout, ...)", msg)
	}
	if f, ok := guessFormat(version, p.period); ok {
		return usageErrorf("%s; to read it as a readable ID, give the IDMinter's Format: %s", msg, formatFlags(f))
	}
	return usageErrorf("%s; to read it as a readable ID, give the IDMinter's Format: --id-prefix, --id-separator, --id-date-layout, --id-width", msg)
}

// formatFlags writes f as the flags that give it.
func formatFlags(f dynamoseq.Format) string {
	var b strings.Builder
	if f.Prefix != "" {
		fmt.Fprintf(&b, "--id-prefix %s ", shellWord(f.Prefix))
	}
	if f.Separator != "" {
		fmt.Fprintf(&b, "--id-separator %s ", shellWord(f.Separator))
	}
	fmt.Fprintf(&b, "--id-date-layout %s", shellWord(f.DateLayout))
	if f.Width > 0 {
		fmt.Fprintf(&b, " --id-width %d", f.Width)
	}
	return b.String()
}

// shellWord quotes s for a shell when it holds more than letters, digits
// and -_./.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// guessLayouts are the date layouts guessFormat tries for each --period.
var guessLayouts = map[string][]string{
	"year":  {"2006", "06"},
	"month": {"200601", "0601", "2006-01"},
	"day":   {"20060102", "060102", "2006-01-02"},
}

// guessFormat guesses the Format of the readable ID id of an IDMinter of
// period: the number is its last digits, a separator the character before
// them when it is not a digit, the date the layout of period before that,
// the prefix the rest. The guess holds only when Format.Parse reads id and
// Format.ID writes it back the same.
func guessFormat(id, period string) (dynamoseq.Format, bool) {
	i := len(id)
	for i > 0 && id[i-1] >= '0' && id[i-1] <= '9' {
		i--
	}
	if i == len(id) {
		return dynamoseq.Format{}, false
	}
	f := dynamoseq.Format{Width: len(id) - i}
	rest := id[:i]
	if i > 0 && (id[i-1] < '0' || id[i-1] > '9') {
		f.Separator, rest = id[i-1:i], id[:i-1]
	}
	for _, layout := range guessLayouts[period] {
		if len(rest) < len(layout) {
			continue
		}
		f.DateLayout, f.Prefix = layout, rest[:len(rest)-len(layout)]
		if f.Prefix != "" && f.Separator != "" {
			var ok bool
			if f.Prefix, ok = strings.CutSuffix(f.Prefix, f.Separator); !ok {
				continue
			}
		}
		if date, n, err := f.Parse(id, time.UTC); err == nil && f.ID(date, n) == id {
			return f, true
		}
	}
	return dynamoseq.Format{}, false
}
