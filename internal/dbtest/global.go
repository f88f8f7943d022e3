package dbtest

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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

// MRECTable creates a table keyed by a String partition key "pk" in both
// servers (Endpoint and SecondEndpoint), with a stream, and replicates it
// with the given delay until the test ends; then it checks that the
// replicator met no error and deletes the tables.
func MRECTable(tb testing.TB, delay time.Duration) *MREC {
	tb.Helper()
	g := &MREC{Table: TableName(tb), Endpoints: TwoEndpoints(tb)}
	regions := make([]replicator.Region, 2)
	for i, e := range g.Endpoints {
		g.Clients[i] = ddblocal.NewClient(e)
		CreateTableInput(tb, g.Clients[i], &dynamodb.CreateTableInput{
			TableName:            aws.String(g.Table),
			BillingMode:          types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage},
		})
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

// TwoEndpoints returns Endpoint and SecondEndpoint, starting the servers
// at once when neither runs yet.
func TwoEndpoints(tb testing.TB) [2]string {
	tb.Helper()
	go second.once.Do(startSecond) // ends when the server is up; SecondEndpoint waits for it
	return [2]string{Endpoint(tb), SecondEndpoint(tb)}
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
