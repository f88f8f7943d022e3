package dynamoseq_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

func newSortKey(t *testing.T, optFns ...func(*dynamoseq.SortKeyOptions)) (*dynamoseq.SortKey, *dynamodb.Client, string) {
	t.Helper()
	client := dbtest.Client(t)
	table := dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN)
	s, err := dynamoseq.NewSortKey(client, table, optFns...)
	require.NoError(t, err)
	return s, client, table
}

// collection reads every item of the partition pk, keyed by the number in
// its sort key "sk" (Number or zero-padded String).
func collection(t *testing.T, client *dynamodb.Client, table, pk string) map[int64]map[string]types.AttributeValue {
	t.Helper()
	items := map[int64]map[string]types.AttributeValue{}
	p := dynamodb.NewQueryPaginator(client, &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		KeyConditionExpression:    aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}},
		ConsistentRead:            aws.Bool(true),
	})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		require.NoError(t, err)
		for _, item := range out.Items {
			var text string
			switch v := item["sk"].(type) {
			case *types.AttributeValueMemberN:
				text = v.Value
			case *types.AttributeValueMemberS:
				text = v.Value
			}
			if n, err := strconv.ParseInt(text, 10, 64); err == nil {
				items[n] = item
			}
		}
	}
	return items
}

// ticket is the item the tests append.
type ticket struct {
	Writer int    `dynamodbav:"writer"`
	Seq    int    `dynamodbav:"seq"`
	Title  string `dynamodbav:"title"`
}

// requireStored checks that the collection holds exactly 1..len(want), each
// number with the item its caller appended.
func requireStored(t *testing.T, client *dynamodb.Client, table, pk string, want map[int64]ticket) {
	t.Helper()
	items := collection(t, client, table, pk)
	require.Len(t, items, len(want), "items stored")
	for n, w := range want {
		item, ok := items[n]
		if !ok {
			t.Fatalf("number %d was returned to a caller but holds no item", n)
		}
		var got ticket
		require.NoError(t, attributevalue.UnmarshalMap(item, &got))
		if got != w {
			t.Fatalf("item %d = %+v, want %+v (the item of the caller that got %d)", n, got, w, n)
		}
	}
}

func TestSortKeyAppendConcurrent(t *testing.T) {
	t.Parallel()
	s, _, _ := newSortKey(t)
	const goroutines, each = 16, 100
	tk := func(g, i int) ticket {
		return ticket{Writer: g, Seq: i, Title: fmt.Sprintf("ticket %d of writer %d", i, g)}
	}
	got := fanOut(t, goroutines, each, func(g, i int) (int64, error) {
		return s.Append(context.Background(), "projectA", tk(g, i))
	})
	told := map[string]int64{} // title -> number
	for g, ns := range got {
		prev := int64(0)
		for i, n := range ns {
			if n <= prev {
				t.Errorf("writer %d got %d after %d", g, n, prev)
			}
			prev = n
			told[tk(g, i).Title] = n
		}
	}
	require.Len(t, told, goroutines*each, "callers told a number")
	dynamoseqtest.CheckSequence(t, s, "projectA", "title", told)
	last, err := s.Last(context.Background(), "projectA")
	require.NoError(t, err)
	assert.Equal(t, int64(goroutines*each), last, "Last")
}

func init() {
	helpers["sortkey-append"] = func(t *testing.T) {
		// Four processes that write one name flat out, with the default
		// options: taking turns keeps any of them from losing MaxAttempts
		// races in a row.
		s, err := dynamoseq.NewSortKey(dbtest.Client(t), os.Getenv("TABLE"))
		require.NoError(t, err)
		goroutines, _ := strconv.Atoi(os.Getenv("GOROUTINES"))
		each, _ := strconv.Atoi(os.Getenv("EACH"))
		printLines(fanOut(t, goroutines, each, func(g, i int) (string, error) {
			tk := ticket{Writer: os.Getpid()*100 + g, Seq: i}
			n, err := s.Append(context.Background(), "shared", tk)
			return fmt.Sprintf("appended %d %d %d", n, tk.Writer, tk.Seq), err
		}))
	}
}

func TestSortKeyAppendProcesses(t *testing.T) {
	t.Parallel()
	_, client, table := newSortKey(t)
	const processes, goroutines, each = 4, 4, 50
	outs := dbtest.RunProcesses(t, processes, "sortkey-append",
		"TABLE="+table, "GOROUTINES="+strconv.Itoa(goroutines), "EACH="+strconv.Itoa(each))
	stored := map[int64]ticket{}
	var all []int64
	for _, l := range outputLines(outs, "appended ") {
		var n int64
		var tk ticket
		_, err := fmt.Sscan(l, &n, &tk.Writer, &tk.Seq)
		require.NoError(t, err, "line %q", l)
		all = append(all, n)
		stored[n] = tk
	}
	requireExactly(t, all, 1, processes*goroutines*each)
	requireStored(t, client, table, "shared", stored)
}

func TestSortKeyWarmHintSkipsQuery(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	table := dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN)
	counting := &callCounter{Client: client}
	s, err := dynamoseq.NewSortKey(counting, table)
	require.NoError(t, err)
	for want := int64(1); want <= 10; want++ {
		n, err := s.Next(context.Background(), "warm")
		require.NoError(t, err)
		require.Equal(t, want, n, "Next()")
	}
	assert.Equal(t, int64(1), counting.queries.Load(), "Query calls for 10 appends by one writer")
	assert.Equal(t, int64(10), counting.puts.Load(), "PutItem calls")
	assert.Equal(t, int64(0), counting.transactions.Load(), "TransactWriteItems calls")
}

// TestSortKeyStaleHint: a SortKey whose hint of the last number is stale
// (another process wrote since) loses one race and reads the head again,
// instead of stepping through the other's writes; as does one that
// another writer bypassing the library has overtaken, and two writing at
// once.
func TestSortKeyStaleHint(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	table := dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN)
	ctx := context.Background()
	// Two SortKeys stand for two processes: each has its own hints. Their
	// turns (see internal/engine/turns.go), which a lost race starts and whose waits
	// each cost one more Query, last a nanosecond (MaxDelay), so that how
	// many b makes does not depend on how long the machine takes between
	// the writes.
	noTurns := func(o *dynamoseq.SortKeyOptions) { o.BaseDelay, o.MaxDelay = time.Nanosecond, time.Nanosecond }
	a, err := dynamoseq.NewSortKey(client, table, noTurns)
	require.NoError(t, err)
	counting := &callCounter{Client: client}
	b, err := dynamoseq.NewSortKey(counting, table, noTurns)
	require.NoError(t, err)

	for i, step := range []struct {
		s    *dynamoseq.SortKey
		want int64
	}{{a, 1}, {b, 2}, {a, 3}, {a, 4}, {b, 5}, {b, 6}, {a, 7}} {
		n, err := step.s.Append(ctx, "p", ticket{Seq: i})
		require.NoError(t, err)
		require.Equal(t, step.want, n, "step %d: Append()", i)
	}
	// b queried at first, and again when a's writes had made its own hint
	// stale (a hint from its own win may be old, so a lost race from it is
	// followed by a Query, not by stepping through a's writes): three
	// writes that won and one that lost. Having lost a race, b writes in
	// turns for a second; as its turn ends before its next write, b reads
	// the head once more, unless that second was over first (a slow
	// machine).
	assert.Contains(t, []int64{2, 3}, counting.queries.Load(), "b's Query calls: 2, or 3 after its turn")
	assert.Equal(t, int64(4), counting.puts.Load(), "b's PutItem calls")

	// Another writer that bypasses the library entirely, writing the next
	// number the same way, is seen too.
	_, err = client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(table),
		Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "p"},
			"sk": &types.AttributeValueMemberN{Value: "8"},
		},
	})
	require.NoError(t, err)
	n, err := a.Next(ctx, "p")
	require.NoError(t, err)
	assert.Equal(t, int64(9), n, "Next() after another writer wrote 8")

	// And the same with two SortKeys writing at once, which take turns as
	// by default (without turns, one would lose race after race). Turns
	// start once two writers have met: each first loses a race to the
	// other (a, b, a, b, each from a hint the other has made stale).
	// Writers that have not met may not meet at all while one of them
	// wins every race: the other then loses MaxAttempts races in a row.
	a, err = dynamoseq.NewSortKey(client, table)
	require.NoError(t, err)
	b, err = dynamoseq.NewSortKey(client, table)
	require.NoError(t, err)
	for i, s := range []*dynamoseq.SortKey{a, b, a, b} {
		n, err := s.Next(ctx, "p")
		require.NoError(t, err)
		require.Equal(t, int64(10+i), n, "writer %d's Next() while the two meet", i%2)
	}
	require.Equal(t, []int64{1, 1}, []int64{a.Figures().LostRaces, b.Figures().LostRaces}, "races lost by a and by b while they meet")
	all := slices.Concat(fanOut(t, 8, 40, func(g, _ int) (int64, error) {
		s := a
		if g%2 == 1 {
			s = b
		}
		return s.Next(ctx, "p")
	})...)
	requireExactly(t, all, 14, 13+8*40)
	assert.Len(t, collection(t, client, table, "p"), 13+8*40, "items stored")
}

// gateClient holds the first write until release is closed, so that the
// calls made meanwhile queue up and are written together in the next one.
type gateClient struct {
	dynamoseq.Client
	release      chan struct{}
	once         sync.Once
	transactions atomic.Int64

	mu   sync.Mutex    // protects held
	held chan struct{} // closed once the first write waits; see holding
}

func (g *gateClient) wait() {
	g.once.Do(func() {
		close(g.holding())
		<-g.release
	})
}

// holding returns a channel that is closed once the first write waits at
// the gate.
func (g *gateClient) holding() chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held == nil {
		g.held = make(chan struct{})
	}
	return g.held
}

func (g *gateClient) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	g.wait()
	return g.Client.PutItem(ctx, in, optFns...)
}

func (g *gateClient) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	g.wait()
	g.transactions.Add(1)
	return g.Client.TransactWriteItems(ctx, in, optFns...)
}

// appendQueued appends items[0] and, while its write is held, items[1:]
// from goroutines of their own, so that those are written as one batch. It
// returns each call's number and error. appendFn is the Append of a SortKey
// or a Latest over gate.
func appendQueued(t *testing.T, appendFn appender, gate *gateClient, name string, items []any) ([]int64, []error) {
	t.Helper()
	nums := make([]int64, len(items))
	errs := make([]error, len(items))
	var wg sync.WaitGroup
	for i, item := range items {
		ctx, waiting := waitingContext(context.Background())
		wg.Add(1)
		go func() {
			defer wg.Done()
			nums[i], errs[i] = appendFn(ctx, name, item)
		}()
		// The first call leads and holds the gate; the others queue in
		// order behind it.
		if i == 0 {
			<-gate.holding()
		} else {
			<-waiting
		}
	}
	close(gate.release)
	wg.Wait()
	return nums, errs
}

// waitingContext returns parent, and a channel that is closed once the
// context's Done is first called: a caller waits on it when its call is
// queued, behind a write in progress, and not before.
func waitingContext(parent context.Context) (context.Context, <-chan struct{}) {
	c := &noticing{Context: parent, waiting: make(chan struct{})}
	return c, c.waiting
}

// noticing is waitingContext's context.
type noticing struct {
	context.Context
	once    sync.Once
	waiting chan struct{}
}

func (c *noticing) Done() <-chan struct{} {
	c.once.Do(func() { close(c.waiting) })
	return c.Context.Done()
}

// newGatedSortKey returns a SortKey over a new table whose first write
// waits at gate (see appendQueued), with the raw client and the table.
func newGatedSortKey(t *testing.T, optFns ...func(*dynamoseq.SortKeyOptions)) (*dynamoseq.SortKey, *gateClient, *dynamodb.Client, string) {
	t.Helper()
	client := dbtest.Client(t)
	table := dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN)
	gate := &gateClient{Client: client, release: make(chan struct{})}
	s, err := dynamoseq.NewSortKey(gate, table, optFns...)
	require.NoError(t, err)
	return s, gate, client, table
}

func TestSortKeyBatchWritesOneTransaction(t *testing.T) {
	t.Parallel()
	s, gate, client, table := newGatedSortKey(t)
	items := make([]any, 21)
	for i := range items {
		items[i] = ticket{Seq: i}
	}
	nums, errs := appendQueued(t, s.Append, gate, "batch", items)
	stored := map[int64]ticket{}
	for i := range items {
		require.NoError(t, errs[i], "call %d", i)
		stored[nums[i]] = items[i].(ticket)
	}
	assert.Equal(t, int64(1), nums[0], "the first call's number")
	assert.Equal(t, int64(1), gate.transactions.Load(), "TransactWriteItems calls for the 20 queued calls")
	requireStored(t, client, table, "batch", stored)
}

func TestSortKeyBadItemInBatch(t *testing.T) {
	t.Parallel()
	for _, noTx := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoTransactions=%v", noTx), func(t *testing.T) {
			t.Parallel()
			testSortKeyBadItemInBatch(t, func(o *dynamoseq.SortKeyOptions) { o.NoTransactions = noTx })
		})
	}
}

func testSortKeyBadItemInBatch(t *testing.T, opt func(*dynamoseq.SortKeyOptions)) {
	s, gate, client, table := newGatedSortKey(t, opt)
	// DynamoDB refuses an item nested deeper than 32 levels; the size check
	// before the write cannot see that.
	deep := types.AttributeValue(&types.AttributeValueMemberS{Value: "x"})
	for range 40 {
		deep = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"a": deep}}
	}
	items := []any{ticket{Seq: 0}, ticket{Seq: 1}, map[string]types.AttributeValue{"deep": deep}, ticket{Seq: 3}, ticket{Seq: 4}}
	nums, errs := appendQueued(t, s.Append, gate, "mixed", items)
	require.ErrorIs(t, errs[2], dynamoseq.ErrInvalidArgument, "the deep item")
	assert.Contains(t, errs[2].Error(), "Nesting Levels")
	stored := map[int64]ticket{}
	for _, i := range []int{0, 1, 3, 4} {
		require.NoError(t, errs[i], "innocent call %d", i)
		stored[nums[i]] = items[i].(ticket)
	}
	requireStored(t, client, table, "mixed", stored)
}

// refusingClient answers a TransactWriteItems that holds an item with the
// attribute "refuse" as DynamoDB does for an item it will not store: the
// transaction is cancelled, with the reason ValidationException for that
// item and None for the others. Nothing is written. (DynamoDB Local reports
// such items with a ValidationException for the whole request instead, the
// case TestSortKeyBadItemInBatch covers.)
type refusingClient struct {
	*gateClient
	code string
}

func (r *refusingClient) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	reasons := make([]types.CancellationReason, len(in.TransactItems))
	refuse := false
	for i, a := range in.TransactItems {
		reasons[i].Code = aws.String("None")
		if _, ok := a.Put.Item["refuse"]; ok {
			reasons[i] = types.CancellationReason{Code: aws.String(r.code), Message: aws.String("refused by the test")}
			refuse = true
		}
	}
	if refuse {
		r.gateClient.wait()
		return nil, &types.TransactionCanceledException{Message: aws.String("Transaction cancelled"), CancellationReasons: reasons}
	}
	return r.gateClient.TransactWriteItems(ctx, in, optFns...)
}

func TestSortKeyCancellationReasons(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code       string
		want       error // for the refused call
		innocentOK bool  // whether the other calls of the batch are written
	}{
		{"ValidationException", dynamoseq.ErrInvalidArgument, true},
		{"ItemCollectionSizeLimitExceeded", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			t.Parallel()
			client := dbtest.Client(t)
			table := dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN)
			gate := &gateClient{Client: client, release: make(chan struct{})}
			s, err := dynamoseq.NewSortKey(&refusingClient{gateClient: gate, code: tt.code}, table)
			require.NoError(t, err)
			bad := map[string]types.AttributeValue{"refuse": &types.AttributeValueMemberBOOL{Value: true}}
			items := []any{ticket{Seq: 0}, ticket{Seq: 1}, bad, ticket{Seq: 3}}
			nums, errs := appendQueued(t, s.Append, gate, "r", items)

			require.Error(t, errs[2])
			if tt.want != nil {
				require.ErrorIs(t, errs[2], tt.want)
			}
			assert.Contains(t, errs[2].Error(), tt.code)
			assert.Contains(t, errs[2].Error(), "item 2 of 3 in the transaction (number 3)")
			var tce *types.TransactionCanceledException
			require.ErrorAs(t, errs[2], &tce, "the SDK's error is reachable")

			stored := map[int64]ticket{nums[0]: items[0].(ticket)}
			for _, i := range []int{1, 3} {
				if tt.innocentOK {
					require.NoError(t, errs[i], "innocent call %d", i)
					stored[nums[i]] = items[i].(ticket)
				} else {
					require.Error(t, errs[i], "call %d of the cancelled batch", i)
					assert.Contains(t, errs[i].Error(), tt.code)
				}
			}
			requireStored(t, client, table, "r", stored)
		})
	}
}

// rivalClient is another process that always wins: before each write of
// the library it writes the number the library is about to take (and the
// one before it, when the library checks that it exists).
type rivalClient struct {
	dynamoseq.Client
	attempts atomic.Int64
}

func (r *rivalClient) write(ctx context.Context, table *string, key map[string]types.AttributeValue) error {
	item := map[string]types.AttributeValue{"pk": key["pk"], "sk": key["sk"], "rival": &types.AttributeValueMemberBOOL{Value: true}}
	_, err := r.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: table, Item: item})
	return err
}

func (r *rivalClient) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	r.attempts.Add(1)
	if err := r.write(ctx, in.TableName, in.Item); err != nil {
		return nil, err
	}
	return r.Client.PutItem(ctx, in, optFns...)
}

func (r *rivalClient) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	r.attempts.Add(1)
	for _, a := range in.TransactItems {
		switch {
		case a.ConditionCheck != nil:
			if err := r.write(ctx, a.ConditionCheck.TableName, a.ConditionCheck.Key); err != nil {
				return nil, err
			}
		case a.Put != nil:
			if err := r.write(ctx, a.Put.TableName, a.Put.Item); err != nil {
				return nil, err
			}
			return r.Client.TransactWriteItems(ctx, in, optFns...)
		}
	}
	return r.Client.TransactWriteItems(ctx, in, optFns...)
}

func TestSortKeyContention(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	table := dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN)
	rival := &rivalClient{Client: client}
	s, err := dynamoseq.NewSortKey(rival, table, func(o *dynamoseq.SortKeyOptions) { o.MaxAttempts = 4 })
	require.NoError(t, err)
	_, err = s.Append(context.Background(), "hot", ticket{Title: "mine"})
	require.ErrorIs(t, err, dynamoseq.ErrContention)
	assert.Contains(t, err.Error(), "lost 4 races")
	assert.Equal(t, int64(4), rival.attempts.Load(), "attempts")
	items := collection(t, client, table, "hot")
	require.GreaterOrEqual(t, len(items), 4, "the rival's items")
	for n := int64(1); n <= int64(len(items)); n++ {
		require.Contains(t, items, n, "no gap")
		assert.Contains(t, items[n], "rival", "item %d is the rival's", n)
	}
}

func TestSortKeyStringSortKey(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	table := dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeS)
	ctx := context.Background()
	s, err := dynamoseq.NewSortKey(client, table, func(o *dynamoseq.SortKeyOptions) {
		o.SortKeyDigits = 6
		o.KeyPrefix = "PROJECT#"
	})
	require.NoError(t, err)
	// A metadata item in the same collection is not a number.
	_, err = client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(table),
		Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "PROJECT#a"},
			"sk": &types.AttributeValueMemberS{Value: "META"},
		},
	})
	require.NoError(t, err)
	_, err = s.Last(ctx, "a")
	require.ErrorIs(t, err, dynamoseq.ErrNotFound, "Last() of a collection with no numbered item")

	all := slices.Concat(fanOut(t, 8, 15, func(int, int) (int64, error) {
		return s.Next(ctx, "a")
	})...)
	requireExactly(t, all, 1, 120)
	items := collection(t, client, table, "PROJECT#a")
	require.Contains(t, items, int64(120))
	assert.Equal(t, "000120", items[120]["sk"].(*types.AttributeValueMemberS).Value, "sort key of 120")
	last, err := s.Last(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, int64(120), last, "Last()")

	// One digit holds 1 to 9.
	narrow, err := dynamoseq.NewSortKey(client, table, func(o *dynamoseq.SortKeyOptions) {
		o.SortKeyDigits = 1
	})
	require.NoError(t, err)
	for want := int64(1); want <= 9; want++ {
		n, err := narrow.Next(ctx, "narrow")
		require.NoError(t, err)
		require.Equal(t, want, n)
	}
	_, err = narrow.Next(ctx, "narrow")
	require.ErrorIs(t, err, dynamoseq.ErrExhausted)
}

func TestSortKeyLastIgnoresOtherItems(t *testing.T) {
	t.Parallel()
	s, client, table := newSortKey(t)
	ctx := context.Background()
	_, err := s.Last(ctx, "p")
	require.ErrorIs(t, err, dynamoseq.ErrNotFound)
	// The latest-version item of a single-table design lives at sort key 0.
	_, err = client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(table),
		Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "p"},
			"sk": &types.AttributeValueMemberN{Value: "0"},
		},
	})
	require.NoError(t, err)
	_, err = s.Last(ctx, "p")
	require.ErrorIs(t, err, dynamoseq.ErrNotFound)
	n, err := s.Next(ctx, "p")
	require.NoError(t, err)
	assert.Equal(t, int64(1), n)
	n, err = s.Last(ctx, "p")
	require.NoError(t, err)
	assert.Equal(t, int64(1), n)
}

func TestSortKeyBadInput(t *testing.T) {
	t.Parallel()
	s, client, table := newSortKey(t)
	ctx := context.Background()
	type keyed struct {
		ID    string `dynamodbav:"pk"`
		Title string `dynamodbav:"title"`
	}
	type sorted struct {
		Sk int `dynamodbav:"sk"`
	}
	tests := []struct {
		name    string
		item    any
		want    error
		message string
	}{
		{"item sets the partition key", map[string]any{"pk": "x"}, dynamoseq.ErrInvalidArgument, `item sets attribute "pk"`},
		{"item sets the sort key", map[string]types.AttributeValue{"sk": &types.AttributeValueMemberN{Value: "7"}}, dynamoseq.ErrInvalidArgument, `item sets attribute "sk"`},
		{"struct tag sets the partition key", keyed{ID: "x"}, dynamoseq.ErrInvalidArgument, `item sets attribute "pk"`},
		{"struct tag sets the sort key", sorted{Sk: 3}, dynamoseq.ErrInvalidArgument, `item sets attribute "sk"`},
		{"item over 400 KB", map[string]string{"body": strings.Repeat("x", 400*1024)}, dynamoseq.ErrInvalidArgument, "409600"},
		{"item not a map", "just a string", dynamoseq.ErrInvalidArgument, "want a struct, a map"},
		{"item a number", 42, dynamoseq.ErrInvalidArgument, "want a struct, a map"},
		{"nil attribute value", map[string]types.AttributeValue{"a": nil}, dynamoseq.ErrInvalidArgument, "nil AttributeValue"},
		{"empty string set", map[string]types.AttributeValue{"tags": &types.AttributeValueMemberSS{}}, dynamoseq.ErrInvalidArgument, "DynamoDB refused the item"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Append(ctx, "bad", tt.item)
			require.ErrorIs(t, err, tt.want)
			assert.Contains(t, err.Error(), tt.message)
			var e *dynamoseq.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, table, e.Table)
			assert.Equal(t, "bad", e.Sequence)
			assert.Equal(t, "SortKey.Append", e.Op)
		})
	}
	for _, name := range []string{"", strings.Repeat("x", 2049), "bad\xff"} {
		_, err := s.Append(ctx, name, nil)
		require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "Append(%q)", name)
		_, err = s.Last(ctx, name)
		require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "Last(%q)", name)
	}
	assert.Empty(t, collection(t, client, table, "bad"), "nothing written")

	// Items just under the limit, less the room kept for the write token
	// (itemTokenBytes), are stored.
	n, err := s.Append(ctx, "bad", map[string]string{"body": strings.Repeat("x", 400*1024-200)})
	require.NoError(t, err)
	assert.Equal(t, int64(1), n)
}

func TestSortKeyTableMismatch(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	tests := []struct {
		name    string
		table   string
		opt     func(*dynamoseq.SortKeyOptions)
		message string
	}{
		{"no sort key", dbtest.CounterTable(t, client), nil, `sort key "sk" of type N`},
		{"String sort key, Number expected", dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeS), nil, `sort key "sk" of type N`},
		{"Number sort key, String expected", dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN),
			func(o *dynamoseq.SortKeyOptions) { o.SortKeyDigits = 19 }, `sort key "sk" of type S`},
		{"other sort key name", dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN),
			func(o *dynamoseq.SortKeyOptions) { o.SortKey = "version" }, `sort key "version"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fns := optList(tt.opt)
			s, err := dynamoseq.NewSortKey(client, tt.table, fns...)
			require.NoError(t, err)
			_, err = s.Next(context.Background(), "p")
			require.ErrorIs(t, err, dynamoseq.ErrTableMismatch)
			assert.Contains(t, err.Error(), tt.message)
			_, err = s.Last(context.Background(), "p")
			require.ErrorIs(t, err, dynamoseq.ErrTableMismatch)
			out, err := client.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(tt.table)})
			require.NoError(t, err)
			assert.Empty(t, out.Items, "nothing written")
		})
	}

	s, err := dynamoseq.NewSortKey(client, "no_such_table")
	require.NoError(t, err)
	_, err = s.Next(context.Background(), "p")
	require.ErrorIs(t, err, dynamoseq.ErrTableNotFound)
}

func TestNewSortKeyInvalid(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	tests := []struct {
		name   string
		client dynamoseq.Client
		table  string
		opt    func(*dynamoseq.SortKeyOptions)
	}{
		{"nil client", nil, "seq", nil},
		{"short table", client, "ab", nil},
		{"same key names", client, "seq", func(o *dynamoseq.SortKeyOptions) { o.SortKey = "pk" }},
		{"negative digits", client, "seq", func(o *dynamoseq.SortKeyOptions) { o.SortKeyDigits = -1 }},
		{"too many digits", client, "seq", func(o *dynamoseq.SortKeyOptions) { o.SortKeyDigits = 20 }},
		{"negative attempts", client, "seq", func(o *dynamoseq.SortKeyOptions) { o.MaxAttempts = -1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fns := optList(tt.opt)
			s, err := dynamoseq.NewSortKey(tt.client, tt.table, fns...)
			require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument)
			assert.Nil(t, s)
		})
	}
}

// stallingWrites holds every write until the context ends.
type stallingWrites struct {
	dynamoseq.Client
}

func (s *stallingWrites) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	<-ctx.Done()
	return nil, fmt.Errorf("stalled: %w", ctx.Err())
}

// TransactWriteItems stalls as PutItem does: on a loaded machine the
// callers may arrive together and be written as a batch.
func (s *stallingWrites) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	<-ctx.Done()
	return nil, fmt.Errorf("stalled: %w", ctx.Err())
}

func TestSortKeyCancelledContext(t *testing.T) {
	t.Parallel()
	s, client, table := newSortKey(t)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Next(ctx, "p")
	require.ErrorIs(t, err, context.Canceled)
	_, err = s.Append(ctx, "p", ticket{Seq: 1})
	require.ErrorIs(t, err, context.Canceled)
	_, err = s.Last(ctx, "p")
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, collection(t, client, table, "p"), "nothing written")

	// A call whose context ends while its write is in flight waits for
	// the write's outcome, up to ResolveTimeout: here it never comes, so
	// the call returns ErrUnknownOutcome with the number that may hold
	// the item, and its own context's error. The calls queued behind it
	// return the context's error as soon as it ends.
	slow, err := dynamoseq.NewSortKey(&stallingWrites{Client: client}, table, func(o *dynamoseq.SortKeyOptions) {
		o.ResolveTimeout = 300 * time.Millisecond
	})
	require.NoError(t, err)
	ctx, cancel2 := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel2()
	start := time.Now()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := slow.Next(ctx, "p")
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Next() error = %v, want context.DeadlineExceeded", err)
			}
			var e *dynamoseq.Error
			// The number 1, or, when the calls were written as one batch
			// (a loaded machine), 1 to 4.
			if errors.Is(err, dynamoseq.ErrUnknownOutcome) && (!errors.As(err, &e) || e.Number < 1 || e.Number > 4) {
				t.Errorf("Next() error = %v, want a number 1 to 4 in the *Error", err)
			}
		}()
	}
	wg.Wait()
	assert.Less(t, time.Since(start), 2*time.Second)

	// The SortKey is still usable after.
	n, err := s.Next(context.Background(), "p")
	require.NoError(t, err)
	assert.Equal(t, int64(1), n)
}
