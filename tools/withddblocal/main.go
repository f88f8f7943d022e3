// Command withddblocal starts DynamoDB Local (installed by `make ddblocal`)
// on a free loopback port, runs the command given as its arguments with
// "-endpoint URL" appended, and stops DynamoDB Local when the command ends,
// exiting with the command's status. `make demo` runs the quickstart with
// it, so that the example itself needs nothing but an endpoint:
//
//	go run ./tools/withddblocal go run ./examples/quickstart -orders 100
//
// With -env NAME first, the command gets the endpoint in the environment
// variable NAME instead of as arguments: `make test` runs the test binaries
// of its suite on one DynamoDB Local this way, rather than one each:
//
//	go run ./tools/withddblocal -env DYNAMOSEQ_TEST_ENDPOINT go test ./...
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"time"

	"github.com/dynamoseq/dynamoseq/internal/ddblocal"
)

func main() {
	args, env := os.Args[1:], ""
	if len(args) >= 2 && args[0] == "-env" {
		args, env = args[2:], args[1]
	}
	if len(args) < 1 {
		fmt.Fprintln(os.Stderr, "usage: withddblocal [-env NAME] COMMAND [ARG...]   (runs COMMAND ARG... -endpoint URL, or with NAME=URL)")
		os.Exit(2)
	}
	os.Exit(run(args, env))
}

// run runs command with the endpoint of a DynamoDB Local started for it:
// in the variable env, or, if env is "", as arguments.
func run(command []string, env string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	srv, err := ddblocal.Start(ctx)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "withddblocal: %v\n", err)
		return 1
	}
	defer srv.Stop()
	fmt.Fprintf(os.Stderr, "withddblocal: DynamoDB Local started for this run at %s\n", srv.Endpoint)

	// Ctrl-C reaches the command too (one process group): let it end, then
	// stop the server. (Notify, not Ignore: an ignored signal stays ignored
	// in the command.)
	signal.Notify(make(chan os.Signal, 1), os.Interrupt)
	cmd := exec.Command(command[0], append(command[1:], "-endpoint", srv.Endpoint)...)
	if env != "" {
		cmd = exec.Command(command[0], command[1:]...)
		cmd.Env = append(os.Environ(), env+"="+srv.Endpoint)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return exit.ExitCode()
	default:
		fmt.Fprintf(os.Stderr, "withddblocal: %v\n", err)
		return 1
	}
}
