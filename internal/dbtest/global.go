package dbtest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/ddblocal"
	"github.com/dynamoseq/dynamoseq/internal/replicator"
)

// MRECRegions are the names of the two Regions of MRECTable, in the order
// of its fields.
var MRECRegions = []string{"us-east-1", "eu-west-1"}

// MREC is a simulated multi-Region eventually consistent global table: the
// same table in two DynamoDB Local servers, one per Region, kept in step by
// a replicator.
type MREC struct {
	Table      string
	Endpoints  [2]string
	Clients    [2]*dynamodb.Client
	Replicator *replicator.Replicator
}

// RegionServers starts n in-memory DynamoDB Local servers of the test's own,
// all at once, and stops them when the test ends: the Regions of a
// simulated global table. It returns their endpoints. A test with several
// subtests starts them once and shares them, so that the machine starts
// few JVMs.
func RegionServers(tb testing.TB, n int) []string {
	tb.Helper()
	servers := make([]*ddblocal.Server, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// ddblocal bounds the start-up by the test binary\'s -timeout.
			ctx := context.Background()
			servers[i], errs[i] = ddblocal.Start(ctx)
		}()
	}
	wg.Wait()
	endpoints := make([]string, n)
	for i, s := range servers {
		if s != nil {
			tb.Cleanup(s.Stop)
			endpoints[i] = s.Endpoint
		}
	}
	for _, err := range errs {
		if err != nil {
			tb.Fatalf("this test needs DynamoDB Local, one per Region: %v; %s", err, ddblocal.HowToInstall)
		}
	}
	return endpoints
}

// MRECTable creates a table keyed by a String partition key "pk", with a
// stream, in the two servers at endpoints (from RegionServers), and
// replicates it with the given delay until the test ends; then it checks
// that the replicator met no error and deletes the tables.
func MRECTable(tb testing.TB, endpoints []string, delay time.Duration) *MREC {
	tb.Helper()
	g := &MREC{Table: TableName(tb), Endpoints: [2]string(endpoints)}
	regions := make([]replicator.Region, 2)
	for i, e := range g.Endpoints {
		g.Clients[i] = ddblocal.NewClient(e)
		in := dynamoseq.CounterTable(g.Table)
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage}
		CreateTableInput(tb, g.Clients[i], in)
		regions[i] = replicator.Region{Name: MRECRegions[i], Endpoint: e}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := replicator.Start(ctx, g.Table, delay, regions...)
	if err != nil {
		tb.Fatalf("starting the replicator: %v", err)
	}
	g.Replicator = r
	tb.Cleanup(func() {
		if err := r.Close(); err != nil {
			tb.Errorf("replicator: %v", err)
		}
	})
	return g
}

// Settle waits until the replicator has applied every change made so far.
func (g *MREC) Settle(tb testing.TB) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := g.Replicator.Settle(ctx); err != nil {
		tb.Fatalf("waiting for replication to settle: %v", err)
	}
}
