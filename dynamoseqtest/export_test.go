package dynamoseqtest

import "github.com/dynamoseq/dynamoseq/internal/replicator"

// The figures the package's own tests check beyond the exported ones.

// FaultCounts are every figure of a FaultTransport.
type FaultCounts = faultCounts

// Counts returns every figure of the transport so far.
func (t *FaultTransport) Counts() FaultCounts { return t.allCounts() }

// OperationStats are the figures of one operation of a model.
type OperationStats = opStats

// Operation returns the figures of the operation op, such as "PutItem".
func (s ModelStats) Operation(op string) OperationStats { return s.ops[op] }

// Total adds up the figures of every operation.
func (s ModelStats) Total() OperationStats {
	var t OperationStats
	for _, o := range s.ops {
		t.Requests += o.Requests
		t.WriteUnits += o.WriteUnits
		t.ReadUnits += o.ReadUnits
		t.Throttled += o.Throttled
		t.ThrottledCancellations += o.ThrottledCancellations
		t.TableThrottled += o.TableThrottled
		t.Conflicts += o.Conflicts
		t.ConflictCancellations += o.ConflictCancellations
		t.Cancellations += o.Cancellations
		t.InProgress += o.InProgress
		t.Replays += o.Replays
	}
	return t
}

// Regions are the table's Regions, in the order given.
func (g *GlobalTable) Regions() []string { return g.regions }

// Stats returns the table's replication counts so far: writes made by
// the Regions' clients (Local), applied in another Region (Replicated),
// dropped in a Region that held a later write (Superseded).
func (g *GlobalTable) Stats() replicator.Stats { return g.rep.Stats() }
