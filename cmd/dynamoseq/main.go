// Command dynamoseq looks at and moves the sequences that the dynamoseq
// library keeps in DynamoDB: create and check their tables, take and read
// numbers, advance a counter, list sequences, read the versions of a Latest
// document, and measure a strategy against the raw SDK call.
//
// Install it with
//
//	go install github.com/dynamoseq/dynamoseq/cmd/dynamoseq@latest
//
// It follows the aws CLI's habits: --table, --endpoint-url, --region,
// --profile and --output text|json; flags before or after the positional
// arguments; credentials and Region from the standard AWS chain
// (environment, shared config and credentials files, the --profile named
// there). The flags that describe the table can be set once in environment
// variables: DYNAMOSEQ_TABLE, DYNAMOSEQ_PARTITION_KEY and so on, the
// endpoint in AWS_ENDPOINT_URL_DYNAMODB or AWS_ENDPOINT_URL. Without --kind,
// a command reads the strategy from the table's key. A flag that the kind
// does not read (--sort-key-type for a counter) is refused when it is set on
// the command line, and left unread when it is set through its variable
// (kindflags.go). Errors go to stderr, naming the table and the sequence,
// with the closest names when a name is not found, and the closest flag or
// command for a typo. next writes to a gap-free sequence (SortKey, Latest)
// only with --write. The exit status is 0 on success, 1 on an error, 2 on
// a mistake in the command line (and for next without --write on a
// gap-free sequence, which writes nothing). Every subcommand takes --help.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	_ "time/tzdata" // --location on a machine without a zoneinfo database

	"github.com/spf13/pflag"

	"github.com/dynamoseq/dynamoseq"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// command is one subcommand. define registers its own flags on fs and
// returns the function that runs it with the positional arguments.
type command struct {
	name     string
	synopsis string // the positional arguments and own flags, for usage
	summary  string // one line for the list of commands
	doc      string // what it does underneath, for its --help
	minArgs  int
	maxArgs  int
	// only is the one kind a command without --kind works on (advance
	// works on counters), whose unread flags runCommand refuses;
	// "" for a command that resolves its kind itself.
	only   string
	define func(fs *pflag.FlagSet) func(ctx context.Context, e *env, args []string) error
}

// commands lists the subcommands in the order the usage shows them.
func commands() []*command {
	return []*command{
		createTableCommand(),
		checkCommand(),
		nextCommand(),
		currentCommand(),
		advanceCommand(),
		listCommand(),
		versionsCommand(),
		getCommand(),
		benchCommand(),
	}
}

// run runs the command line args and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	positional, help := commandLine(args)
	if len(positional) == 0 {
		if help {
			usage(stdout)
			return 0
		}
		usage(stderr)
		return 2
	}
	name := positional[0]
	if name == "help" { // "dynamoseq help next" is "dynamoseq next --help"
		if len(positional) == 1 {
			usage(stdout)
			return 0
		}
		name = positional[1]
		args = []string{name, "--help"}
	}
	i := slices.IndexFunc(commands(), func(c *command) bool { return c.name == name })
	if i < 0 {
		fmt.Fprintf(stderr, "%s\n\n", unknownCommand(name))
		usage(stderr)
		return 2
	}
	return runCommand(ctx, commands()[i], args, stdout, stderr)
}

// flagSet returns the flags of c, the shared ones registered on e, and the
// function that runs it.
func (c *command) flagSet(e *env) (*pflag.FlagSet, func(context.Context, *env, []string) error) {
	fs := pflag.NewFlagSet("dynamoseq "+c.name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard) // run prints the usage itself
	e.register(fs)
	return fs, c.define(fs)
}

// runCommand parses args, the whole command line with c's name among them,
// and runs c.
func runCommand(ctx context.Context, c *command, args []string, stdout, stderr io.Writer) int {
	e := &env{stdout: stdout, stderr: stderr}
	fs, runFn := c.flagSet(e)
	err := fs.Parse(args)
	positional := fs.Args()
	if len(positional) > 0 && positional[0] == c.name {
		positional = positional[1:]
	}
	switch {
	case errors.Is(err, pflag.ErrHelp):
		commandUsage(stdout, c, fs)
		return 0
	case err == nil:
		e.onCommandLine = commandLineFlags(fs) // before the variables set more
		err = fromEnvironment(fs)
	}
	switch {
	case err != nil:
		return usageFailed(stderr, c, didYouMean(c, fs, err))
	case len(positional) < c.minArgs || len(positional) > c.maxArgs:
		return usageFailed(stderr, c, fmt.Errorf("want %s, got %d arguments", c.synopsis, len(positional)))
	}
	if err := e.validate(); err != nil {
		return usageFailed(stderr, c, err)
	}
	if c.only != "" {
		if err := e.refuseUnread(c.only, fmt.Sprintf(" (%s works on %s only)", c.name, c.only)); err != nil {
			return usageFailed(stderr, c, err)
		}
	}
	err = e.layoutHint(runFn(ctx, e, positional))
	var ue *usageError
	switch {
	case errors.As(err, &ue):
		return usageFailed(stderr, c, err)
	case errors.Is(err, dynamoseq.ErrInvalidArgument):
		// An option or a name the library refuses came from the command line.
		return usageFailed(stderr, c, err)
	case err != nil:
		fmt.Fprintln(stderr, message(err))
		return 1
	}
	return 0
}

// sharedFlags is a flag set with only the flags every command takes.
func sharedFlags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("dynamoseq", pflag.ContinueOnError)
	new(settings).register(fs)
	return fs
}

func usageFailed(w io.Writer, c *command, err error) int {
	msg := strings.TrimPrefix(message(err), "dynamoseq: ") // the library's errors carry it
	fmt.Fprintf(w, "dynamoseq %s: %s\nusage: %s\nRun 'dynamoseq %s --help' for the flags.\n", c.name, msg, synopsis(c), c.name)
	return 2
}

// synopsis is the command line of c, as usage messages show it.
func synopsis(c *command) string {
	return strings.Join(strings.Fields("dynamoseq "+c.name+" "+c.synopsis+" --table TABLE [flags]"), " ")
}

func usage(w io.Writer) {
	fmt.Fprint(w, `dynamoseq looks at and moves the sequences of the dynamoseq library in DynamoDB.

usage: dynamoseq COMMAND [ARGS] --table TABLE [flags]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-13s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Flags may come before or after the arguments. Each flag that describes the
table has an environment variable: DYNAMOSEQ_TABLE for --table,
DYNAMOSEQ_PARTITION_KEY for --partition-key, and so on (a flag wins). The
endpoint can be set in AWS_ENDPOINT_URL_DYNAMODB or AWS_ENDPOINT_URL.
Credentials and Region come from the standard AWS chain (environment, shared
config files, --profile). Without --kind, a command reads the strategy from
the table's key ('dynamoseq next --help' says how). A flag the kind does not
read is refused on the command line and left unread in its variable.
next writes to a gap-free sequence (sortkey, latest) only with --write.
Exit status: 0 success, 1 error, 2 usage mistake (or next without --write).
Run 'dynamoseq COMMAND --help' for a command's flags.
`)
}

// commandUsage prints a subcommand's help: aws CLI style, with "--" before
// long flag names.
func commandUsage(w io.Writer, c *command, fs *pflag.FlagSet) {
	fmt.Fprintf(w, "usage: %s\n\n%s.\n%s", synopsis(c), c.summary, c.doc)
	kinds := commandKinds(c, fs)
	if f := fs.Lookup("kind"); f != nil {
		if k, ok := f.Value.(*kindChoice); ok {
			fmt.Fprint(w, kindRule(k.choices))
		}
	}
	kindFlagsHelp(w, c.only)
	shared := sharedFlags()
	own := func(f *pflag.Flag) bool { return shared.Lookup(f.Name) == nil }
	fmt.Fprintf(w, "\nFlags of %s:\n", c.name)
	printFlags(w, fs, kinds, own)
	fmt.Fprintf(w, "\nFlags of every command:\n")
	printFlags(w, fs, kinds, func(f *pflag.Flag) bool { return !own(f) })
}

// printFlags writes the flags of fs that which picks, but those that none
// of the command's kinds reads (which it refuses on the command line).
func printFlags(w io.Writer, fs *pflag.FlagSet, kinds []string, which func(*pflag.Flag) bool) {
	fs.VisitAll(func(f *pflag.Flag) {
		if !which(f) || !readByAny(f.Name, kinds) {
			return
		}
		_, help := pflag.UnquoteUsage(f)
		def := ""
		if !isZeroDefault(f) {
			def = fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "  %s%s\n    \t%s%s%s\n", flagSynopsis(f), kindMark(f.Name, kinds), help, def, envNote(f.Name))
	})
}

// flagSynopsis is how the flag is written on the command line:
// "--table string", "-n, --count int", "--kind counter|block",
// "--baseline[=false]".
func flagSynopsis(f *pflag.Flag) string {
	name := "--" + f.Name
	if f.Shorthand != "" {
		name = "-" + f.Shorthand + ", " + name
	}
	if f.Value.Type() == "bool" {
		if f.DefValue == "true" {
			return name + "[=false]"
		}
		return name
	}
	typ, _ := pflag.UnquoteUsage(f) // a choice's type is its words, "text|json"
	return name + " " + typ
}

// isZeroDefault reports whether the flag's default is its type's zero
// value, which stands for the library's default: the help text says what
// that is, when it says anything.
func isZeroDefault(f *pflag.Flag) bool {
	switch f.DefValue {
	case "", "0", "0s", "false":
		return true
	}
	return false
}
