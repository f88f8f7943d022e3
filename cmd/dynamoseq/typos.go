package main

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"
)

// didYouMean adds to err, when it says that a long flag of the command c
// (whose flags are fs) is unknown, the closest flag c takes ("did you mean
// --period?"), or the commands that take the flag as it is written. It
// leaves any other error as it is.
func didYouMean(c *command, fs *pflag.FlagSet, err error) error {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) || ne.GetSpecifiedShortnames() != "" {
		return err
	}
	typed := ne.GetSpecifiedName()
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if best := closest(typed, names, 1); len(best) > 0 {
		return usageErrorf("%v; did you mean --%s?", err, best[0])
	}
	var others []string
	for _, o := range commands() {
		ofs, _ := o.flagSet(&env{})
		if ofs.Lookup(typed) != nil {
			others = append(others, o.name)
		}
	}
	if len(others) > 0 {
		return usageErrorf("%v; %s takes no --%s, %s does", err, c.name, typed, joinKinds(others, "and"))
	}
	return err
}

// unknownCommand is the message for the command name that no command has:
// with the closest command's name, when one is close.
func unknownCommand(name string) string {
	names := commandNames()
	msg := fmt.Sprintf("dynamoseq: unknown command %q", name)
	if best := closest(name, names, 1); len(best) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", best[0])
	}
	return msg
}

// commandNames returns the names of the commands, in the usage's order.
func commandNames() []string {
	names := make([]string, 0, len(commands()))
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return names
}
