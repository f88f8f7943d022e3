package main

import (
	"io"

	"github.com/spf13/pflag"
)

// The command line is read by pflag, as the aws CLI reads one: flags before
// or after the positional arguments, "--table Seq" or "--table=Seq", "-n 3",
// and "--" before positional arguments that start with a dash.

// commandLine returns the positional arguments of args, the subcommand's
// name first, and whether args ask for help (-h or --help). Every flag of
// every subcommand is known here, so that a flag's value written before the
// subcommand ("--kind sortkey next") is not taken for its name; values are
// not checked, and unknown flags are let through: the subcommand's own
// parse reports them.
func commandLine(args []string) (positional []string, help bool) {
	all := pflag.NewFlagSet("dynamoseq", pflag.ContinueOnError)
	all.SetOutput(io.Discard)
	all.ParseErrorsAllowlist.UnknownFlags = true
	for _, c := range commands() {
		fs, _ := c.flagSet(&env{})
		all.AddFlagSet(fs)
	}
	var rest []string
	for i, arg := range args {
		if arg == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		if arg == "-h" || arg == "--help" {
			help = true
			continue
		}
		rest = append(rest, arg)
	}
	// An error (a flag without its value at the end) leaves the positional
	// arguments read so far, which is all that is needed here.
	_ = all.ParseAll(rest, func(*pflag.Flag, string) error { return nil })
	return all.Args(), help
}
