package dbtest

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/internal/replicator"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/peek"
)

// MRECRegions are the names of the two Regions of MRECTable, in the order
// of its fields.
var MRECRegions = []string{"us-east-1", "eu-west-1"}

// MREC is a simulated multi-Region eventually consistent global table of
// two Regions (dynamoseqtest.NewGlobalTable), with the endpoints and
// clients of its Regions in the order of MRECRegions.
type MREC struct {
	*dynamoseqtest.GlobalTable
	Table     string
	Endpoints [2]string
	Clients   [2]*dynamodb.Client
}

// MRECTable creates a table keyed by a String partition key "pk" in the
// Regions of MRECRegions, which the test binary's global tables share, and
// replicates it with the given delay until the test ends; then it checks
// that the replicator met no error and deletes the tables.
func MRECTable(tb testing.TB, delay time.Duration) *MREC {
	tb.Helper()
	g := &MREC{GlobalTable: dynamoseqtest.NewGlobalTable(tb, dynamoseq.CounterTable("t"), delay, MRECRegions...)}
	g.Table = g.Name()
	for i, r := range MRECRegions {
		g.Endpoints[i] = g.Server(r).Endpoint()
		g.Clients[i] = g.Server(r).Client()
	}
	return g
}

// Stats returns the table's replication counts so far.
func (g *MREC) Stats() replicator.Stats { return Replication(g.GlobalTable) }

// Replication returns the replication counts so far of a global table of
// dynamoseqtest.
func Replication(g *dynamoseqtest.GlobalTable) replicator.Stats { return peek.Replication(g) }
