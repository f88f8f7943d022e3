package dynamoseqtest_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// owner reads the "owner" attribute of item pk in one Region ("" when the
// item is missing).
func owner(t *testing.T, c *dynamodb.Client, tableName, pk string) string {
	t.Helper()
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName:      aws.String(tableName),
		Key:            map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}},
		ConsistentRead: aws.Bool(true),
	})
	require.NoError(t, err)
	if v, ok := out.Item["owner"].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func putOwner(c *dynamodb.Client, tableName, pk, who string) error {
	_, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String(tableName),
		Item: map[string]types.AttributeValue{
			"pk":    &types.AttributeValueMemberS{Value: pk},
			"owner": &types.AttributeValueMemberS{Value: who},
		},
	})
	return err
}

// TestGlobalTable writes in each Region of a simulated global table: a
// write reaches the other Region only after the delay, and two Regions
// writing one item end with the same item, the other write lost.
func TestGlobalTable(t *testing.T) {
	t.Parallel()
	const delay = time.Second
	g := dynamoseqtest.NewGlobalTable(t, table(), delay)
	require.Equal(t, []string{"us-east-1", "eu-west-1"}, g.Regions())
	east, west := g.Server("us-east-1").Client(), g.Server("eu-west-1").Client()
	assert.NotEqual(t, g.Server("us-east-1").Endpoint(), g.Server("eu-west-1").Endpoint())

	require.NoError(t, putOwner(east, g.Name(), "a", "east"))
	assert.Equal(t, "", owner(t, west, g.Name(), "a"), "a write in us-east-1 reached eu-west-1 before the delay")
	g.Settle(t)
	assert.Equal(t, "east", owner(t, west, g.Name(), "a"), "eu-west-1 after Settle")

	// Both Regions write item b within the delay: each sees its own write
	// until replication, then both hold the same one.
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for who, c := range map[string]*dynamodb.Client{"east": east, "west": west} {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- putOwner(c, g.Name(), "b", who) }()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	g.Settle(t)
	winner := owner(t, east, g.Name(), "b")
	assert.Contains(t, []string{"east", "west"}, winner)
	assert.Equal(t, winner, owner(t, west, g.Name(), "b"), "the Regions disagree after Settle")

	s := g.Stats()
	t.Logf("replication: %+v", s)
	assert.Equal(t, int64(3), s.Local, "writes made by the Regions' clients")
	assert.Equal(t, int64(1), s.Superseded, "the write that lost item b")
	assert.Equal(t, int64(2), s.Replicated, "a, and b's winner")

	assert.Panics(t, func() { g.Server("ap-south-1") }, "a Region the table does not have")
}
