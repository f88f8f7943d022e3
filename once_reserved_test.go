package dynamoseq_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
)

// TestOnceUserKeyAttribute: an item of the caller's that holds the key
// items' attribute dynamoseq_key (stored before the library reserved the
// prefix, here by another writer) is a sequence's item in the way of a
// lost race, not a key item: a plain Append meeting it takes the next
// number. New items may not set attributes with the prefix dynamoseq_.
func TestOnceUserKeyAttribute(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, client, table := newSortKey(t)
	n, err := s.Append(ctx, "inv", body("a"))
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	_, err = client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "inv"}, "sk": &types.AttributeValueMemberN{Value: "2"},
		"dynamoseq_key": &types.AttributeValueMemberS{Value: "the caller's own"},
	}})
	require.NoError(t, err)
	n, err = s.Append(ctx, "inv", body("c"))
	require.NoError(t, err, "an Append meeting a user's item that holds dynamoseq_key")
	assert.Equal(t, int64(3), n, "the number after the user's item")

	n, replayed, err := s.AppendOnce(ctx, "inv", "k", body("d"))
	require.NoError(t, err)
	assert.Equal(t, int64(4), n, "a keyed Append after it")
	assert.False(t, replayed)

	for _, item := range []any{map[string]types.AttributeValue{"dynamoseq_n": &types.AttributeValueMemberN{Value: "1"}},
		map[string]string{"dynamoseq_key": "x"}} {
		_, err = s.Append(ctx, "inv", item)
		assert.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "an item setting an attribute with the reserved prefix: %v", item)
	}
}
