package main

import (
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/dynamoseq/dynamoseq"
)

// periodFlags are --period, --date and --location: they name the counter
// that an IDMinter keeps for NAME in one period ("orders#20261122"), so
// that nobody has to know how that name is written.
type periodFlags struct {
	period   string // "", "day", "month" or "year"
	date     string
	location string
}

// definePeriod defines --period, --date and --location on fs.
func definePeriod(fs *pflag.FlagSet) *periodFlags {
	p := new(periodFlags)
	choiceVar(fs, &p.period, "period", "", "NAME's counter of a period, as an IDMinter names it: NAME#20261122 for a day, NAME#202611 for a month, NAME#2026 for a year", "day", "month", "year")
	fs.StringVar(&p.date, "date", "", "with --period: a date in the period, YYYY-MM-DD, or YYYY-MM and YYYY for a month and a year (default: now)")
	fs.StringVar(&p.location, "location", "", `with --period: the time zone in which periods start, the IDMinter's Location, such as "Europe/Paris" (default UTC)`)
	return p
}

// periods are the IDMinter's periods by --period, with the layouts --date
// may take for each.
var periods = map[string]struct {
	period  dynamoseq.CalendarPeriod
	layouts []string
}{
	"day":   {dynamoseq.Daily, []string{"2006-01-02"}},
	"month": {dynamoseq.Monthly, []string{"2006-01-02", "2006-01"}},
	"year":  {dynamoseq.Yearly, []string{"2006-01-02", "2006-01", "2006"}},
}

// sequence returns the sequence the command works on: name, or with
// --period the name of name's counter in the period that holds --date (or
// now), in --location.
func (p *periodFlags) sequence(name string, now time.Time) (string, error) {
	if p.period == "" {
		if p.date != "" || p.location != "" {
			return "", usageErrorf("--date and --location are read only with --period day|month|year")
		}
		return name, nil
	}
	loc, err := p.loc()
	if err != nil {
		return "", err
	}
	t, err := p.instant(now.In(loc), loc)
	if err != nil {
		return "", err
	}
	m, err := periodMinter(periods[p.period].period, loc)
	if err != nil {
		return "", err
	}
	return m.SequenceAt(name, t)
}

// loc is --location, or UTC.
func (p *periodFlags) loc() (*time.Location, error) {
	if p.location == "" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(p.location)
	if err != nil {
		return nil, usageErrorf("--location %q: %v", p.location, err)
	}
	return loc, nil
}

// instant is --date in loc, or now.
func (p *periodFlags) instant(now time.Time, loc *time.Location) (time.Time, error) {
	if p.date == "" {
		return now, nil
	}
	layouts := periods[p.period].layouts
	for _, layout := range layouts {
		if t, err := time.ParseInLocation(layout, p.date, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, usageErrorf("--date %q: want %s with --period %s", p.date, strings.ReplaceAll(strings.Join(layouts, " or "), "2006-01-02", "YYYY-MM-DD"), p.period)
}

// suffix is what --period adds to every name, such as "#20261122", for
// list; "" without --period. SequenceAt writes name + "#" + the period.
func (p *periodFlags) suffix(now time.Time) (string, error) {
	return p.sequence("", now)
}
