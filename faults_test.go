package dynamoseq_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// The tests of this file run the strategies with faults injected below the
// SDK (dynamoseqtest.FaultTransport): answers lost after the write was
// applied, answers held past the caller's deadline, and DynamoDB
// unreachable. The SDK's own retryer resends, as it does on a real network.

// lossy are the faults of these tests: a fifth of the writes' answers lost,
// one in twenty held back past the caller's deadline.
var lossy = dynamoseqtest.Faults{LoseAnswers: 0.2, StallAnswers: 0.05, StallFor: 2 * time.Second, Seed: 1}

// callDeadline is each call's deadline in these tests: a stalled answer
// outlasts it. It leaves room for a machine under load.
const callDeadline = 1500 * time.Millisecond

// lossyClient returns a client of the shared server whose writes go
// through ft, with the SDK's standard retryer and short delays.
func lossyClient(t *testing.T, ft *dynamoseqtest.FaultTransport) *dynamodb.Client {
	return dynamoseqtest.Start(t).Client(dynamoseqtest.WithTransport(ft), dbtest.FastRetries())
}

// downAfterLoss is an http.RoundTripper over a FaultTransport that makes
// DynamoDB unreachable as soon as the transport has lost or held back an
// answer: every request after it is refused, as when the network goes down
// right after a write was applied.
// It counts the requests refused so.
type downAfterLoss struct {
	ft      *dynamoseqtest.FaultTransport
	down    atomic.Bool
	refused atomic.Int64
}

func (d *downAfterLoss) RoundTrip(req *http.Request) (*http.Response, error) {
	if d.down.Load() {
		d.refused.Add(1)
	}
	resp, err := d.ft.RoundTrip(req)
	if dbtest.LostAnswers(d.ft)+dbtest.Stalled(d.ft) > 0 {
		d.ft.SetUnreachable(true)
		d.down.Store(true)
	}
	return resp, err
}

// fastResolve is the retry settings of the strategies under test: short
// backoff, and a ResolveTimeout that outlasts a few stalled answers.
func fastResolve(r *dynamoseq.Retry) {
	r.ResolveTimeout = 5 * time.Second
	r.MaxDelay = 20 * time.Millisecond
}

// appendResult is what one caller of Append was told.
type appendResult struct {
	body string
	n    int64
	err  error
}

// appender is SortKey.Append or Latest.Append.
type appender func(ctx context.Context, name string, item any) (int64, error)

// appendUnique makes goroutines x each appends of unique bodies to name, each
// call with its own deadline, and returns what every caller was told.
func appendUnique(t *testing.T, appendFn appender, name string, goroutines, each int) []appendResult {
	t.Helper()
	return appendBodies(appendFn, name, name, goroutines, each, callDeadline)
}

// appendBodies makes goroutines x each appends of unique bodies (prefix,
// the goroutine and the call) to name, each call with the deadline given
// (none for 0), and returns what every caller was told.
func appendBodies(appendFn appender, name, prefix string, goroutines, each int, deadline time.Duration) []appendResult {
	var mu sync.Mutex
	var results []appendResult
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				body := fmt.Sprintf("%s/g%d/i%d", prefix, g, i)
				ctx, cancel := context.Background(), context.CancelFunc(func() {})
				if deadline > 0 {
					ctx, cancel = context.WithTimeout(ctx, deadline)
				}
				n, err := appendFn(ctx, name, map[string]types.AttributeValue{"body": &types.AttributeValueMemberS{Value: body}})
				cancel()
				mu.Lock()
				results = append(results, appendResult{body: body, n: n, err: err})
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return results
}

// checkAppends checks the promise of SortKey and Latest against the table:
// what dynamoseqtest.CheckSequence checks of the callers told a number (the
// numbers stored are 1..k with no gap; each body is stored at most once; a
// caller told n finds its body at n; Latest's newest version is what
// GetLatest returns); a caller told anything else finds its body nowhere,
// except after ErrUnknownOutcome (allowed only when unknownOK), where it
// may be at the *Error's Number and nowhere else. It logs the figures.
func checkAppends(t *testing.T, client *dynamodb.Client, table, name string, results []appendResult, unknownOK bool) {
	t.Helper()
	items := collection(t, client, table, name)
	told := map[string]int64{}
	for _, r := range results {
		if r.err == nil {
			told[r.body] = r.n
		}
	}
	dynamoseqtest.CheckSequence(t, appended(t, client, table, items), name, "body", told)
	at := map[string][]int64{}
	for n, item := range items {
		if body, ok := item["body"].(*types.AttributeValueMemberS); ok && n >= 1 {
			at[body.Value] = append(at[body.Value], n)
		}
	}
	kinds := map[string]int{}
	for _, r := range results {
		got := at[r.body]
		var e *dynamoseq.Error
		switch {
		case r.err == nil:
			kinds["ok"]++
		case errors.Is(r.err, dynamoseq.ErrUnknownOutcome):
			kinds["unknown outcome"]++
			require.True(t, unknownOK, "ErrUnknownOutcome while DynamoDB was reachable, with ResolveTimeout: %v", r.err)
			require.True(t, errors.As(r.err, &e) && e.Number > 0, "ErrUnknownOutcome without a number: %v", r.err)
			if len(got) == 1 {
				require.Equal(t, e.Number, got[0], "caller of %s told the item may be at %d", r.body, e.Number)
			}
		default:
			kinds[errorKind(r.err)]++
			require.Empty(t, got, "caller of %s told %v, but its item is stored", r.body, r.err)
		}
	}
	stored := len(items)
	if _, ok := items[0]; ok {
		stored-- // Latest's 'latest' item
	}
	t.Logf("%d calls, %d items stored (numbers 1..%d); callers told: %v", len(results), stored, stored, kinds)
}

// appended returns a reader of the items of table, written by a SortKey or
// a Latest, told apart by Latest's 'latest' item (at 0 in items). The
// Latest reads as one without transactions does, so that after writers
// without transactions GetLatest returns the newest version (and repairs
// 'latest'); after writers with transactions 'latest' is never behind, and
// it reads the same.
func appended(t *testing.T, client *dynamodb.Client, table string, items map[int64]map[string]types.AttributeValue) dynamoseq.Sequencer {
	t.Helper()
	if _, ok := items[0]; !ok {
		s, err := dynamoseq.NewSortKey(client, table)
		require.NoError(t, err)
		return s
	}
	l, err := dynamoseq.NewLatest(client, table, func(o *dynamoseq.LatestOptions) { o.NoTransactions = true })
	require.NoError(t, err)
	return l
}

// errorKind names an error for the figures.
func errorKind(err error) string {
	for _, k := range []error{context.DeadlineExceeded, context.Canceled, dynamoseq.ErrContention, dynamoseq.ErrUnknownOutcome} {
		if errors.Is(err, k) {
			return k.Error()
		}
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return "network error (" + op.Op + ")"
	}
	return "other: " + err.Error()
}

func logCounts(t *testing.T, ft *dynamoseqtest.FaultTransport) {
	t.Helper()
	t.Logf("transport: %d requests, %d answers lost, %d stalled", dbtest.Requests(ft), dbtest.LostAnswers(ft), dbtest.Stalled(ft))
}

// newAppender returns the Append of a new SortKey or Latest over table,
// with the retry settings retry sets, and without transactions if noTx.
func newAppender(t *testing.T, strategy string, client dynamoseq.Client, table string, retry func(*dynamoseq.Retry), noTx bool) appender {
	t.Helper()
	if strategy == "SortKey" {
		s, err := dynamoseq.NewSortKey(client, table, func(o *dynamoseq.SortKeyOptions) { retry(&o.Retry); o.NoTransactions = noTx })
		require.NoError(t, err)
		return s.Append
	}
	l, err := dynamoseq.NewLatest(client, table, func(o *dynamoseq.LatestOptions) { retry(&o.Retry); o.NoTransactions = noTx })
	require.NoError(t, err)
	return l.Append
}

// TestFaultsAppend: SortKey and Latest under lost and stalled answers, with
// 1 writer (SortKey's lone PutItem path) and 16 goroutines (batches). With
// ResolveTimeout set, every write is settled, past the callers' deadlines
// if need be, and no caller is told an unknown outcome; by default (the
// caller's deadline bounds the call), a caller whose answer is held past
// its deadline is told ErrUnknownOutcome with its number, and is not
// misled either.
func TestFaultsAppend(t *testing.T) {
	t.Parallel()
	defaultRetry := func(r *dynamoseq.Retry) { r.MaxDelay = 20 * time.Millisecond }
	for _, strategy := range []string{"SortKey", "Latest"} {
		for _, tt := range []struct {
			name             string
			goroutines, each int
			resolve          bool // ResolveTimeout set
		}{
			{"writers=1", 1, 40, true},
			{"goroutines=16", 16, 8, true},
			{"goroutines=16/deadline", 16, 8, false},
		} {
			t.Run(strategy+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				ft := dynamoseqtest.NewFaultTransport(lossy)
				table := dbtest.SortKeyTable(t, dbtest.Client(t), types.ScalarAttributeTypeN)
				retry := fastResolve
				if !tt.resolve {
					retry = defaultRetry
				}
				appendFn := newAppender(t, strategy, lossyClient(t, ft), table, retry, false)
				results := appendUnique(t, appendFn, "s", tt.goroutines, tt.each)
				logCounts(t, ft)
				require.Positive(t, dbtest.LostAnswers(ft), "no answer was lost: the test proves nothing")
				checkAppends(t, dbtest.Client(t), table, "s", results, !tt.resolve)
			})
		}
	}
}

// TestFaultsUnreachable: a write whose answer is lost, or held until the
// caller's deadline has passed, and DynamoDB then unreachable returns
// ErrUnknownOutcome with the number that may hold the item, after
// ResolveTimeout, joined with the caller's own context error; a write made
// while DynamoDB is unreachable returns at once, with the network error, and
// stores nothing.
func TestFaultsUnreachable(t *testing.T) {
	t.Parallel()
	faults := map[string]dynamoseqtest.Faults{
		"lost":    {LoseAnswers: 1},
		"stalled": {StallAnswers: 1, StallFor: time.Minute},
	}
	for _, strategy := range []string{"SortKey", "Latest", "SortKey/NoTransactions", "Latest/NoTransactions"} {
		for kind, f := range faults {
			t.Run(strategy+"/"+kind, func(t *testing.T) {
				t.Parallel()
				ft := dynamoseqtest.NewFaultTransport(f)
				down := &downAfterLoss{ft: ft}
				client := dynamoseqtest.Start(t).Client(dynamoseqtest.WithTransport(down), dbtest.FastRetries())
				table := dbtest.SortKeyTable(t, dbtest.Client(t), types.ScalarAttributeTypeN)
				// Resolving outlasts the caller's deadline.
				resolve := func(r *dynamoseq.Retry) {
					fastResolve(r)
					r.ResolveTimeout = callDeadline + 500*time.Millisecond
				}
				noTx := strings.HasSuffix(strategy, "/NoTransactions")
				appendFn := newAppender(t, strings.TrimSuffix(strategy, "/NoTransactions"), client, table, resolve, noTx)
				results := appendUnique(t, appendFn, "u", 1, 1)
				require.Positive(t, down.refused.Load(), "requests refused after the lost answer: none found DynamoDB unreachable")
				require.ErrorIs(t, results[0].err, dynamoseq.ErrUnknownOutcome)
				require.ErrorIs(t, results[0].err, context.DeadlineExceeded, "the caller's own deadline passed too")
				var e *dynamoseq.Error
				require.ErrorAs(t, results[0].err, &e)
				require.Equal(t, int64(1), e.Number, "the number that may hold the item")

				start := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), callDeadline)
				defer cancel()
				_, err := appendFn(ctx, "u", map[string]types.AttributeValue{"body": &types.AttributeValueMemberS{Value: "down"}})
				require.Error(t, err)
				require.NotErrorIs(t, err, dynamoseq.ErrUnknownOutcome, "nothing was sent")
				require.Less(t, time.Since(start), callDeadline, "nothing was sent, nothing to resolve")
				results = append(results, appendResult{body: "down", err: err})
				logCounts(t, ft)
				checkAppends(t, dbtest.Client(t), table, "u", results, true)
			})
		}
	}
}

// TestFaultsCounters: Counter.NextN, Block and IDMinter under lost answers
// hand out every number at most once (they are not gap-free). ErrUnknownOutcome
// appears only while DynamoDB is unreachable.
func TestFaultsCounters(t *testing.T) {
	t.Parallel()
	ft := dynamoseqtest.NewFaultTransport(lossy)
	client := lossyClient(t, ft)
	table := dbtest.CounterTable(t, dbtest.Client(t))
	c, b, m := newCounters(t, client, table)

	kinds := map[string]int{}
	var mu sync.Mutex
	seen := map[string]bool{}
	record := func(what string, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			if errors.Is(err, dynamoseq.ErrUnknownOutcome) {
				t.Errorf("ErrUnknownOutcome while DynamoDB was reachable: %v", err)
			}
			kinds[strings.Fields(what)[0]+": "+errorKind(err)]++
			return
		}
		kinds[strings.Fields(what)[0]+": ok"]++
		if seen[what] {
			t.Errorf("%s handed out twice", what)
		}
		seen[what] = true
	}
	fanOut(t, 16, 10, func(g, i int) (struct{}, error) {
		ctx, cancel := context.WithTimeout(context.Background(), callDeadline)
		defer cancel()
		first, err := c.NextN(ctx, "n", 3)
		record(fmt.Sprintf("counter %d", first), err)
		for k := int64(1); k < 3 && err == nil; k++ {
			record(fmt.Sprintf("counter %d", first+k), nil)
		}
		n, err := b.Next(ctx, "b")
		record(fmt.Sprintf("block %d", n), err)
		id, err := m.Next(ctx, "o")
		record("id "+id, err)
		return struct{}{}, nil
	})
	logCounts(t, ft)
	t.Logf("callers told: %v", kinds)
	require.Positive(t, dbtest.LostAnswers(ft), "no answer was lost: the test proves nothing")

	// Unreachable after a lost answer: the update may have been applied.
	ft2 := dynamoseqtest.NewFaultTransport(dynamoseqtest.Faults{LoseAnswers: 1})
	c2, err := dynamoseq.NewCounter(dynamoseqtest.Start(t).Client(dynamoseqtest.WithTransport(&downAfterLoss{ft: ft2}), dbtest.FastRetries()), table)
	require.NoError(t, err)
	_, err = c2.Next(context.Background(), "n")
	require.ErrorIs(t, err, dynamoseq.ErrUnknownOutcome)
	var e *dynamoseq.Error
	require.ErrorAs(t, err, &e)
	require.Zero(t, e.Number)
	// Unreachable from the start: nothing sent, a plain network error.
	_, err = c2.Next(context.Background(), "n")
	require.Error(t, err)
	require.NotErrorIs(t, err, dynamoseq.ErrUnknownOutcome)
}

// newCounters returns a Counter over table, a Block of 5 over it (closed
// when the test ends) and a daily IDMinter over it.
func newCounters(t *testing.T, client dynamoseq.Client, table string) (*dynamoseq.Counter, *dynamoseq.Block, *dynamoseq.IDMinter) {
	t.Helper()
	c, err := dynamoseq.NewCounter(client, table)
	require.NoError(t, err)
	b, err := dynamoseq.NewBlock(c, 5)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	m, err := dynamoseq.NewIDMinter(c, dynamoseq.Format{Prefix: "ORD", DateLayout: "060102", Separator: "-", Width: 6}, dynamoseq.Daily)
	require.NoError(t, err)
	return c, b, m
}
