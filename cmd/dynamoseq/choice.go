package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// choice is the value of a flag that takes one of a few words, such as
// --kind or --output. The help shows the words (--output text|json).
type choice struct {
	p       *string
	choices []string
}

// choiceVar defines on fs the flag name, which stores one of choices in p
// (def to begin with, "" for the library's default). Any other value is a
// usage error when the flags are parsed; letter case does not matter.
func choiceVar(fs *pflag.FlagSet, p *string, name, def, usage string, choices ...string) {
	*p = def
	fs.Var(&choice{p: p, choices: choices}, name, usage)
}

func (c *choice) String() string {
	if c.p == nil { // the zero value, which the flag package may make
		return ""
	}
	return *c.p
}

// Type is what the help shows for the flag's value: its words.
func (c *choice) Type() string { return strings.Join(c.choices, "|") }

func (c *choice) Set(s string) error {
	i := slices.IndexFunc(c.choices, func(w string) bool { return strings.EqualFold(w, s) })
	if i < 0 {
		return fmt.Errorf("want %s", strings.Join(c.choices, ", "))
	}
	*c.p = c.choices[i]
	return nil
}
