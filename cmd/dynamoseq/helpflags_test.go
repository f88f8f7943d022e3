package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
)

// flagMention is a flag named in a help text, with the word after it:
// "--kind block", "--period day|month|year", "--write".
var flagMention = regexp.MustCompile(`--([a-z][a-z-]*)(?:[ =]([A-Za-z|]+))?`)

// otherCommand is a command line of another command quoted in a help
// text: 'dynamoseq versions NAME --kind sortkey|latest'.
var otherCommand = regexp.MustCompile(`'dynamoseq ([a-z-]+)[^']*'`)

// kindMarkLine is a flag's line in the help, with the kinds it is read by.
var kindMarkLine = regexp.MustCompile(`(?m)^  (?:-\w, )?--([a-z-]+).* \[([a-z, ]+)\]$`)

// TestHelpOffersOnlyAccepted reads every command's help and fails when it
// offers a flag the command does not define, a flag the command always
// refuses (none of its kinds reads it), a value a flag's parser refuses
// (--kind block on a command without block), or marks a flag with a kind
// the command does not take.
func TestHelpOffersOnlyAccepted(t *testing.T) {
	for _, c := range commands() {
		help := runInProcess(t, c.name, "--help").ok(t)
		for _, quoted := range otherCommand.FindAllStringSubmatch(help, -1) {
			i := slices.IndexFunc(commands(), func(o *command) bool { return o.name == quoted[1] })
			if assert.GreaterOrEqual(t, i, 0, "%s --help quotes an unknown command: %s", c.name, quoted[0]) {
				checkMentions(t, c.name+" --help, in "+quoted[0], commands()[i], quoted[0])
			}
		}
		checkMentions(t, c.name+" --help", c, otherCommand.ReplaceAllString(help, ""))
		fs, _ := c.flagSet(&env{})
		kinds := commandKinds(c, fs)
		for _, m := range kindMarkLine.FindAllStringSubmatch(help, -1) {
			for _, k := range strings.Split(m[2], ", ") {
				assert.Contains(t, kinds, k, "%s --help marks --%s with a kind it does not take", c.name, m[1])
			}
		}
	}
	// The usage names --help and flags that commands define.
	usage := runInProcess(t, "--help").ok(t)
	for _, m := range flagMention.FindAllStringSubmatch(usage, -1) {
		defined := m[1] == "help" || slices.ContainsFunc(commands(), func(c *command) bool {
			fs, _ := c.flagSet(&env{})
			return fs.Lookup(m[1]) != nil
		})
		assert.True(t, defined, "dynamoseq --help names --%s, which no command defines", m[1])
	}
}

// checkMentions checks each flag text names, as the help of what says,
// against the parser of the command c.
func checkMentions(t *testing.T, what string, c *command, text string) {
	t.Helper()
	fs, _ := c.flagSet(&env{})
	kinds := commandKinds(c, fs)
	for _, m := range flagMention.FindAllStringSubmatch(text, -1) {
		f := fs.Lookup(m[1])
		if !assert.NotNil(t, f, "%s names --%s, which %s does not define", what, m[1], c.name) {
			continue
		}
		assert.True(t, readByAny(m[1], kinds), "%s names --%s, which %s always refuses (read by %v only)", what, m[1], c.name, kindsReading(m[1]))
		for _, word := range strings.Split(m[2], "|") {
			if !isChoiceWord(word) {
				continue // an ordinary word after the flag: "--kind or"
			}
			fresh, _ := c.flagSet(&env{})
			assert.NoError(t, fresh.Set(m[1], word), "%s offers --%s %s, which %s refuses", what, m[1], word, c.name)
		}
	}
}

// isChoiceWord reports whether word is a value some flag of some command
// takes from a list of words (a kind, a period, a layout, ...).
func isChoiceWord(word string) bool {
	found := false
	for _, c := range commands() {
		fs, _ := c.flagSet(&env{})
		fs.VisitAll(func(f *pflag.Flag) {
			switch v := f.Value.(type) {
			case *choice:
				found = found || slices.Contains(v.choices, word)
			case *kindChoice:
				found = found || slices.Contains(v.choices, word)
			}
		})
	}
	return found
}
