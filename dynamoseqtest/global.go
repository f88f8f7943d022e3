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
// last writer wins, as the service's replication does. A write that loses
// is lost without a trace, as on the service. It does not simulate the
// service's replication latency (the delay is the test's), replicated
// transactions, or MRSC mode; the repository's docs/global-tables.md says
// how the replicator judges the last writer.
type GlobalTable struct {
	name    string
	regions []string
	servers []*Server
	rep     *replicator.Replicator
}

// defaultRegions are the Regions of a global table when none are named.
var defaultRegions = []string{"us-east-1", "eu-west-1"}

// NewGlobalTable creates the table in describes in each of regions
// (default us-east-1 and eu-west-1), under one name unique to this test
// (in.TableName, if set, as its stem), with a stream of NEW_IMAGE unless in
// has a stream (of new images), and replicates it until the test ends: each
// write after delay (0: as soon as the replicator reads the stream, every
// 25ms). Then it fails the test if the replicator met an error, and deletes
// the tables. in itself is not changed. Each Region is a DynamoDB Local that
// the test binary's global tables share, started on first use, all at once.
func NewGlobalTable(tb testing.TB, in *dynamodb.CreateTableInput, delay time.Duration, regions ...string) *GlobalTable {
	tb.Helper()
	if len(regions) == 0 {
		regions = defaultRegions
	}
	if len(regions) < 2 {
		tb.Fatalf("dynamoseqtest: a global table needs two Regions or more, not %d", len(regions))
	}
	for i, r := range regions {
		if slices.Contains(regions[:i], r) {
			tb.Fatalf("dynamoseqtest: Region %s named twice in %v", r, regions)
		}
	}
	g := &GlobalTable{regions: slices.Clone(regions), servers: regionServers(tb, regions)}
	def := *in
	def.TableName = aws.String(uniqueTableName(tb, aws.ToString(in.TableName)))
	g.name = *def.TableName
	if def.StreamSpecification == nil {
		def.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage}
	}
	replicas := make([]replicator.Region, len(g.regions))
	for i, s := range g.servers {
		s.createTable(tb, &def)
		replicas[i] = replicator.Region{Name: g.regions[i], Endpoint: s.endpoint}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := replicator.Start(ctx, g.name, delay, replicas...)
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

// regions are the DynamoDB Local servers of the Regions of global tables,
// by Region, which the test binary's global tables share: each has a table
// name of its own.
var regions struct {
	mu      sync.Mutex // protects servers, held while servers start
	servers map[string]*ddblocal.Server
}

// regionServers returns the server of each of names, starting at once the
// ones that are not running yet.
func regionServers(tb testing.TB, names []string) []*Server {
	tb.Helper()
	regions.mu.Lock()
	defer regions.mu.Unlock()
	if regions.servers == nil {
		regions.servers = map[string]*ddblocal.Server{}
	}
	var missing []string
	for _, n := range names {
		if regions.servers[n] == nil {
			missing = append(missing, n)
		}
	}
	started, err := startServers(len(missing))
	for i, s := range started {
		if s != nil {
			regions.servers[missing[i]] = s
		}
	}
	if err != nil {
		tb.Fatalf("dynamoseqtest: a global table needs a DynamoDB Local per Region: %v", err)
	}
	servers := make([]*Server, len(names))
	for i, n := range names {
		servers[i] = &Server{endpoint: regions.servers[n].Endpoint}
	}
	return servers
}

// startServers starts n in-memory DynamoDB Local servers at once. It
// returns the ones that started (nil for the others), and the errors of
// the others.
func startServers(n int) ([]*ddblocal.Server, error) {
	servers := make([]*ddblocal.Server, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// ddblocal bounds the start-up by the test binary's -timeout.
			servers[i], errs[i] = ddblocal.StartConfig(context.Background(), ddblocal.Config{Advice: howToInstall(false)})
		}()
	}
	wg.Wait()
	return servers, errors.Join(errs...)
}

// stopRegions stops the servers of the Regions (Main).
func stopRegions() {
	regions.mu.Lock()
	defer regions.mu.Unlock()
	for _, s := range regions.servers {
		s.Stop()
	}
	regions.servers = nil
}

// Name is the table's name, the same in every Region.
func (g *GlobalTable) Name() string { return g.name }

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
