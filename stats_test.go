package dynamoseq_test

import (
	"context"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// TestCounterStats causes each event a Counter counts and checks its figures.
func TestCounterStats(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, client, _ := newCounter(t, func(o *dynamoseq.CounterOptions) { o.MaxValue = 10 })
	_, err := c.Next(ctx, "orders")
	require.NoError(t, err)
	_, err = c.NextN(ctx, "orders", 5)
	require.NoError(t, err)
	_, err = c.NextN(ctx, "orders", 5)
	require.ErrorIs(t, err, dynamoseq.ErrExhausted, "NextN past MaxValue")
	_, err = c.Current(ctx, "never")
	require.ErrorIs(t, err, dynamoseq.ErrNotFound)
	_, err = c.Next(ctx, "")
	require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument)
	ended, cancel := context.WithCancel(ctx)
	cancel()
	_, err = c.AdvanceTo(ended, "orders", 8)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, dynamoseq.CounterFigures{
		Calls:      6,
		Numbers:    6,
		RoundTrips: 4, // the empty name and the ended context send nothing
		Errors:     dynamoseq.ErrorFigures{Exhausted: 1, NotFound: 1, InvalidArgument: 1, Canceled: 1},
	}, c.Figures())

	missing, err := dynamoseq.NewCounter(client, "no_such_table")
	require.NoError(t, err)
	_, err = missing.Next(ctx, "orders")
	require.ErrorIs(t, err, dynamoseq.ErrTableNotFound)
	assert.Equal(t, dynamoseq.ErrorFigures{TableNotFound: 1}, missing.Figures().Errors)
	assert.Equal(t, int64(1), missing.Figures().Errors.Total())
}

// TestBlockStatsWaits makes callers wait for slow leases, and a lease fail.
func TestBlockStatsWaits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := dbtest.Client(t)
	table := dbtest.CounterTable(t, client)
	faulty := &faultyClient{Client: client}
	const delay = 20 * time.Millisecond
	c, err := dynamoseq.NewCounter(&slowClient{Client: faulty, delay: delay}, table)
	require.NoError(t, err)
	b := newBlock(t, c, 10, func(o *dynamoseq.BlockOptions) { o.MaxSize = 10 })

	// 4 goroutines wait for the first lease, then draw 3 ranges flat out:
	// every caller that finds a range used up waits for the next.
	got := drawBlock(t, b, "orders", 4, 10)
	requireDistinct(t, slices.Concat(got...))
	st := b.Figures()
	assert.Equal(t, int64(40), st.Numbers, "Numbers")
	assert.Equal(t, int64(40), st.Calls, "Calls")
	assert.GreaterOrEqual(t, st.Leases, int64(4), "Leases")
	assert.Equal(t, 10*st.Leases, st.LeasedNumbers, "LeasedNumbers")
	assert.Equal(t, st.Leases, st.RoundTrips, "RoundTrips")
	assert.GreaterOrEqual(t, st.Waits, int64(4), "Waits: at least the 4 first calls")
	assert.GreaterOrEqual(t, st.WaitTime, time.Duration(st.Waits)*delay/2, "WaitTime")
	assert.GreaterOrEqual(t, st.MaxLeaseTime, delay, "MaxLeaseTime")
	assert.GreaterOrEqual(t, st.LeaseTime, time.Duration(st.Leases)*delay, "LeaseTime")
	assert.LessOrEqual(t, st.MaxLeaseTime, st.LeaseTime, "MaxLeaseTime against LeaseTime")
	assert.Zero(t, st.Errors.Total(), "Errors")

	// A failing lease: the callers that wait for it get its error.
	waitFor(t, func() bool { return b.Figures().LeasedNumbers == st.Numbers+10 }) // the range leased in advance
	faulty.fail.Store(true)
	for range 10 {
		_, err := b.Next(ctx, "orders")
		require.NoError(t, err)
	}
	_, err = b.Next(ctx, "orders")
	require.ErrorIs(t, err, errInjected)
	st = b.Figures()
	assert.GreaterOrEqual(t, st.FailedLeases, int64(1), "FailedLeases")
	assert.Equal(t, dynamoseq.ErrorFigures{Other: 1}, st.Errors, "Errors")
	assert.Equal(t, st.Numbers+1, st.Calls, "Calls")
}

// TestBlockStatsExhausted counts the callers that find the counter at its
// maximum, and the numbers Close abandons.
func TestBlockStatsExhausted(t *testing.T) {
	t.Parallel()
	c, _, _ := newCounter(t, func(o *dynamoseq.CounterOptions) { o.MaxValue = 15 })
	b := newBlock(t, c, 10)
	for range 10 {
		_, err := b.Next(context.Background(), "tickets")
		require.NoError(t, err)
	}
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := b.Next(context.Background(), "tickets")
			assert.ErrorIs(t, err, dynamoseq.ErrExhausted)
		}()
	}
	wg.Wait()
	st := b.Figures()
	assert.Equal(t, int64(3), st.Errors.Exhausted, "Errors.Exhausted")
	assert.Equal(t, int64(13), st.Calls, "Calls")
	assert.Equal(t, int64(10), st.Numbers, "Numbers")
	assert.Equal(t, int64(1), st.Leases, "Leases")
	assert.GreaterOrEqual(t, st.FailedLeases, int64(1), "FailedLeases")
}

// waitFor waits until cond holds, up to the test's deadline (giveUpAt).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	if !pollUntil(t, cond) {
		t.Fatalf("waited until %v, near the test's deadline: the condition never held", giveUpAt(t).Format(time.TimeOnly))
	}
}

// TestSortKeyStats: a cold write, a race lost to another process and won
// on the retry, a bad name, a read.
func TestSortKeyStats(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, client, table := newSortKey(t)
	other, err := dynamoseq.NewSortKey(client, table) // another process
	require.NoError(t, err)
	for i, w := range []*dynamoseq.SortKey{s, other, s} {
		n, err := w.Append(ctx, "orders", ticket{Seq: i})
		require.NoError(t, err)
		require.Equal(t, int64(i+1), n, "Append %d", i)
	}
	_, err = s.Next(ctx, "")
	require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument)
	_, err = s.Last(ctx, "orders")
	require.NoError(t, err)
	assert.Equal(t, dynamoseq.AppendFigures{
		Calls:   3, // two Appends and the bad Next; Last is not counted
		Numbers: 2,
		Errors:  dynamoseq.ErrorFigures{InvalidArgument: 1},
		// Query and Put when cold; the lost Put (from a hint of its own
		// win, so a Query follows) and Put; Last.
		RoundTrips: 6, Reads: 3, Puts: 3,
		Batches: 2, BatchedCalls: 2, MaxBatch: 1,
		LostRaces: 1, Retries: 1,
		Turns: 1, // having met another writer, its win started a turn (see internal/engine/turns.go)
	}, s.Figures())
}

// slowPuts is a client whose PutItems take d longer, as from a process far
// from DynamoDB: its turns last longer.
type slowPuts struct {
	dynamoseq.Client
	d time.Duration
}

func (c slowPuts) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	time.Sleep(c.d)
	return c.Client.PutItem(ctx, in, optFns...)
}

// TestSortKeyStatsTurnWait: a writer that loses a race to an item written
// in another writer's turn waits for the turn to end, and counts the wait.
func TestSortKeyStatsTurnWait(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, client, table := newSortKey(t)
	a, err := dynamoseq.NewSortKey(slowPuts{client, 25 * time.Millisecond}, table) // turns of about 50ms
	require.NoError(t, err)
	for i, w := range []*dynamoseq.SortKey{b, a, b, a, b} {
		// b's hint is its own last number each time: it loses to a's
		// item, and then a loses to b's. After its lost race, a's write
		// starts a turn; b's next write loses to it, reads the turn
		// from the refused write's item and waits for it to end.
		n, err := w.Append(ctx, "orders", ticket{Seq: i})
		require.NoError(t, err)
		require.Equal(t, int64(i+1), n, "Append %d", i)
	}
	assert.Positive(t, a.Figures().Turns, "a's turns")
	st := b.Figures()
	// One wait for a's turn; and when b's own turn (after its lost race)
	// had ended by its next write, the pause that lets the others go first.
	assert.Contains(t, []int64{1, 2}, st.TurnWaits, "b's waits for a turn")
	// How long b waited depends on how long the machine took between the
	// calls: a stall longer than a's turn leaves nothing to wait (0 s, in
	// 1 run in 4 at load 13). TestStatsTurnWaits checks the sum itself.
	t.Logf("b waited %v in %d waits", st.TurnWait, st.TurnWaits)
}

// TestSortKeyStatsBatch: calls that queue behind a write are written
// together in the next one.
func TestSortKeyStatsBatch(t *testing.T) {
	t.Parallel()
	s, gate, _, _ := newGatedSortKey(t)
	_, errs := appendQueued(t, s.Append, gate, "batch", []any{ticket{Seq: 1}, ticket{Seq: 2}, ticket{Seq: 3}, ticket{Seq: 4}})
	for i, err := range errs {
		require.NoError(t, err, "call %d", i)
	}
	assert.Equal(t, dynamoseq.AppendFigures{
		Calls: 4, Numbers: 4,
		RoundTrips: 3, Reads: 1, Puts: 1, Transactions: 1,
		Batches: 2, BatchedCalls: 4, MaxBatch: 3,
	}, s.Figures())
}

// TestSortKeyStatsContention: a writer that loses every race, each time
// learning from the refused Put where to write next, until ErrContention.
func TestSortKeyStatsContention(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	table := dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN)
	s, err := dynamoseq.NewSortKey(&rivalClient{Client: client}, table, func(o *dynamoseq.SortKeyOptions) { o.MaxAttempts = 3 })
	require.NoError(t, err)
	_, err = s.Append(context.Background(), "hot", ticket{Title: "mine"})
	require.ErrorIs(t, err, dynamoseq.ErrContention)
	assert.Equal(t, dynamoseq.AppendFigures{
		Calls:  1,
		Errors: dynamoseq.ErrorFigures{Contention: 1},
		// A Query when cold, then three Puts.
		RoundTrips: 4, Reads: 1, Puts: 3,
		Batches: 1, BatchedCalls: 1, MaxBatch: 1,
		LostRaces: 3, Retries: 2,
	}, s.Figures())
}

// TestLatestStats: a cold write, a race lost to another process and won on
// the retry (with the version returned by the failed condition, no read), a
// bad name, a read.
func TestLatestStats(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// A backoff far shorter than a transaction, so that the retry trusts
	// the returned version.
	l, client, table := newLatest(t, latestLayouts[0], nil, func(o *dynamoseq.LatestOptions) { o.BaseDelay = time.Nanosecond })
	other, err := dynamoseq.NewLatest(client, table) // another process
	require.NoError(t, err)
	for i, w := range []*dynamoseq.Latest{l, other, l} {
		v, err := w.Append(ctx, "doc", page{ID: strconv.Itoa(i)})
		require.NoError(t, err)
		require.Equal(t, int64(i+1), v, "Append %d", i)
	}
	_, err = l.Next(ctx, "")
	require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument)
	var p page
	_, err = l.GetLatest(ctx, "doc", &p)
	require.NoError(t, err)
	assert.Equal(t, dynamoseq.AppendFigures{
		Calls:   3, // two Appends and the bad Next; GetLatest is not counted
		Numbers: 2,
		Errors:  dynamoseq.ErrorFigures{InvalidArgument: 1},
		// GetItem and transaction when cold; the lost transaction and
		// the retry; GetLatest.
		RoundTrips: 5, Reads: 2, Transactions: 3,
		Batches: 2, BatchedCalls: 2, MaxBatch: 1,
		LostRaces: 1, Retries: 1,
		Turns: 1, // having met another writer, its win started a turn (see internal/engine/turns.go)
	}, l.Figures())
}

// TestLatestStatsBatch: appends that queue behind a transaction are
// written together in the next one.
func TestLatestStatsBatch(t *testing.T) {
	t.Parallel()
	gate := &gateClient{release: make(chan struct{})}
	l, _, _ := newLatest(t, latestLayouts[0], func(c dynamoseq.Client) dynamoseq.Client {
		gate.Client = c
		return gate
	})
	_, errs := appendQueued(t, l.Append, gate, "doc", []any{page{ID: "1"}, page{ID: "2"}, page{ID: "3"}, page{ID: "4"}})
	for i, err := range errs {
		require.NoError(t, err, "call %d", i)
	}
	assert.Equal(t, dynamoseq.AppendFigures{
		Calls: 4, Numbers: 4,
		RoundTrips: 3, Reads: 1, Transactions: 2,
		Batches: 2, BatchedCalls: 4, MaxBatch: 3,
	}, l.Figures())
}

// TestLatestStatsContention: with MaxAttempts 1, one race lost to another
// process is ErrContention.
func TestLatestStatsContention(t *testing.T) {
	t.Parallel()
	l, _ := newRacyLatest(t, 1)
	_, err := l.Append(context.Background(), "doc1", page{ID: "loser"})
	require.ErrorIs(t, err, dynamoseq.ErrContention)
	assert.Equal(t, dynamoseq.AppendFigures{
		Calls:      1,
		Errors:     dynamoseq.ErrorFigures{Contention: 1},
		RoundTrips: 2, Reads: 1, Transactions: 1,
		Batches: 1, BatchedCalls: 1, MaxBatch: 1,
		LostRaces: 1,
	}, l.Figures())
}

// TestAppendStatsUnknownOutcome: a write whose answer is lost, and DynamoDB
// then unreachable, is sent again until ResolveTimeout and ends with
// ErrUnknownOutcome.
func TestAppendStatsUnknownOutcome(t *testing.T) {
	t.Parallel()
	for _, strategy := range []string{"SortKey", "Latest"} {
		t.Run(strategy, func(t *testing.T) {
			t.Parallel()
			ft := dynamoseqtest.NewFaultTransport(dynamoseqtest.Faults{LoseAnswers: 1})
			client := lossyClient(t, ft)
			table := dbtest.SortKeyTable(t, dbtest.Client(t), types.ScalarAttributeTypeN)
			retry := dynamoseq.Retry{ResolveTimeout: 300 * time.Millisecond, MaxDelay: 20 * time.Millisecond}
			var appendFn appender
			var stats func() dynamoseq.AppendFigures
			if strategy == "SortKey" {
				s, err := dynamoseq.NewSortKey(client, table, func(o *dynamoseq.SortKeyOptions) { o.Retry = retry })
				require.NoError(t, err)
				appendFn, stats = s.Append, func() dynamoseq.AppendFigures { return s.Figures() }
			} else {
				l, err := dynamoseq.NewLatest(client, table, func(o *dynamoseq.LatestOptions) { o.Retry = retry })
				require.NoError(t, err)
				appendFn, stats = l.Append, func() dynamoseq.AppendFigures { return l.Figures() }
			}
			errc := make(chan error)
			go func() {
				_, err := appendFn(context.Background(), "u", ticket{Title: "lost"})
				errc <- err
			}()
			waitFor(t, func() bool { return dbtest.LostAnswers(ft) > 0 })
			ft.SetUnreachable(true)
			require.ErrorIs(t, <-errc, dynamoseq.ErrUnknownOutcome)

			st := stats()
			require.Positive(t, st.Resends, "Resends")
			want := dynamoseq.AppendFigures{
				Calls:  1,
				Errors: dynamoseq.ErrorFigures{UnknownOutcome: 1},
				// The first write and its resends, after a read.
				RoundTrips: 2 + st.Resends, Reads: 1,
				Batches: 1, BatchedCalls: 1, MaxBatch: 1,
				Resends: st.Resends,
			}
			if strategy == "SortKey" {
				want.Puts = 1 + st.Resends
			} else {
				want.Transactions = 1 + st.Resends
			}
			assert.Equal(t, want, st)
		})
	}
}
