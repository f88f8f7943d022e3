package dynamoseqtest

import (
	"github.com/dynamoseq/dynamoseq/internal/replicator"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/peek"
)

// init hands the repository's own tests figures the package does not
// export (through internal/testsupport/peek): a global table's
// replication counts, a FaultTransport's requests and its lost and
// stalled answers.
func init() {
	peek.Replication = func(g any) replicator.Stats { return g.(*GlobalTable).rep.Stats() }
	peek.Faults = func(t any) (requests, lost, stalled int64) {
		c := t.(*FaultTransport).allCounts()
		return c.Requests, c.LostAnswers, c.Stalled
	}
}
