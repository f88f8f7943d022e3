package replicator_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

func TestMain(m *testing.M) {
	dbtest.Main(m)
}

func key(pk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}
}

func get(t *testing.T, c *dynamodb.Client, table, pk string) map[string]types.AttributeValue {
	t.Helper()
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: key(pk), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	return out.Item
}

func add(t *testing.T, c *dynamodb.Client, table, pk string, n int) int {
	t.Helper()
	out, err := c.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName: aws.String(table), Key: key(pk),
		UpdateExpression:          aws.String("ADD #v :n"),
		ExpressionAttributeNames:  map[string]string{"#v": "value"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: strconv.Itoa(n)}},
		ReturnValues:              types.ReturnValueUpdatedNew,
	})
	require.NoError(t, err)
	v, err := strconv.Atoi(out.Attributes["value"].(*types.AttributeValueMemberN).Value)
	require.NoError(t, err)
	return v
}

// TestReplicator runs the tests, which share two DynamoDB Local servers.
func TestReplicator(t *testing.T) {
	t.Run("BothWays", testReplicatesBothWays)
	t.Run("LastWriterWins", testLastWriterWins)
}

// testReplicatesBothWays: writes in either Region reach the other, deletes
// too, and the replicator's own writes are not sent back.
func testReplicatesBothWays(t *testing.T) {
	g := dbtest.MRECTable(t, 50*time.Millisecond)
	a, b := g.Clients[0], g.Clients[1]
	add(t, a, g.Table, "x", 1)
	add(t, b, g.Table, "y", 5)
	g.Settle(t)
	require.Equal(t, get(t, a, g.Table, "y"), get(t, b, g.Table, "y"))
	require.Equal(t, "1", get(t, b, g.Table, "x")["value"].(*types.AttributeValueMemberN).Value)
	add(t, b, g.Table, "x", 1) // continues from the replicated 1
	_, err := a.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(g.Table), Key: key("y")})
	require.NoError(t, err)
	g.Settle(t)
	require.Equal(t, "2", get(t, a, g.Table, "x")["value"].(*types.AttributeValueMemberN).Value)
	require.Nil(t, get(t, b, g.Table, "y"))
	// The clients made 4 writes.
	require.Equal(t, int64(4), g.Stats().Replicated, "each replicated once, never echoed back")
}

// testLastWriterWins: concurrent writes of one item in both Regions end
// with the same item everywhere, and some writes are lost.
func testLastWriterWins(t *testing.T) {
	g := dbtest.MRECTable(t, 20*time.Millisecond)
	var wg sync.WaitGroup
	for i, c := range g.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				add(t, c, g.Table, "n", i+1)
			}
		}()
	}
	wg.Wait()
	g.Settle(t)
	ia, ib := get(t, g.Clients[0], g.Table, "n"), get(t, g.Clients[1], g.Table, "n")
	require.Equal(t, ia, ib, "the Regions did not converge")
	v, _ := strconv.Atoi(ia["value"].(*types.AttributeValueMemberN).Value)
	require.Less(t, v, 150, "with no write lost the counter would be 50*1+50*2")
	t.Logf("converged at %d of 150; %+v", v, g.Stats())
}
