package dynamoseqtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/internal/ddblocal"
	"github.com/dynamoseq/dynamoseq/internal/replicator"
)

// GlobalTable is a global table in multi-Region eventually consistent
// (MREC) mode, which DynamoDB Local does not have, simulated: the same
// table in one DynamoDB Local per Region, and a replicator that applies
// each write made in one Region to the others after a delay, item by item,
// with last writer wins per item, as the service's replication does. A
// write that loses is lost without a trace, as on the service, so a test
// can show what two Regions writing one item do to the code under test.
//
// What it does not simulate: the service's replication latency (the delay
// is the test's choice), replicated transactions (each item of a
// transaction is replicated on its own, as on the service), and the MRSC
// mode. The repository's docs/global-tables.md says how the replicator
// judges the last writer.
type GlobalTable struct {
	name    string
	regions []string
	servers []*Server
	rep     *replicator.Replicator
}

// GlobalTableOptions configures NewGlobalTable. A zero field means its
// default.
type GlobalTableOptions struct {
	// Regions names the table's Regions. Default: us-east-1 and eu-west-1.
	Regions []string
	// Servers are the DynamoDB Local servers that stand for the Regions,
	// one per Region in the order of Regions, each a different server (from
	// New), so that several tests share them: each global table has a name
	// of its own. Default: NewGlobalTable starts one per Region (at once)
	// and stops them when the test ends.
	Servers []*Server
	// Delay is how long a write made in one Region takes to be applied in
	// the others. Default 0: as soon as the replicator reads it from the
	// Region's stream, which it polls every 25ms.
	Delay time.Duration
}

// NewGlobalTable creates the table in describes in every Region, under one
// name unique to this test (in.TableName, if set, as its stem), with a
// stream of NEW_IMAGE unless in has one of NEW_IMAGE or NEW_AND_OLD_IMAGES,
// and replicates it until the test ends; then it fails the test if the
// replicator met an error, and deletes the tables. in itself is not
// changed.
func NewGlobalTable(tb testing.TB, in *dynamodb.CreateTableInput, o GlobalTableOptions) *GlobalTable {
	tb.Helper()
	g := &GlobalTable{regions: o.Regions, servers: o.Servers}
	if len(g.regions) == 0 {
		g.regions = []string{"us-east-1", "eu-west-1"}
	}
	if len(g.regions) < 2 {
		tb.Fatalf("dynamoseqtest: a global table needs two Regions or more, not %d", len(g.regions))
	}
	if g.servers == nil {
		g.servers = startServers(tb, len(g.regions))
	}
	if len(g.servers) != len(g.regions) || slices.Contains(g.servers, nil) {
		tb.Fatalf("dynamoseqtest: %d Servers for %d Regions", len(g.servers), len(g.regions))
	}
	def := *in
	def.TableName = aws.String(uniqueTableName(tb, aws.ToString(in.TableName)))
	g.name = *def.TableName
	if def.StreamSpecification == nil {
		def.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage}
	}
	endpoints := map[string]bool{}
	replicas := make([]replicator.Region, len(g.regions))
	for i, s := range g.servers {
		if endpoints[s.endpoint] {
			tb.Fatalf("dynamoseqtest: Regions %v share the server at %s; each needs its own", g.regions, s.endpoint)
		}
		endpoints[s.endpoint] = true
		s.createTable(tb, &def)
		replicas[i] = replicator.Region{Name: g.regions[i], Endpoint: s.endpoint}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := replicator.Start(ctx, g.name, o.Delay, replicas...)
	if err != nil {
		tb.Fatalf("dynamoseqtest: replicating %s: %v", g.name, err)
	}
	g.rep = r
	tb.Cleanup(func() {
		if err := r.Close(); err != nil {
			tb.Errorf("dynamoseqtest: replicating %s: %v", g.name, err)
		}
	})
	return g
}

// startServers starts n in-memory DynamoDB Local servers at once, stopped
// when the test ends.
func startServers(tb testing.TB, n int) []*Server {
	tb.Helper()
	servers := make([]*Server, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// ddblocal bounds the start-up by the test binary\'s -timeout.
			ctx := context.Background()
			local, err := ddblocal.StartConfig(ctx, ddblocal.Config{Advice: howToInstall(false)})
			if err != nil {
				errs[i] = err
				return
			}
			servers[i] = &Server{endpoint: local.Endpoint, local: local}
		}()
	}
	wg.Wait()
	for _, s := range servers {
		if s != nil {
			tb.Cleanup(s.local.Stop)
		}
	}
	if err := errors.Join(errs...); err != nil {
		tb.Fatalf("dynamoseqtest: a global table needs a DynamoDB Local per Region: %v", err)
	}
	return servers
}

// Name is the table's name, the same in every Region.
func (g *GlobalTable) Name() string { return g.name }

// Regions are the table's Regions, in the order of the options.
func (g *GlobalTable) Regions() []string { return slices.Clone(g.regions) }

// Server is the server that stands for region, whose Client writes in that
// Region. It panics if region is not one of the table's.
func (g *GlobalTable) Server(region string) *Server {
	i := slices.Index(g.regions, region)
	if i < 0 {
		panic(fmt.Sprintf("dynamoseqtest: global table %s has no Region %q (it has %v)", g.name, region, g.regions))
	}
	return g.servers[i]
}

// Settle waits until every write made so far has reached every Region (or
// lost there to a later write), so that all Regions hold the same items.
// It fails the test after 30 seconds.
func (g *GlobalTable) Settle(tb testing.TB) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := g.rep.Settle(ctx); err != nil {
		tb.Fatalf("dynamoseqtest: waiting for %s to replicate: %v", g.name, err)
	}
}

// ReplicationStats are cumulative counts of a GlobalTable's replication.
type ReplicationStats struct {
	Writes     int64 // writes made in the Regions by their clients
	Replicated int64 // writes applied in another Region
	Superseded int64 // writes dropped in a Region that held a later write: last writer wins
}

// Stats returns the counts so far.
func (g *GlobalTable) Stats() ReplicationStats {
	s := g.rep.Stats()
	return ReplicationStats{Writes: s.Local, Replicated: s.Replicated, Superseded: s.Superseded}
}
