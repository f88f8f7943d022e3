package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// kindFlags is the one table of the flags that only some strategy kinds
// read, with those kinds. A flag not listed here is read by every kind:
// --table, --partition-key, --key-prefix, --global-table, --sort-key (a
// counter's with --counter-sort-key-value), --ttl, --max-attempts, the
// commands' own flags (-n, --page-size, -c, ...) and --period, --date and
// --location, which name the sequence before its kind is known, for every
// kind of the commands that take them (an IDMinter takes any Sequencer).
// The table is by kind only: a flag a kind reads only beside another
// (--sort-key-width with --sort-key-type S, --version-key-format with
// --layout partitionkey) is not refused without it.
//
// After the kind is resolved, every command refuses a flag of this table
// set on the command line for a kind it does not list (refuseUnread), and
// every command's help marks these flags with their kinds among those the
// command takes (kindMark) and leaves out those it always refuses: both
// read this table, so they cannot disagree.
var kindFlags = []flagKinds{
	{"sort-key-type", []string{kindSortKey, kindLatest}},
	{"sort-key-width", []string{kindSortKey, kindLatest}},
	{"counter-sort-key-value", []string{kindCounter, kindBlock}},
	{"value-attribute", []string{kindCounter, kindBlock}},
	{"start", []string{kindCounter, kindBlock, kindSortKey}},
	{"step", []string{kindCounter, kindBlock}},
	{"max-value", []string{kindCounter, kindBlock, kindSortKey}},
	{"regions", []string{kindCounter, kindBlock}},
	{"layout", []string{kindLatest}},
	{"version-attribute", []string{kindLatest}},
	{"version-key-format", []string{kindLatest}},
	{"latest-key-format", []string{kindLatest}},
	{"size", []string{kindBlock}},
	{"min-block-size", []string{kindBlock}},
	{"max-block-size", []string{kindBlock}},
	{"block-lifetime", []string{kindBlock}},
}

// flagKinds is a flag, by its name, and the kinds that read it.
type flagKinds struct {
	flag  string
	kinds []string
}

// kindsReading returns the kinds that read the flag name, or nil when
// every kind reads it.
func kindsReading(name string) []string {
	i := slices.IndexFunc(kindFlags, func(k flagKinds) bool { return k.flag == name })
	if i < 0 {
		return nil
	}
	return kindFlags[i].kinds
}

// commandLineFlags returns the names of the flags of fs set on the command
// line, once it is parsed and before the environment variables are read
// (fromEnvironment marks the flags it sets as changed too). A flag given
// its empty value ("", 0, false, where that is its default) is left out:
// that is how a command line takes back what a variable set, and it sets
// nothing a kind could leave unread.
func commandLineFlags(fs *pflag.FlagSet) []string {
	var names []string
	fs.Visit(func(f *pflag.Flag) { // in the order of their names
		if isZeroDefault(f) && f.Value.String() == f.DefValue {
			return
		}
		names = append(names, f.Name)
	})
	return names
}

// refuseUnread returns a usage error naming each flag set on the command
// line (e.onCommandLine) that the strategy kind does not read, with the
// kinds that read it, or nil when kind reads them all. why says where the
// kind came from, when not from --kind: ", the kind read from the table".
//
// Only the command line is refused. A flag set through its DYNAMOSEQ_
// variable is left unread by a kind that does not read it, because an
// operator sets those variables once per shell, for tables of every kind:
// DYNAMOSEQ_SORT_KEY_TYPE=S for a SortKey table must not stop an advance
// on a counter table.
func (e *env) refuseUnread(kind, why string) error {
	var refused []string
	for _, name := range e.onCommandLine {
		kinds := kindsReading(name)
		if kinds == nil || slices.Contains(kinds, kind) {
			continue
		}
		refused = append(refused, fmt.Sprintf("--%s is read by --kind %s, not by %s%s", name, joinKinds(kinds, "and"), kind, why))
	}
	if len(refused) == 0 {
		return nil
	}
	return usageErrorf("%s", strings.Join(refused, "; "))
}

// joinKinds writes kinds as a list: "latest", "sortkey and latest",
// "counter, block and sortkey", with conj before the last.
func joinKinds(kinds []string, conj string) string {
	if len(kinds) < 2 {
		return strings.Join(kinds, "")
	}
	return strings.Join(kinds[:len(kinds)-1], ", ") + " " + conj + " " + kinds[len(kinds)-1]
}

// kindMark is what the help adds to the flag name when only some kinds
// read it: " [sortkey, latest]", those of kinds, the kinds the command
// takes; "" when every kind does, or when the command takes one kind.
func kindMark(name string, kinds []string) string {
	reading := kindsReading(name)
	if reading == nil || len(kinds) < 2 {
		return ""
	}
	reading = slices.DeleteFunc(slices.Clone(reading), func(k string) bool { return !slices.Contains(kinds, k) })
	if len(reading) == len(kinds) {
		return ""
	}
	return " [" + strings.Join(reading, ", ") + "]"
}

// readByAny reports whether one of kinds reads the flag name.
func readByAny(name string, kinds []string) bool {
	reading := kindsReading(name)
	return reading == nil || slices.ContainsFunc(kinds, func(k string) bool { return slices.Contains(reading, k) })
}

// commandKinds returns the kinds the command c takes: its --kind flag's
// choices (fs holds c's flags), or the one kind it works on.
func commandKinds(c *command, fs *pflag.FlagSet) []string {
	if c.only != "" {
		return []string{c.only}
	}
	if f := fs.Lookup("kind"); f != nil {
		switch v := f.Value.(type) {
		case *kindChoice:
			return v.choices
		case *choice:
			return v.choices
		}
	}
	return []string{kindCounter, kindBlock, kindSortKey, kindLatest}
}

// kindFlagsHelp writes what a command's help says about the flags that
// kindMark marks: that they are refused for another kind, but not when set
// through their variables. only is the one kind the command works on, for
// the commands without --kind (advance), or "".
func kindFlagsHelp(w io.Writer, only string) {
	refused := `A flag marked [KINDS] is read by those kinds only. Set on the command line
while the kind, given by --kind or read from the table, is another, it is
refused, exit status 2`
	if only != "" {
		refused = fmt.Sprintf(`This command works on %s only, and lists the flags that %s reads. A
flag that only other kinds read is refused on the command line, exit
status 2`, only, only)
	}
	fmt.Fprintf(w, `
%s (but a "" or 0 that stands for the default is let
through). Set through its DYNAMOSEQ_ variable, it is not refused, only left
unread, so that one shell's variables may serve tables of every kind.
`, refused)
}
