package main

import (
	"flag"
	"strings"
)

// split sorts args into flags (with their values, in their order) and the
// indexes of the positional arguments, the way the aws CLI reads a command
// line: flags may come before or after positional arguments. A flag of fs
// that takes a value and is written without "=" takes the next argument as
// its value. Everything after "--" is positional. Unknown flags stay among
// the flags, for flag.FlagSet.Parse to report.
func split(fs *flag.FlagSet, args []string) (flags []string, positional []int) {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			for j := i + 1; j < len(args); j++ {
				positional = append(positional, j)
			}
			return flags, positional
		case len(arg) < 2 || arg[0] != '-':
			positional = append(positional, i)
			continue
		}
		flags = append(flags, arg)
		name := strings.TrimLeft(arg, "-")
		if !strings.Contains(name, "=") && takesValue(fs, name) && i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	return flags, positional
}

// interspersed reorders args so that flag.FlagSet.Parse, which stops at the
// first positional argument, sees every flag: "next orders --table Seq"
// parses like "next --table Seq orders".
func interspersed(fs *flag.FlagSet, args []string) []string {
	flags, positional := split(fs, args)
	out := append(flags, "--")
	for _, i := range positional {
		out = append(out, args[i])
	}
	return out
}

// takesValue reports whether the flag name is defined and needs a value,
// that is, it is not a boolean flag.
func takesValue(fs *flag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}
