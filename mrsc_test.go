package dynamoseq_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// mrscClient is the client of one Region of a simulated multi-Region
// strongly consistent (MRSC) global table. All Regions share one DynamoDB
// Local, which makes every write visible to every Region at once, as MRSC
// does. It refuses TransactWriteItems, which MRSC tables do not support, and
// refuses every conflictEvery-th single-item write attempt with
// ReplicatedWriteConflictException, as MRSC does when another Region writes
// the same item at the same moment (nothing is written). The refusal comes
// from inside the SDK's middleware stack, right where the request would go
// out, so the caller sees it as it sees DynamoDB's answer (the SDK does not
// retry it). conflictEvery 0 refuses none.
type mrscClient struct {
	dynamoseq.Client
	conflictEvery int64
	writes        atomic.Int64
	conflicts     atomic.Int64
}

// conflict reports whether this write is refused, and counts it.
func (c *mrscClient) conflict() error {
	if n := c.writes.Add(1); c.conflictEvery > 0 && n%c.conflictEvery == 0 {
		c.conflicts.Add(1)
		return &types.ReplicatedWriteConflictException{Message: aws.String("simulated: the item is being modified by a request in another Region")}
	}
	return nil
}

// refuse adds the conflicts to one call's middleware stack, last before
// the HTTP transport.
func (c *mrscClient) refuse(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Deserialize.Add(middleware.DeserializeMiddlewareFunc("mrsc.conflict",
			func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
				if err := c.conflict(); err != nil {
					return middleware.DeserializeOutput{}, middleware.Metadata{}, err
				}
				return next.HandleDeserialize(ctx, in)
			}), middleware.After)
	})
}

func (c *mrscClient) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return c.Client.PutItem(ctx, in, append(optFns, c.refuse)...)
}

func (c *mrscClient) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return c.Client.UpdateItem(ctx, in, append(optFns, c.refuse)...)
}

// TransactWriteItems fails as on an MRSC table. The exact error DynamoDB
// returns there is not documented in what we could find; a
// ValidationException is the likely shape.
func (c *mrscClient) TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return nil, &smithy.GenericAPIError{Code: "ValidationException", Message: "simulated: transactions are not supported on multi-Region strongly consistent tables"}
}

// mrscRegions returns one mrscClient per Region over the test server.
func mrscRegions(t *testing.T, conflictEvery int64) ([]*mrscClient, string) {
	t.Helper()
	client := dbtest.Client(t)
	return mrscOver(client, 3, conflictEvery), dbtest.CounterTable(t, client) // MRSC tables span three Regions
}

// mrscOver returns n mrscClients over client.
func mrscOver(client dynamoseq.Client, n int, conflictEvery int64) []*mrscClient {
	regions := make([]*mrscClient, n)
	for i := range regions {
		regions[i] = &mrscClient{Client: client, conflictEvery: conflictEvery}
	}
	return regions
}

// requireConflicts fails the test when no write met a simulated conflict.
func requireConflicts(t *testing.T, regions []*mrscClient) {
	t.Helper()
	var conflicts int64
	for _, r := range regions {
		conflicts += r.conflicts.Load()
	}
	require.Positive(t, conflicts, "no write met a conflict: the test tested nothing")
	t.Logf("%d writes refused by a replicated write conflict", conflicts)
}

func mrscOptions(o *dynamoseq.CounterOptions) {
	o.GlobalTable = dynamoseq.GlobalTableMRSC
	o.BaseDelay, o.MaxDelay = time.Millisecond, 5*time.Millisecond
}

// mrscSortKey and mrscLatest are the options of a SortKey or a Latest on the
// simulated MRSC table: the default backoff, under which writers of three
// Regions appending to one name flat out take turns (see docs/sortkey.md,
// "Many processes, one name"), and twice the default MaxAttempts: on top of the real
// races of 12 writers, the simulation refuses one write in five with a
// replicated write conflict, and a Latest writer on a loaded machine once
// lost 25 in a row (ErrContention: nothing stored, correct, but not what
// these tests are about, which is that every number is stored once).
func mrscSortKey(o *dynamoseq.SortKeyOptions) {
	o.GlobalTable = dynamoseq.GlobalTableMRSC
	o.MaxAttempts = 50
}

func mrscLatest(o *dynamoseq.LatestOptions) {
	o.GlobalTable = dynamoseq.GlobalTableMRSC
	o.MaxAttempts = 50
}

// TestMRSCCounter: a Counter (and a Block over it) on an MRSC table, from 3
// Regions x 4 goroutines, with one write in five refused by a replicated
// write conflict: the Counter resends those, and hands out 1..N exactly.
func TestMRSCCounter(t *testing.T) {
	t.Parallel()
	regions, table := mrscRegions(t, 5)
	counters := make([]*dynamoseq.Counter, len(regions))
	blocks := make([]*dynamoseq.Block, len(regions))
	for i, r := range regions {
		c, err := dynamoseq.NewCounter(r, table, mrscOptions)
		require.NoError(t, err)
		b, err := dynamoseq.NewBlock(c, 7)
		require.NoError(t, err)
		t.Cleanup(func() { _ = b.Close() })
		counters[i], blocks[i] = c, b
	}
	const goroutines, each = 4, 25
	got := flatten(mintInRegions(t, len(regions), goroutines, each, func(r, _ int) (int64, error) {
		return counters[r].Next(context.Background(), "orders")
	}))
	requireExactly(t, got, 1, int64(len(regions)*goroutines*each))
	got = flatten(mintInRegions(t, len(regions), goroutines, each, func(r, _ int) (int64, error) {
		return blocks[r].Next(context.Background(), "events")
	}))
	require.Len(t, got, len(regions)*goroutines*each)
	require.Empty(t, repeated(got), "Block numbers handed out twice")
	requireConflicts(t, regions)
}

// TestMRSCCounterConflictsExhausted: a write refused MaxAttempts times in a
// row gives ErrContention, naming the table and the sequence.
func TestMRSCCounterConflictsExhausted(t *testing.T) {
	t.Parallel()
	regions, table := mrscRegions(t, 1) // every write conflicts
	c, err := dynamoseq.NewCounter(regions[0], table, mrscOptions, func(o *dynamoseq.CounterOptions) { o.MaxAttempts = 3 })
	require.NoError(t, err)
	_, err = c.Next(context.Background(), "orders")
	require.ErrorIs(t, err, dynamoseq.ErrContention)
	var conflict *types.ReplicatedWriteConflictException
	require.ErrorAs(t, err, &conflict)
	assert.Contains(t, err.Error(), `sequence "orders"`)
	assert.Equal(t, int64(3), regions[0].conflicts.Load(), "attempts")
}

// numbered is an item and the number a caller got for it.
type numbered[T any] struct {
	n    int64
	item T
}

// TestMRSCSortKey: a SortKey on an MRSC table, from 3 Regions x 4
// goroutines, with one write attempt in five refused by a replicated write
// conflict and transactions refused: the numbers are 1..N, each holding the
// item of the caller that got it, increasing for each goroutine.
func TestMRSCSortKey(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	table := dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN)
	regions := mrscOver(client, 3, 5)
	sortKeys := make([]*dynamoseq.SortKey, len(regions))
	for i, r := range regions {
		s, err := dynamoseq.NewSortKey(r, table, mrscSortKey)
		require.NoError(t, err)
		sortKeys[i] = s
	}
	const goroutines, each = 4, 20
	seq := make([][goroutines]int, len(regions)) // each goroutine touches its own
	got := mintInRegions(t, len(regions), goroutines, each, func(r, g int) (numbered[ticket], error) {
		tk := ticket{Writer: r*10 + g, Seq: seq[r][g]}
		seq[r][g]++
		n, err := sortKeys[r].Append(context.Background(), "orders", tk)
		return numbered[ticket]{n, tk}, err
	})
	stored := map[int64]ticket{}
	var all []int64
	for r, perGoroutine := range got {
		for g, calls := range perGoroutine {
			for i, c := range calls {
				require.True(t, i == 0 || c.n > calls[i-1].n, "Region %d, goroutine %d: %d after %d", r, g, c.n, calls[max(i-1, 0)].n)
				stored[c.n] = c.item
				all = append(all, c.n)
			}
		}
	}
	requireExactly(t, all, 1, int64(len(regions)*goroutines*each))
	requireStored(t, client, table, "orders", stored)
	requireConflicts(t, regions)
	for r, s := range sortKeys {
		st := s.Figures()
		assert.Zero(t, st.Transactions, "Region %d: transactions", r)
		assert.Equal(t, int64(goroutines*each), st.Numbers, "Region %d: numbers", r)
		assert.Positive(t, st.LostRaces, "Region %d: lost races (the conflicts count)", r)
	}
}

// TestMRSCLatest: a Latest on an MRSC table, from 3 Regions x 4 goroutines,
// with one write attempt in five refused by a replicated write conflict
// (some of them the move of 'latest', which the next Append repairs): the
// versions are 1..N, each holding the page of the Append that returned it,
// and GetLatest and the 'latest' item hold the last one.
func TestMRSCLatest(t *testing.T) {
	t.Parallel()
	for _, layout := range []latestLayout{latestLayouts[0], latestLayouts[2]} {
		t.Run(layout.name, func(t *testing.T) {
			t.Parallel()
			client := dbtest.Client(t)
			table := layout.table(t, client)
			regions := mrscOver(client, 3, 5)
			latests := make([]*dynamoseq.Latest, len(regions))
			for i, r := range regions {
				l, err := dynamoseq.NewLatest(r, table, layout.opts, mrscLatest)
				require.NoError(t, err)
				latests[i] = l
			}
			got := appendAll(t, latests, 4*len(regions), 15, "doc1") // goroutine g writes in Region g%3
			require.Len(t, got, 4*len(regions)*15)
			requireHistory(t, latests[1], "doc1", got)
			requireLatestItem(t, layout, client, table, "doc1", int64(len(got))) // repaired by GetLatest if it was behind
			requireConflicts(t, regions)
		})
	}
}

// requireLatestItem checks the version the 'latest' item of name holds,
// read from the table itself.
func requireLatestItem(t *testing.T, layout latestLayout, client *dynamodb.Client, table, name string, want int64) {
	t.Helper()
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: name}, "sk": &types.AttributeValueMemberN{Value: "0"}}
	if layout.name == "partitionkey" {
		key = map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: name + "#latest"}}
	}
	out, err := client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	v, ok := out.Item["version"].(*types.AttributeValueMemberN)
	require.True(t, ok, "the 'latest' item of %s holds no version: %v", name, out.Item)
	assert.Equal(t, strconv.FormatInt(want, 10), v.Value, "version in the 'latest' item of %s", name)
}

func init() {
	// One Region of an MRSC table in its own process: a SortKey or a
	// Latest appending from GOROUTINES goroutines, EACH times each.
	helpers["mrsc-append"] = func(t *testing.T) {
		client := mrscOver(dbtest.Client(t), 1, 5)[0]
		goroutines, _ := strconv.Atoi(os.Getenv("GOROUTINES"))
		each, _ := strconv.Atoi(os.Getenv("EACH"))
		var appendFn func(ctx context.Context, name string, item any) (int64, error)
		if os.Getenv("STRATEGY") == "SortKey" {
			s, err := dynamoseq.NewSortKey(client, os.Getenv("TABLE"), mrscSortKey)
			require.NoError(t, err)
			appendFn = s.Append
		} else {
			l, err := dynamoseq.NewLatest(client, os.Getenv("TABLE"), mrscLatest)
			require.NoError(t, err)
			appendFn = l.Append
		}
		printLines(fanOut(t, goroutines, each, func(g, i int) (string, error) {
			id := fmt.Sprintf("p%d-g%d-%d", os.Getpid(), g, i)
			n, err := appendFn(context.Background(), "shared", page{ID: id})
			return fmt.Sprintf("appended %d %s", n, id), err
		}))
	}
}

// TestMRSCProcesses: SortKey and Latest on an MRSC table from 3 OS
// processes (one per Region) x 4 goroutines, with conflicts: gap-free, and
// each item stored once, under the number its caller got.
func TestMRSCProcesses(t *testing.T) {
	t.Parallel()
	for _, strategy := range []string{"SortKey", "Latest"} {
		t.Run(strategy, func(t *testing.T) {
			t.Parallel()
			client := dbtest.Client(t)
			table := dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN)
			const processes, goroutines, each = 3, 4, 15
			outs := dbtest.RunProcesses(t, processes, "mrsc-append", "STRATEGY="+strategy, "TABLE="+table,
				"GOROUTINES="+strconv.Itoa(goroutines), "EACH="+strconv.Itoa(each))
			got := map[string]int64{}
			var all []int64
			for _, line := range outputLines(outs, "appended ") {
				num, id, _ := strings.Cut(line, " ")
				n, err := strconv.ParseInt(num, 10, 64)
				require.NoError(t, err)
				got[id] = n
				all = append(all, n)
			}
			requireExactly(t, all, 1, processes*goroutines*each)
			items := collection(t, client, table, "shared")
			for id, n := range got {
				stored, ok := items[n]["id"].(*types.AttributeValueMemberS)
				require.True(t, ok && stored.Value == id, "number %d holds %v, want the page %s of the caller that got it", n, items[n], id)
			}
			if strategy == "Latest" {
				l, err := dynamoseq.NewLatest(client, table, func(o *dynamoseq.LatestOptions) { o.NoTransactions = true })
				require.NoError(t, err)
				requireHistory(t, l, "shared", got)
			}
		})
	}
}
