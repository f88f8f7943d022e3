// Command withddblocal starts DynamoDB Local (installed by `make ddblocal`)
// on a free loopback port, runs the command given as its arguments with
// "-endpoint URL" appended, and stops DynamoDB Local when the command ends,
// exiting with the command's status. `make demo` runs the quickstart with
// it, so that the example itself needs nothing but an endpoint:
//
//	go run ./tools/withddblocal go run ./examples/quickstart -orders 100
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
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: withddblocal COMMAND [ARG...]   (runs COMMAND ARG... -endpoint URL)")
		os.Exit(2)
	}
	os.Exit(run(os.Args[1:]))
}

func run(command []string) int {
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
