package dynamoseq_test

import (
	"sync"
	"testing"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// warmCalls is how many numbers each goroutine of warmLocal hands out, for
// each strategy of the model set and for its recipe.
const warmCalls = 150

// warmLocalOnce makes warmLocal run once per test binary; warmLocalDone
// records that the run reached its end, so that a benchmark after one
// whose warm-up failed fails too instead of measuring a cold DynamoDB Local.
var (
	warmLocalOnce sync.Once
	warmLocalDone bool
)

// warmLocal runs every strategy of the model set and its recipe on
// DynamoDB Local, 16 goroutines on one name, warmCalls numbers each, once
// per test binary and before the first window of the model set. The
// benchmark that runs it fails when it fails, and so does every later one
// that calls warmLocal.
//
// DynamoDB Local is a JVM. Under its first minute of load its JIT compiler
// takes most of a core (of the 2 here), and a transaction of 16 items takes
// it twice as long as once compiled: later than the model's latency, so
// that the first windows measured the machine, not the library
// (docs/performance.md, "What a row of the model set measures").
func warmLocal(b *testing.B) {
	b.Helper()
	warmLocalOnce.Do(func() {
		srv := dynamoseqtest.Start(b)
		client := srv.Client()
		const writers = 16
		for _, k := range modelKinds {
			table := srv.NewTable(b, k.table("warm"))
			for _, mode := range []string{"baseline", "dynamoseq"} {
				call := benchAppender(b, client, table, k.kind, mode, writers)
				// one name for each side, written by all 16
				if err := callEach(writers, warmCalls, func(int) string { return mode }, call); err != nil {
					b.Fatalf("warming DynamoDB Local up with %s (%s): %v", k.kind, mode, err)
				}
			}
		}
		warmLocalDone = true
	})
	if !warmLocalDone {
		b.Fatal("DynamoDB Local was not warmed up: the warm-up failed in the benchmark that ran it first")
	}
}
