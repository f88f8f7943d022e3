package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/dynamoseq/dynamoseq"
)

// optionFlags are the library's options that the command sets from flags,
// by the names the library's errors give them. Longer names come first,
// so that Regions is not read as Region.
var optionFlags = []struct{ option, flag string }{
	{"CounterSortKeyValue", "--counter-sort-key-value"},
	{"VersionKeyFormat", "--version-key-format"},
	{"LatestKeyFormat", "--latest-key-format"},
	{"VersionAttribute", "--version-attribute"},
	{"RefillThreshold", "--refill-threshold"},
	{"ValueAttribute", "--value-attribute"},
	{"BlockLifetime", "--block-lifetime"},
	{"MinBlockSize", "--min-block-size"},
	{"MaxBlockSize", "--max-block-size"},
	{"PartitionKey", "--partition-key"},
	{"SortKeyWidth", "--sort-key-width"},
	{"SortKeyType", "--sort-key-type"},
	{"MaxAttempts", "--max-attempts"},
	{"KeyPrefix", "--key-prefix"},
	{"MaxValue", "--max-value"},
	{"SortKey", "--sort-key"},
	{"GlobalTable", "--global-table"},
	{"Regions", "--regions"},
	{"Region", "--region"},
	{"Start", "--start"},
	{"Step", "--step"},
}

// optionName finds an option's name as a word, not in "GlobalTableMREC"
// or a method such as "SortKey.Last".
var optionName = func() *regexp.Regexp {
	names := make([]string, len(optionFlags))
	for i, o := range optionFlags {
		names[i] = o.option
	}
	return regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b([^.]|$)`)
}()

// goAdvice is advice and option values in the library's errors written
// for Go code, and what they are on the command line. It also writes
// "Region" in lower case where it means AWS Regions, not the options, which
// optionName then leaves alone.
var goAdvice = strings.NewReplacer(
	"set o.Layout = dynamoseq.LayoutPartitionKey", "pass --layout partitionkey",
	"leave o.Layout at dynamoseq.LayoutSortKey", "leave out --layout partitionkey",
	"Region and Regions are read only", "--regions is read only", // the command sets Region only with MREC
	"GlobalTable is GlobalTableNone", "--global-table is none",
	"GlobalTable is GlobalTableMRSC", "--global-table is mrsc",
	"GlobalTableNone", "--global-table none",
	"GlobalTableMREC", "--global-table mrec",
	"GlobalTableMRSC", "--global-table mrsc",
	"the table's Regions", "the table's regions",
	"this process's Region", "this process's region",
)

// message is err as the command prints it: prefixed with the program's
// name, with the library's Go options turned into the flags that set them,
// its hints a line each, and a pointer to check when the table does not fit
// the options.
func message(err error) string {
	msg := goAdvice.Replace(prefixed(err))
	if errors.Is(err, dynamoseq.ErrInvalidArgument) {
		msg = optionName.ReplaceAllStringFunc(msg, func(m string) string {
			for _, o := range optionFlags {
				if strings.HasPrefix(m, o.option) {
					return o.flag + m[len(o.option):]
				}
			}
			return m
		})
	}
	var h *hinted
	if errors.As(err, &h) {
		for _, hint := range h.hints {
			msg += "\ndynamoseq: " + hint
		}
	}
	var de *dynamoseq.Error
	if errors.Is(err, dynamoseq.ErrTableMismatch) && errors.As(err, &de) {
		msg += fmt.Sprintf("\ndynamoseq: 'dynamoseq check --table %s', with the same flags, says which flags (or which --kind) fit the table", de.Table)
	}
	return msg
}

// prefixed makes sure an error message starts with the program's name. The
// library's errors already do.
func prefixed(err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, "dynamoseq: ") {
		return msg
	}
	return "dynamoseq: " + msg
}
