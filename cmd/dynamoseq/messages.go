package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dynamoseq/dynamoseq"
)

// optionFlags are the flags that set the library's options, by the
// OptionError.Field that names the option. An option no flag sets keeps
// its Go name in a message.
var optionFlags = map[string]string{
	"PartitionKey":            "--partition-key",
	"KeyPrefix":               "--key-prefix",
	"SortKey":                 "--sort-key", // a SortKey's, and a Counter's with --counter-sort-key-value
	"SortKeyValue":            "--counter-sort-key-value",
	"Layout.SortKey":          "--sort-key",
	"SortKeyDigits":           "--sort-key-width",
	"Layout.SortKeyDigits":    "--sort-key-width",
	"ValueAttribute":          "--value-attribute",
	"VersionAttribute":        "--version-attribute",
	"Layout.VersionKeyFormat": "--version-key-format",
	"Layout.LatestKeyFormat":  "--latest-key-format",
	"Start":                   "--start",
	"Step":                    "--step",
	"MaxValue":                "--max-value",
	"GlobalTable":             "--global-table",
	"Region":                  "--region",
	"Regions":                 "--regions",
	"MaxAttempts":             "--max-attempts",
	"MaxSize":                 "--max-block-size",
	"MinSize":                 "--min-block-size",
	"Lifetime":                "--block-lifetime",
}

// message is err as the command prints it: prefixed with the program's
// name, an option the library refused named by the flag that sets it, its
// hints a line each, and a pointer to check when the table does not fit
// the options.
func message(err error) string {
	msg := prefixed(err)
	var oe *dynamoseq.OptionError
	if errors.As(err, &oe) {
		// The *Error around it writes its message without the prefix.
		msg = strings.Replace(msg, strings.TrimPrefix(oe.Error(), "dynamoseq: "), "invalid argument: "+flagged(oe), 1)
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

// flagged is the message of an option error in the command's terms: the
// flags that set the options, and their values as they are written on the
// command line.
func flagged(e *dynamoseq.OptionError) string {
	msg := fmt.Sprintf("%s is %s, %s", flagOf(e.Field), flagValue(e.Value), e.Reason)
	if e.Other != "" {
		msg += fmt.Sprintf(" (%s is %s)", flagOf(e.Other), flagValue(e.OtherValue))
	}
	return msg
}

// flagOf is the flag that sets the option field, or the option's name
// when no flag does.
func flagOf(field string) string {
	if flag, ok := optionFlags[field]; ok {
		return flag
	}
	return "option " + field
}

// flagValue writes an option's value as a flag takes it.
func flagValue(v any) string {
	switch v := v.(type) {
	case string:
		return quoted(v)
	case []string:
		return quoted(strings.Join(v, ","))
	case dynamoseq.GlobalTableMode:
		switch v {
		case dynamoseq.GlobalTableNone:
			return "none"
		case dynamoseq.GlobalTableMREC:
			return "mrec"
		case dynamoseq.GlobalTableMRSC:
			return "mrsc"
		}
	}
	return fmt.Sprint(v)
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
