// Package peek hands the repository's own tests the figures of package
// dynamoseqtest that its API does not promise, such as a global table's
// replication counts. dynamoseqtest fills its functions in when it is
// loaded; a test reads them through dbtest.
package peek

import "github.com/dynamoseq/dynamoseq/internal/replicator"

// Replication returns the counts so far of the replicator of a
// *dynamoseqtest.GlobalTable. dynamoseqtest sets it.
var Replication func(globalTable any) replicator.Stats

// Faults returns how many requests a *dynamoseqtest.FaultTransport has
// taken (resends included), and how many of their answers it has replaced
// by a connection reset (lost) and held back (stalled) so far.
// dynamoseqtest sets it.
var Faults func(transport any) (requests, lost, stalled int64)
