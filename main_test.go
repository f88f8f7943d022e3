package dynamoseq_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

func TestMain(m *testing.M) {
	dbtest.Main(m)
}

// TestHelperProcess is not a test: it is the body of the OS processes that
// the multi-process tests start (see dbtest.RunProcesses).
func TestHelperProcess(t *testing.T) {
	helper := dbtest.Helper()
	if helper == "" {
		return // a normal test run: nothing to do
	}
	run, ok := helpers[helper]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown helper %q\n", helper)
		os.Exit(2)
	}
	run(t)
}

// helpers maps a helper name to the work a helper process does. Each test
// file that starts processes registers its helpers in an init function.
var helpers = map[string]func(t *testing.T){}
