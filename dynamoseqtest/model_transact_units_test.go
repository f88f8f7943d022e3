package dynamoseqtest_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// A TransactWriteItems costs 2 write units per KB of each item, however
// many of its items share a partition key value: 16 small items are 32
// units, in one item collection as in 16 partitions. (DynamoDB Local's own
// ConsumedCapacity says 2 for 16 small items of one item collection.)
func TestModelTransactionUnitsPerItem(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{NoLatency: true}))
	tab := srv.NewTable(t, &dynamodb.CreateTableInput{
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		BillingMode: types.BillingModePayPerRequest,
	})
	c := srv.Client(noRetries)
	for _, oneCollection := range []bool{true, false} {
		items := make([]types.TransactWriteItem, 16)
		for i := range items {
			pk := "one"
			if !oneCollection {
				pk = "many" + strconv.Itoa(i)
			}
			items[i] = types.TransactWriteItem{Put: &types.Put{TableName: aws.String(tab), Item: map[string]types.AttributeValue{
				"pk": &types.AttributeValueMemberS{Value: pk},
				"sk": &types.AttributeValueMemberN{Value: strconv.Itoa(i + 1)},
				"v":  &types.AttributeValueMemberS{Value: "forty bytes of text or thereabouts"},
			}}}
		}
		before := srv.ModelStats().Operation("TransactWriteItems")
		out, err := c.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
			TransactItems: items, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		require.NoError(t, err)
		after := srv.ModelStats().Operation("TransactWriteItems")
		require.Equal(t, 32.0, after.WriteUnits-before.WriteUnits, "one item collection: %v", oneCollection)
		require.Len(t, out.ConsumedCapacity, 1)
		require.Equal(t, 32.0, aws.ToFloat64(out.ConsumedCapacity[0].CapacityUnits), "ConsumedCapacity, one item collection: %v", oneCollection)
	}
}
