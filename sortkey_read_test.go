package dynamoseq_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// sortKeyTypes are the two sort key types a SortKey works with.
var sortKeyTypes = []struct {
	name string
	typ  types.ScalarAttributeType
	opt  func(*dynamoseq.SortKeyOptions)
}{
	{"Number", types.ScalarAttributeTypeN, func(*dynamoseq.SortKeyOptions) {}},
	{"String", types.ScalarAttributeTypeS, func(o *dynamoseq.SortKeyOptions) { o.SortKeyDigits = 4 }},
}

// appendTickets appends tickets "t1".."tn" to name and checks their numbers.
func appendTickets(t *testing.T, s *dynamoseq.SortKey, name string, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		got, err := s.Append(context.Background(), name, ticket{Title: fmt.Sprintf("t%d", i)})
		require.NoError(t, err)
		require.Equal(t, int64(i), got, "Append()")
	}
}

func TestSortKeyGet(t *testing.T) {
	t.Parallel()
	for _, kt := range sortKeyTypes {
		t.Run(kt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			client := dbtest.Client(t)
			s, err := dynamoseq.NewSortKey(client, dbtest.SortKeyTable(t, client, kt.typ), kt.opt)
			require.NoError(t, err)
			appendTickets(t, s, "projectA", 2)

			var got ticket
			require.NoError(t, s.Get(ctx, "projectA", 2, &got))
			assert.Equal(t, ticket{Title: "t2"}, got)
			var attrs map[string]types.AttributeValue
			require.NoError(t, s.Get(ctx, "projectA", 1, &attrs))
			assert.Equal(t, &types.AttributeValueMemberS{Value: "t1"}, attrs["title"])
			assert.NotContains(t, attrs, "pk", "the keys are left out")
			assert.NotContains(t, attrs, "sk", "the keys are left out")
			require.NoError(t, s.Get(ctx, "projectA", 1, nil))

			for _, tt := range []struct {
				name string
				seq  string
				n    int64
				want error
			}{
				{"not stored", "projectA", 3, dynamoseq.ErrNotFound},
				{"other sequence", "projectB", 1, dynamoseq.ErrNotFound},
				{"zero", "projectA", 0, dynamoseq.ErrInvalidArgument},
				{"negative", "projectA", -1, dynamoseq.ErrInvalidArgument},
				{"empty name", "", 1, dynamoseq.ErrInvalidArgument},
			} {
				err := s.Get(ctx, tt.seq, tt.n, &got)
				assert.ErrorIs(t, err, tt.want, "Get(%q, %d)", tt.seq, tt.n)
			}
			if kt.typ == types.ScalarAttributeTypeS {
				assert.ErrorIs(t, s.Get(ctx, "projectA", 10_000, nil), dynamoseq.ErrNotFound, "a number wider than the sort key")
			}
		})
	}
}

// TestSortKeyItems pages through a sequence in both orders.
func TestSortKeyItems(t *testing.T) {
	t.Parallel()
	for _, kt := range sortKeyTypes {
		t.Run(kt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			client := dbtest.Client(t)
			table := dbtest.SortKeyTable(t, client, kt.typ)
			s, err := dynamoseq.NewSortKey(client, table, kt.opt, func(o *dynamoseq.SortKeyOptions) { o.KeyPrefix = "P#" })
			require.NoError(t, err)
			appendTickets(t, s, "projectA", 7)
			if kt.typ == types.ScalarAttributeTypeS {
				// Another item of the partition, in a single-table design.
				_, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
					"pk": &types.AttributeValueMemberS{Value: "P#projectA"}, "sk": &types.AttributeValueMemberS{Value: "META"},
				}})
				require.NoError(t, err)
			}

			tests := []struct {
				order dynamoseq.Order
				limit int
				pages [][]int64
			}{
				{dynamoseq.NewestFirst, 3, [][]int64{{7, 6, 5}, {4, 3, 2}, {1}}},
				{dynamoseq.OldestFirst, 3, [][]int64{{1, 2, 3}, {4, 5, 6}, {7}}},
				{dynamoseq.NewestFirst, 7, [][]int64{{7, 6, 5, 4, 3, 2, 1}}},
				{dynamoseq.OldestFirst, 7, [][]int64{{1, 2, 3, 4, 5, 6, 7}, {}}}, // a full last page: one empty page after it
			}
			for _, tt := range tests {
				var pages [][]int64
				for cursor := int64(0); ; {
					page, next, err := s.Items(ctx, "projectA", cursor, tt.limit, tt.order)
					require.NoError(t, err)
					numbers := []int64{}
					for _, v := range page {
						numbers = append(numbers, v.Number)
						var got ticket
						require.NoError(t, v.Decode(&got))
						assert.Equal(t, fmt.Sprintf("t%d", v.Number), got.Title)
						assert.NotContains(t, v.Item, "sk", "the keys are left out")
					}
					pages = append(pages, numbers)
					if next == 0 {
						break
					}
					cursor = next
				}
				assert.Equal(t, tt.pages, pages, "Items pages, %v, limit %d", tt.order, tt.limit)
			}

			page, next, err := s.Items(ctx, "empty", 0, 10, dynamoseq.NewestFirst)
			require.NoError(t, err)
			assert.Empty(t, page)
			assert.Zero(t, next)
		})
	}
}

func TestSortKeyItemsBadInput(t *testing.T) {
	t.Parallel()
	s, _, _ := newSortKey(t)
	ctx := context.Background()
	tests := []struct {
		name   string
		cursor int64
		limit  int
		order  dynamoseq.Order
	}{
		{"negative cursor", -1, 10, dynamoseq.NewestFirst},
		{"zero limit", 0, 0, dynamoseq.NewestFirst},
		{"limit above 1000", 0, 1001, dynamoseq.OldestFirst},
		{"unknown order", 0, 10, dynamoseq.Order(2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := s.Items(ctx, "projectA", tt.cursor, tt.limit, tt.order)
			require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument)
			assert.Contains(t, err.Error(), `dynamoseq: SortKey.Items: table "`)
		})
	}
}

// TestSortKeyReadTableMismatch: reads from a table without the sort key
// the options describe fail with ErrTableMismatch.
func TestSortKeyReadTableMismatch(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	s, err := dynamoseq.NewSortKey(client, dbtest.CounterTable(t, client))
	require.NoError(t, err)
	ctx := context.Background()
	assert.ErrorIs(t, s.Get(ctx, "projectA", 1, nil), dynamoseq.ErrTableMismatch, "Get")
	_, _, err = s.Items(ctx, "projectA", 0, 10, dynamoseq.NewestFirst)
	assert.ErrorIs(t, err, dynamoseq.ErrTableMismatch, "Items")
}
