package nextid_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/examples/nextid"
)

func TestMain(m *testing.M) {
	dynamoseqtest.Main(m)
}

// keyTable is the definition of an on-demand table keyed by a String
// partition key named key.
func keyTable(name, key string) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(key), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(key), KeyType: types.KeyTypeHash}},
	}
}

// testClient returns a client of the test server.
func testClient(tb testing.TB) *dynamodb.Client {
	tb.Helper()
	return dynamoseqtest.Start(tb).Client()
}

// nextIDTable creates a NextId table as the teams have it and puts the
// given {NextKey: NextId} items in it.
func nextIDTable(tb testing.TB, client *dynamodb.Client, seed map[string]int64) string {
	tb.Helper()
	table := dynamoseqtest.Start(tb).NewTable(tb, keyTable("NextId", "NextKey"))
	for key, v := range seed {
		_, err := client.PutItem(context.Background(), &dynamodb.PutItemInput{
			TableName: aws.String(table),
			Item: map[string]types.AttributeValue{
				"NextKey": &types.AttributeValueMemberS{Value: key},
				"NextId":  &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)},
			},
		})
		require.NoError(tb, err)
	}
	return table
}

// recordTable creates a table of records keyed by Id (String).
func recordTable(tb testing.TB, client *dynamodb.Client) string {
	tb.Helper()
	return dynamoseqtest.Start(tb).NewTable(tb, keyTable("records", "Id"))
}

func newUsers(t *testing.T, client dynamoseq.Client, ids *nextid.IDs, table string) *nextid.UserRepository {
	t.Helper()
	users, err := nextid.NewUserRepository(client, table, ids)
	require.NoError(t, err)
	return users
}

func TestCreateOnExistingNextIdTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := testClient(t)
	ids, err := nextid.NewIDs(client, nextIDTable(t, client, map[string]int64{"user": 0, "order": 41}))
	require.NoError(t, err)
	users := newUsers(t, client, ids, recordTable(t, client))
	orders, err := nextid.NewOrderRepository(client, recordTable(t, client), ids)
	require.NoError(t, err)
	comments, err := nextid.NewCommentRepository(client, recordTable(t, client), ids)
	require.NoError(t, err)

	for _, want := range []string{"1", "2"} {
		u := &nextid.User{Name: "user " + want, Email: want + "@example.com"}
		require.NoError(t, users.Create(ctx, u))
		assert.Equal(t, want, u.Id, "Create set Id")
	}
	o := &nextid.Order{UserId: "2", TotalCents: 1999}
	require.NoError(t, orders.Create(ctx, o))
	assert.Equal(t, "42", o.Id, "first order after NextId 41")
	c := &nextid.Comment{UserId: "1", Text: "hello"}
	require.NoError(t, comments.Create(ctx, c))
	assert.Equal(t, "1", c.Id, "first comment of a data type with no NextId item")

	got, err := users.Get(ctx, "2")
	require.NoError(t, err)
	assert.Equal(t, &nextid.User{Id: "2", Name: "user 2", Email: "2@example.com"}, got)
	gotOrder, err := orders.Get(ctx, "42")
	require.NoError(t, err)
	assert.Equal(t, o, gotOrder)
	_, err = users.Get(ctx, "3")
	assert.ErrorIs(t, err, nextid.ErrNotFound)
}

func TestCreateNeverOverwrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := testClient(t)
	// The NextId item lags behind the users table, as after a restore or a
	// hand-made import: user 1 exists but NextId still says 0.
	ids, err := nextid.NewIDs(client, nextIDTable(t, client, map[string]int64{"user": 0}))
	require.NoError(t, err)
	users := newUsers(t, client, ids, recordTable(t, client))
	require.NoError(t, users.Create(ctx, &nextid.User{Id: "1", Name: "legacy"}))

	u := &nextid.User{Name: "new"}
	err = users.Create(ctx, u)
	require.ErrorIs(t, err, nextid.ErrExists)
	assert.Equal(t, "1", u.Id, "Id after a refused Create")
	assert.Contains(t, err.Error(), `user "1"`)
	got, err := users.Get(ctx, "1")
	require.NoError(t, err)
	assert.Equal(t, "legacy", got.Name, "the existing user was overwritten")

	u = &nextid.User{Name: "new"}
	require.NoError(t, users.Create(ctx, u))
	assert.Equal(t, "2", u.Id, "Id of the next Create")
}

// failPut is the real client with PutItem failing: the save that fails after
// the id was taken.
type failPut struct {
	dynamoseq.Client
}

var errInjected = errors.New("injected PutItem failure")

func (failPut) PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return nil, errInjected
}

func TestCreateFailedSaveLeavesGap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := testClient(t)
	idTable, userTable := nextIDTable(t, client, nil), recordTable(t, client)
	ids, err := nextid.NewIDs(client, idTable)
	require.NoError(t, err)
	users := newUsers(t, client, ids, userTable)
	broken := newUsers(t, failPut{client}, ids, userTable)

	u := &nextid.User{Name: "a"}
	require.NoError(t, users.Create(ctx, u))
	lost := &nextid.User{Name: "b"}
	require.ErrorIs(t, broken.Create(ctx, lost), errInjected)
	assert.Equal(t, "2", lost.Id, "the id taken by the failed save")
	c := &nextid.User{Name: "c"}
	require.NoError(t, users.Create(ctx, c))
	assert.Equal(t, "3", c.Id, "2 is a gap: taken, never stored")

	// Retrying the same record reuses its id instead of taking another.
	require.NoError(t, users.Create(ctx, lost))
	assert.Equal(t, "2", lost.Id)
}

func TestCreateErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := testClient(t)
	ids, err := nextid.NewIDs(client, "NoSuchNextIdTable")
	require.NoError(t, err)
	users := newUsers(t, client, ids, recordTable(t, client))
	u := &nextid.User{Name: "a"}
	err = users.Create(ctx, u)
	assert.ErrorIs(t, err, dynamoseq.ErrTableNotFound)
	assert.Empty(t, u.Id, "Id after the NextId table was not found")
	assert.Error(t, users.Create(ctx, nil), "Create(nil)")
	_, err = users.Get(ctx, "")
	assert.Error(t, err, "Get(\"\")")

	_, err = nextid.NewIDs(nil, "NextId")
	assert.ErrorIs(t, err, dynamoseq.ErrInvalidArgument)
	_, err = nextid.NewUserRepository(client, "", ids)
	assert.Error(t, err, "NewUserRepository with no table")
}

// TestCreateConcurrentWithOldLoop creates users from many goroutines, half of
// them taking ids with the teams' old read-then-conditional-put loop, as
// during a rollout: every id is handed out once.
func TestCreateConcurrentWithOldLoop(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := testClient(t)
	idTable := nextIDTable(t, client, map[string]int64{"user": 0})
	ids, err := nextid.NewIDs(client, idTable)
	require.NoError(t, err)
	users := newUsers(t, client, ids, recordTable(t, client))

	const goroutines, each = 8, 25
	got := make([][]int64, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				u := &nextid.User{Name: "g" + strconv.Itoa(g)}
				if g%2 == 1 {
					id, _, err := oldNextID(ctx, client, idTable, "user")
					if err != nil {
						t.Errorf("old loop: %v", err)
						return
					}
					u.Id = strconv.FormatInt(id, 10)
				}
				if err := users.Create(ctx, u); err != nil {
					t.Errorf("Create: %v", err)
					return
				}
				id, _ := strconv.ParseInt(u.Id, 10, 64)
				got[g] = append(got[g], id)
			}
		}()
	}
	wg.Wait()
	all := slices.Concat(got...)
	slices.Sort(all)
	require.Len(t, all, goroutines*each)
	for i, v := range all {
		if v != int64(i+1) {
			t.Fatalf("sorted ids[%d] = %d, want %d (a duplicate or a gap)", i, v, i+1)
		}
	}
}
