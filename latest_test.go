package dynamoseq_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// page is what the tests append: ID names the append that wrote it.
type page struct {
	ID    string `dynamodbav:"id"`
	Title string `dynamodbav:"title,omitempty"`
}

// latestLayout is one table layout the tests run against.
type latestLayout struct {
	name  string
	table func(t *testing.T, client *dynamodb.Client) string
	opts  func(o *dynamoseq.LatestOptions)
}

var latestLayouts = []latestLayout{
	{"sortkey=N", func(t *testing.T, c *dynamodb.Client) string {
		return dbtest.SortKeyTable(t, c, types.ScalarAttributeTypeN)
	}, func(*dynamoseq.LatestOptions) {}},
	{"sortkey=S", func(t *testing.T, c *dynamodb.Client) string {
		return dbtest.SortKeyTable(t, c, types.ScalarAttributeTypeS)
	}, func(o *dynamoseq.LatestOptions) { o.Layout = dynamoseq.LayoutSortKey{SortKeyDigits: 8} }},
	{"partitionkey", func(t *testing.T, c *dynamodb.Client) string {
		return dbtest.CounterTable(t, c)
	}, func(o *dynamoseq.LatestOptions) { o.Layout = dynamoseq.LayoutPartitionKey{} }},
}

// newLatest returns a Latest over a new table of the layout, the raw
// client and the table name. wrap, when not nil, wraps the client the
// Latest uses.
func newLatest(t *testing.T, layout latestLayout, wrap func(dynamoseq.Client) dynamoseq.Client, optFns ...func(*dynamoseq.LatestOptions)) (*dynamoseq.Latest, *dynamodb.Client, string) {
	t.Helper()
	client := dbtest.Client(t)
	table := layout.table(t, client)
	var c dynamoseq.Client = client
	if wrap != nil {
		c = wrap(client)
	}
	l, err := dynamoseq.NewLatest(c, table, append([]func(*dynamoseq.LatestOptions){layout.opts}, optFns...)...)
	require.NoError(t, err)
	return l, client, table
}

// appendAll appends goroutines*each pages to name from that many goroutines
// and returns which version each page ID got. Each goroutine must see its
// versions increase.
func appendAll(t *testing.T, latests []*dynamoseq.Latest, goroutines, each int, name string) map[string]int64 {
	t.Helper()
	id := func(g, i int) string { return fmt.Sprintf("g%d-%d", g, i) }
	versions := fanOut(t, goroutines, each, func(g, i int) (int64, error) {
		return latests[g%len(latests)].Append(context.Background(), name, page{ID: id(g, i)})
	})
	got := map[string]int64{}
	for g, vs := range versions {
		last := int64(0)
		for i, v := range vs {
			if v <= last {
				t.Errorf("goroutine %d: Append = %d after %d, want increasing", g, v, last)
			}
			last = v
			got[id(g, i)] = v
		}
	}
	return got
}

// requireHistory checks with dynamoseqtest.CheckSequence that the stored
// versions of name are 1..len(want) with no gap, that each holds the page
// the Append that returned its number wrote (so no content is stored twice
// and none is missing), and that GetLatest returns the last one, version
// len(want). It also lists with Versions, in pages of 100, newest first.
func requireHistory(t *testing.T, l *dynamoseq.Latest, name string, want map[string]int64) {
	t.Helper()
	ctx := context.Background()
	dynamoseqtest.CheckSequence(t, l, name, "id", want)
	n := int64(len(want))
	var listed []int64
	for before := int64(0); ; {
		versions, next, err := l.Versions(ctx, name, before, 100)
		require.NoError(t, err)
		for _, v := range versions {
			listed = append(listed, v.Number)
		}
		if next == 0 {
			break
		}
		require.Less(t, next, max(before, n+1), "Versions cursor must move down")
		before = next
	}
	require.True(t, slices.IsSortedFunc(listed, func(a, b int64) int { return int(b - a) }), "Versions lists newest first")
	requireExactly(t, listed, 1, n)
	v, err := l.GetLatest(ctx, name, nil)
	require.NoError(t, err)
	assert.Equal(t, n, v, "GetLatest version")
}

func TestLatestAppendConcurrent(t *testing.T) {
	t.Parallel()
	for _, layout := range latestLayouts {
		t.Run(layout.name, func(t *testing.T) {
			t.Parallel()
			l, _, _ := newLatest(t, layout, nil)
			got := appendAll(t, []*dynamoseq.Latest{l}, 16, 30, "doc1")
			require.Len(t, got, 480)
			requireHistory(t, l, "doc1", got)
		})
	}
}

func init() {
	helpers["latest-append"] = func(t *testing.T) {
		// The default options: a process that starts writing while
		// another already writes the document flat out reads that
		// writer's solo turn and writes at its end, when the other
		// leaves the document alone for a moment (see
		// internal/engine/turns.go), instead of losing race after race.
		l, err := dynamoseq.NewLatest(dbtest.Client(t), os.Getenv("TABLE"))
		require.NoError(t, err)
		goroutines, _ := strconv.Atoi(os.Getenv("GOROUTINES"))
		each, _ := strconv.Atoi(os.Getenv("EACH"))
		printLines(fanOut(t, goroutines, each, func(g, i int) (string, error) {
			id := fmt.Sprintf("p%d-g%d-%d", os.Getpid(), g, i)
			v, err := l.Append(context.Background(), "doc1", page{ID: id})
			return fmt.Sprintf("version %d %s", v, id), err
		}))
	}
}

func TestLatestAppendProcesses(t *testing.T) {
	t.Parallel()
	l, _, table := newLatest(t, latestLayouts[0], nil)
	const processes, goroutines, each = 4, 4, 30
	outs := dbtest.RunProcesses(t, processes, "latest-append",
		"TABLE="+table, "GOROUTINES="+strconv.Itoa(goroutines), "EACH="+strconv.Itoa(each))
	got := map[string]int64{}
	for _, line := range outputLines(outs, "version ") {
		num, id, _ := strings.Cut(line, " ")
		v, err := strconv.ParseInt(num, 10, 64)
		require.NoError(t, err)
		got[id] = v
	}
	require.Len(t, got, processes*goroutines*each)
	requireHistory(t, l, "doc1", got)
}

// timeoutError is what a client sees when the connection times out: not a
// service error, so the outcome of the request is unknown.
type timeoutError struct{}

func (timeoutError) Error() string   { return "read tcp 127.0.0.1:8000: i/o timeout (injected)" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// ambiguousClient makes the first send of every transaction fail with a
// timeout, as if the connection dropped: every other one after DynamoDB
// applied it (the answer was lost), the others before it reached DynamoDB
// (the request was lost). Later sends with the same ClientRequestToken
// pass through.
type ambiguousClient struct {
	dynamoseq.Client
	mu      sync.Mutex      // protects seen and firsts
	seen    map[string]bool // tokens sent before
	firsts  int             // first sends of a token
	applied atomic.Int64    // faults injected after the write was applied
	lost    atomic.Int64    // faults injected before the write was sent
}

func (c *ambiguousClient) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	token := aws.ToString(in.ClientRequestToken)
	c.mu.Lock()
	first := token == "" || !c.seen[token]
	c.seen[token] = true
	if first {
		c.firsts++
	}
	// Alternate on first sends: counting resends too could fall into
	// step with them (each lost request is sent twice) and inject only
	// one kind, as it did once lost races became rare.
	afterApply := c.firsts%2 == 1
	c.mu.Unlock()
	if !first {
		return c.Client.TransactWriteItems(ctx, in, optFns...)
	}
	if !afterApply {
		c.lost.Add(1)
		return nil, &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "TransactWriteItems", Err: timeoutError{}}
	}
	_, err := c.Client.TransactWriteItems(ctx, in, optFns...)
	if err != nil {
		return nil, err // a real answer: nothing ambiguous to inject
	}
	c.applied.Add(1)
	return nil, &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "TransactWriteItems", Err: timeoutError{}}
}

func TestLatestAmbiguousFailure(t *testing.T) {
	t.Parallel()
	for _, layout := range []latestLayout{latestLayouts[0], latestLayouts[2]} {
		t.Run(layout.name, func(t *testing.T) {
			t.Parallel()
			// Two Latests on one table race each other as two processes
			// would, so lost races and lost answers mix.
			faulty := &ambiguousClient{seen: map[string]bool{}}
			a, client, table := newLatest(t, layout, func(c dynamoseq.Client) dynamoseq.Client {
				faulty.Client = c
				return faulty
			})
			b, err := dynamoseq.NewLatest(faulty, table, layout.opts)
			require.NoError(t, err)
			got := appendAll(t, []*dynamoseq.Latest{a, b}, 16, 30, "doc1")
			require.Len(t, got, 480)
			t.Logf("timeouts injected after the write: %d, before it: %d", faulty.applied.Load(), faulty.lost.Load())
			require.Positive(t, faulty.applied.Load(), "timeouts injected after the write")
			require.Positive(t, faulty.lost.Load(), "timeouts injected before the write")

			reader, err := dynamoseq.NewLatest(client, table, layout.opts)
			require.NoError(t, err)
			requireHistory(t, reader, "doc1", got)
		})
	}
}

func TestLatestGetAndVersions(t *testing.T) {
	t.Parallel()
	for _, layout := range latestLayouts {
		t.Run(layout.name, func(t *testing.T) {
			t.Parallel()
			l, _, _ := newLatest(t, layout, nil)
			ctx := context.Background()

			_, err := l.GetLatest(ctx, "doc1", nil)
			require.ErrorIs(t, err, dynamoseq.ErrNotFound, "GetLatest before any Append")
			require.ErrorIs(t, l.Get(ctx, "doc1", 1, nil), dynamoseq.ErrNotFound, "Get(1) before any Append")
			versions, next, err := l.Versions(ctx, "doc1", 0, 10)
			require.NoError(t, err)
			assert.Empty(t, versions, "Versions before any Append")
			assert.Zero(t, next)

			for i := 1; i <= 7; i++ {
				v, err := l.Append(ctx, "doc1", page{ID: strconv.Itoa(i), Title: "title " + strconv.Itoa(i)})
				require.NoError(t, err)
				require.Equal(t, int64(i), v, "Append #%d", i)
			}
			v, err := l.Next(ctx, "doc1")
			require.NoError(t, err)
			require.Equal(t, int64(8), v, "Next after 7 Appends")

			var p page
			require.NoError(t, l.Get(ctx, "doc1", 3, &p))
			assert.Equal(t, page{ID: "3", Title: "title 3"}, p, "Get(3)")
			var raw map[string]types.AttributeValue
			require.NoError(t, l.Get(ctx, "doc1", 3, &raw))
			assert.Equal(t, []string{"id", "title"}, slices.Sorted(maps.Keys(raw)), "Get(3) into a map: no key or version attribute")
			require.ErrorIs(t, l.Get(ctx, "doc1", 9, &p), dynamoseq.ErrNotFound, "Get(9)")

			// Version 8 came from Next: no attributes, and so is 'latest'.
			raw = nil
			v, err = l.GetLatest(ctx, "doc1", &raw)
			require.NoError(t, err)
			assert.Equal(t, int64(8), v)
			assert.Empty(t, raw, "GetLatest after Next")

			var pages [][]int64
			for before := int64(0); ; {
				versions, next, err := l.Versions(ctx, "doc1", before, 3)
				require.NoError(t, err)
				var nums []int64
				for _, v := range versions {
					nums = append(nums, v.Number)
				}
				pages = append(pages, nums)
				if next == 0 {
					break
				}
				before = next
			}
			assert.Equal(t, [][]int64{{8, 7, 6}, {5, 4, 3}, {2, 1}}, pages, "Versions in pages of 3")
			versions, _, err = l.Versions(ctx, "doc1", 5, 1)
			require.NoError(t, err)
			require.Len(t, versions, 1)
			require.NoError(t, versions[0].Decode(&p))
			assert.Equal(t, page{ID: "4", Title: "title 4"}, p, "Versions(before 5, limit 1)")

			// Another document in the same table is separate.
			v, err = l.Append(ctx, "doc2", nil)
			require.NoError(t, err)
			assert.Equal(t, int64(1), v, "first Append of doc2")
		})
	}
}

func TestLatestBadInput(t *testing.T) {
	t.Parallel()
	for _, layout := range []latestLayout{latestLayouts[0], latestLayouts[2]} {
		t.Run(layout.name, func(t *testing.T) {
			t.Parallel()
			l, _, _ := newLatest(t, layout, nil)
			ctx := context.Background()
			big := strings.Repeat("x", 400*1024)
			cases := []struct {
				name string
				doc  string
				item any
			}{
				{"empty name", "", page{ID: "1"}},
				{"partition key in the item", "doc1", map[string]any{"pk": "other"}},
				{"sort key in the item", "doc1", map[string]any{"sk": 5}},
				{"version attribute in the item", "doc1", map[string]any{"version": 5}},
				{"oversized item", "doc1", page{ID: big}},
				{"not a map or struct", "doc1", 42},
				{"nil attribute value", "doc1", map[string]types.AttributeValue{"a": nil}},
				{"empty attribute name", "doc1", map[string]types.AttributeValue{"": &types.AttributeValueMemberS{Value: "x"}}},
			}
			for _, tc := range cases {
				if tc.name == "sort key in the item" && layout.name == "partitionkey" {
					continue // no sort key: "sk" is an ordinary attribute there
				}
				_, err := l.Append(ctx, tc.doc, tc.item)
				if !errors.Is(err, dynamoseq.ErrInvalidArgument) {
					t.Errorf("%s: Append error = %v, want ErrInvalidArgument", tc.name, err)
				}
			}
			// Nothing was written, not even half.
			_, err := l.GetLatest(ctx, "doc1", nil)
			require.ErrorIs(t, err, dynamoseq.ErrNotFound, "GetLatest after refused Appends")
			versions, _, err := l.Versions(ctx, "doc1", 0, 10)
			require.NoError(t, err)
			assert.Empty(t, versions, "versions after refused Appends")

			_, err = l.GetLatest(ctx, "", nil)
			assert.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "GetLatest with an empty name")
			assert.ErrorIs(t, l.Get(ctx, "doc1", 0, nil), dynamoseq.ErrInvalidArgument, "Get version 0")
			assert.ErrorIs(t, l.Get(ctx, "", 1, nil), dynamoseq.ErrInvalidArgument, "Get with an empty name")
			_, _, err = l.Versions(ctx, "doc1", 0, 0)
			assert.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "Versions with limit 0")
			_, _, err = l.Versions(ctx, "doc1", -1, 10)
			assert.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "Versions before -1")

			_, err = l.Append(ctx, "doc1", page{ID: "1"})
			require.NoError(t, err)
			// The size estimate is close: an item just under the limit goes.
			v, err := l.Append(ctx, "doc2", page{ID: strings.Repeat("x", 399*1024)})
			require.NoError(t, err, "Append of a 399 KB item")
			assert.Equal(t, int64(1), v)
			var p page
			assert.ErrorIs(t, l.Get(ctx, "doc1", 1, p), dynamoseq.ErrInvalidArgument, "Get into a non-pointer")
			_, err = l.GetLatest(ctx, "doc1", p)
			assert.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "GetLatest into a non-pointer")
		})
	}
}

func TestLatestBadOptions(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	cases := []struct {
		name   string
		client dynamoseq.Client
		table  string
		opt    func(*dynamoseq.LatestOptions)
	}{
		{"nil client", nil, "docs", nil},
		{"bad table name", client, "d", nil},
		{"layout's sort key is the partition key", client, "docs", func(o *dynamoseq.LatestOptions) { o.Layout = dynamoseq.LayoutSortKey{SortKey: "pk"} }},
		{"layout's sort key digits", client, "docs", func(o *dynamoseq.LatestOptions) { o.Layout = &dynamoseq.LayoutSortKey{SortKeyDigits: 20} }},
		{"version attribute is the partition key", client, "docs", func(o *dynamoseq.LatestOptions) { o.VersionAttribute = "pk" }},
		{"version attribute is the sort key", client, "docs", func(o *dynamoseq.LatestOptions) { o.VersionAttribute = "sk" }},
		{"version key format without %d", client, "docs", func(o *dynamoseq.LatestOptions) {
			o.Layout = dynamoseq.LayoutPartitionKey{VersionKeyFormat: "%s#v"}
		}},
		{"version key format in the wrong order", client, "docs", func(o *dynamoseq.LatestOptions) {
			o.Layout = dynamoseq.LayoutPartitionKey{VersionKeyFormat: "v%d#%s"}
		}},
		{"latest key format with %d", client, "docs", func(o *dynamoseq.LatestOptions) {
			o.Layout = dynamoseq.LayoutPartitionKey{LatestKeyFormat: "%s#%d"}
		}},
		{"latest key is a version key", client, "docs", func(o *dynamoseq.LatestOptions) {
			o.Layout = dynamoseq.LayoutPartitionKey{LatestKeyFormat: "%s#v7"}
		}},
		{"MaxAttempts below 1", client, "docs", func(o *dynamoseq.LatestOptions) { o.MaxAttempts = -1 }},
	}
	for _, tc := range cases {
		fns := optList(tc.opt)
		l, err := dynamoseq.NewLatest(tc.client, tc.table, fns...)
		if !errors.Is(err, dynamoseq.ErrInvalidArgument) || l != nil {
			t.Errorf("%s: NewLatest = %v, %v; want nil, ErrInvalidArgument", tc.name, l, err)
		}
	}
}

// TestLatestValidationInBatch: DynamoDB refuses an item the library cannot
// check beforehand (nested deeper than 32 levels). Appended at the same time
// as good items, it fails alone, at once, and the others are written.
func TestLatestValidationInBatch(t *testing.T) {
	t.Parallel()
	for _, noTx := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoTransactions=%v", noTx), func(t *testing.T) {
			t.Parallel()
			testLatestValidationInBatch(t, func(o *dynamoseq.LatestOptions) { o.NoTransactions = noTx })
		})
	}
}

func testLatestValidationInBatch(t *testing.T, opt func(*dynamoseq.LatestOptions)) {
	l, _, _ := newLatest(t, latestLayouts[0], nil, opt)
	deep := types.AttributeValue(&types.AttributeValueMemberS{Value: "bottom"})
	for range 40 {
		deep = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"m": deep}}
	}
	got := map[string]int64{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var badErr error
	for g := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if g == 5 {
				_, badErr = l.Append(context.Background(), "doc1", map[string]types.AttributeValue{"deep": deep})
				return
			}
			id := "good" + strconv.Itoa(g)
			v, err := l.Append(context.Background(), "doc1", page{ID: id})
			if err != nil {
				t.Errorf("Append(%s): %v", id, err)
				return
			}
			mu.Lock()
			got[id] = v
			mu.Unlock()
		}()
	}
	wg.Wait()
	var api smithy.APIError
	require.ErrorAs(t, badErr, &api, "Append of a too deep item")
	assert.Equal(t, "ValidationException", api.ErrorCode())
	assert.NotErrorIs(t, badErr, dynamoseq.ErrContention, "a validation error is not retried")
	requireHistory(t, l, "doc1", got)
}

// TestLatestTableMismatch: a table of another shape than the options say
// fails at once with DynamoDB's ValidationException, and the error names
// the layout that fits a table of the other shape.
func TestLatestTableMismatch(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	pkOnly := dbtest.CounterTable(t, client)
	stringSK := dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeS)
	tests := []struct {
		name    string
		table   string
		opts    []func(*dynamoseq.LatestOptions)
		message string
	}{
		{"sort key of another type", stringSK, nil, `sort key "sk" of type N`},
		{"no sort key", pkOnly, nil, "a table with only a partition key needs LayoutPartitionKey"},
		{"a sort key", stringSK, optList(func(o *dynamoseq.LatestOptions) { o.Layout = dynamoseq.LayoutPartitionKey{} }), "a table with a sort key needs LayoutSortKey"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := dynamoseq.NewLatest(client, tt.table, tt.opts...)
			require.NoError(t, err)
			_, err = l.Append(context.Background(), "doc1", nil)
			require.ErrorIs(t, err, dynamoseq.ErrTableMismatch)
			assert.Contains(t, err.Error(), `document "doc1"`)
			assert.Contains(t, err.Error(), tt.message)
		})
	}
}

// raceClient lets a rival append to the same document just before each of
// the library's transactions, so that every attempt loses its race.
type raceClient struct {
	dynamoseq.Client
	rival *dynamoseq.Latest
	tries atomic.Int64
}

func (c *raceClient) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c.tries.Add(1)
	if _, err := c.rival.Append(ctx, "doc1", page{ID: "rival" + strconv.FormatInt(c.tries.Load(), 10)}); err != nil {
		return nil, err
	}
	return c.Client.TransactWriteItems(ctx, in, optFns...)
}

// newRacyLatest returns a Latest with maxAttempts whose every transaction
// on "doc1" loses its race to racy.rival, another Latest over the table.
func newRacyLatest(t *testing.T, maxAttempts int) (*dynamoseq.Latest, *raceClient) {
	t.Helper()
	racy := &raceClient{}
	l, client, table := newLatest(t, latestLayouts[0], func(c dynamoseq.Client) dynamoseq.Client {
		racy.Client = c
		return racy
	}, func(o *dynamoseq.LatestOptions) { o.MaxAttempts = maxAttempts })
	rival, err := dynamoseq.NewLatest(client, table)
	require.NoError(t, err)
	racy.rival = rival
	return l, racy
}

func TestLatestContention(t *testing.T) {
	t.Parallel()
	l, racy := newRacyLatest(t, 3)
	_, err := l.Append(context.Background(), "doc1", page{ID: "loser"})
	require.ErrorIs(t, err, dynamoseq.ErrContention)
	var tce *types.TransactionCanceledException
	require.ErrorAs(t, err, &tce, "ErrContention wraps the last cancellation")
	assert.Equal(t, int64(3), racy.tries.Load(), "transactions tried with MaxAttempts 3")

	// The rival's three versions are all there is.
	want := map[string]int64{"rival1": 1, "rival2": 2, "rival3": 3}
	requireHistory(t, racy.rival, "doc1", want)
}

// TestLatestWarmWriter: the first Append reads 'latest'; the following ones
// know the version from their own write and make one round trip each. A
// writer whose hint went stale (another Latest wrote) learns the version
// from the failed condition, without reading again.
func TestLatestWarmWriter(t *testing.T) {
	t.Parallel()
	counting := &callCounter{}
	l, client, table := newLatest(t, latestLayouts[0], func(c dynamoseq.Client) dynamoseq.Client {
		counting.Client = c
		return counting
	})
	ctx := context.Background()
	for i := 1; i <= 5; i++ {
		v, err := l.Append(ctx, "doc1", page{ID: strconv.Itoa(i)})
		require.NoError(t, err)
		require.Equal(t, int64(i), v)
	}
	assert.Equal(t, int64(1), counting.gets.Load(), "GetItem calls for 5 Appends")
	assert.Equal(t, int64(5), counting.transactions.Load(), "TransactWriteItems calls for 5 Appends")

	other, err := dynamoseq.NewLatest(client, table)
	require.NoError(t, err)
	v, err := other.Append(ctx, "doc1", page{ID: "6"})
	require.NoError(t, err)
	require.Equal(t, int64(6), v)

	waits := l.Figures().TurnWaits
	v, err = l.Append(ctx, "doc1", page{ID: "7"})
	require.NoError(t, err)
	assert.Equal(t, int64(7), v, "Append after another writer")
	// The failed condition returned 'latest', so the lost race costs no
	// read; but when the other's write held a turn still running, the
	// writer waits for its end and reads the head again, as the others may
	// have written meanwhile (engine.Turns): a read per such wait, at most.
	waited := l.Figures().TurnWaits - waits
	gets := counting.gets.Load()
	assert.True(t, gets >= 1 && gets <= 1+waited,
		"GetItem calls: %d, want 1 (the failed condition returned 'latest') plus at most one per wait for another's turn (%d waits)", gets, waited)
	assert.Equal(t, int64(7), counting.transactions.Load(), "TransactWriteItems calls: one lost race, one retry")
}

// cancelClient cancels the caller's context around a transaction, and
// reports the context's error as the SDK would: before the request is sent
// (nothing written), or after DynamoDB applied it (the answer is lost).
type cancelClient struct {
	dynamoseq.Client
	afterApply bool
	mu         sync.Mutex         // protects cancel
	cancel     context.CancelFunc // nil: pass the transaction on
}

// arm sets the cancel function of the transactions to come; nil disarms.
// A resend of the library may still be in flight when the test disarms.
func (c *cancelClient) arm(cancel context.CancelFunc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cancel = cancel
}

func (c *cancelClient) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c.mu.Lock()
	cancel := c.cancel
	c.mu.Unlock()
	if cancel == nil {
		return c.Client.TransactWriteItems(ctx, in, optFns...)
	}
	if c.afterApply {
		if _, err := c.Client.TransactWriteItems(context.WithoutCancel(ctx), in, optFns...); err != nil {
			return nil, err
		}
	}
	cancel()
	return nil, &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "TransactWriteItems", Err: context.Canceled}
}

// TestLatestCancelledContext: a context that has ended writes nothing. One
// that ends while the transaction is in flight leaves the outcome open:
// Append returns the context's error (or, if its resend with the same token
// got in first, the version), the content is stored once or not at all,
// never twice, and the next Append continues right after it.
func TestLatestCancelledContext(t *testing.T) {
	t.Parallel()
	for _, afterApply := range []bool{false, true} {
		t.Run("afterApply="+strconv.FormatBool(afterApply), func(t *testing.T) {
			t.Parallel()
			cc := &cancelClient{afterApply: afterApply}
			l, _, _ := newLatest(t, latestLayouts[0], func(c dynamoseq.Client) dynamoseq.Client {
				cc.Client = c
				return cc
			})
			ctx := context.Background()
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			_, err := l.Append(cancelled, "doc1", page{ID: "never"})
			require.ErrorIs(t, err, context.Canceled, "Append with a cancelled context")
			_, err = l.GetLatest(ctx, "doc1", nil)
			require.ErrorIs(t, err, dynamoseq.ErrNotFound, "GetLatest after an Append with a cancelled context")

			inFlight, cancel := context.WithCancel(ctx)
			cc.arm(cancel)
			v, err := l.Append(inFlight, "doc1", page{ID: "maybe"})
			cc.arm(nil)
			if err != nil {
				require.ErrorIs(t, err, context.Canceled, "Append whose context ends in flight")
			} else {
				require.Equal(t, int64(1), v, "Append whose context ended, resent with its token")
			}
			want := map[string]int64{}
			var p page
			switch v, err := l.GetLatest(ctx, "doc1", &p); {
			case err == nil:
				require.Equal(t, int64(1), v)
				require.Equal(t, "maybe", p.ID)
				want["maybe"] = 1
			case afterApply:
				t.Fatalf("GetLatest after an Append applied before its context ended: %v", err)
			default:
				require.ErrorIs(t, err, dynamoseq.ErrNotFound)
			}
			t.Logf("the interrupted Append was stored: %v", len(want) == 1)

			v, err = l.Append(ctx, "doc1", page{ID: "next"})
			require.NoError(t, err)
			require.Equal(t, int64(len(want)+1), v, "Append after the interrupted one")
			want["next"] = v
			requireHistory(t, l, "doc1", want)
		})
	}
}

// errorClient records the errors of TransactWriteItems.
type errorClient struct {
	dynamoseq.Client
	mu   sync.Mutex // protects errs
	errs []error
	max  int // the most actions seen in one transaction
}

func (c *errorClient) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	out, err := c.Client.TransactWriteItems(ctx, in, optFns...)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.max = max(c.max, len(in.TransactItems))
	if err != nil {
		c.errs = append(c.errs, err)
	}
	return out, err
}

// TestLatestLargeBatches: many appends waiting at once are split into
// transactions DynamoDB accepts, by count (100 actions) and by size (4 MB),
// without a single refused transaction.
func TestLatestLargeBatches(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		goroutines int
		size       int
	}{
		{"count", 150, 10},
		{"bytes", 24, 300 * 1024},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ec := &errorClient{}
			l, _, _ := newLatest(t, latestLayouts[0], func(c dynamoseq.Client) dynamoseq.Client {
				ec.Client = c
				return ec
			})
			got := map[string]int64{}
			var mu sync.Mutex
			var wg sync.WaitGroup
			for g := range tc.goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					id := fmt.Sprintf("%d-%s", g, strings.Repeat("x", tc.size))
					v, err := l.Append(context.Background(), "doc1", page{ID: id})
					if err != nil {
						t.Errorf("Append #%d: %v", g, err)
						return
					}
					mu.Lock()
					got[id] = v
					mu.Unlock()
				}()
			}
			wg.Wait()
			assert.Empty(t, ec.errs, "refused transactions")
			assert.LessOrEqual(t, ec.max, 100, "actions in one transaction")
			t.Logf("largest transaction: %d actions", ec.max)
			requireHistory(t, l, "doc1", got)
		})
	}
}
