package dynamoseq_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/dbtest"
)

// TestCounterStats causes each event a Counter counts and checks its figures.
func TestCounterStats(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, client, _ := newCounter(t, func(o *dynamoseq.Options) { o.MaxValue = 10 })
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
	assert.Equal(t, dynamoseq.CounterStats{
		Calls:      6,
		Numbers:    6,
		RoundTrips: 4, // the empty name and the ended context send nothing
		Errors:     dynamoseq.ErrorStats{Exhausted: 1, NotFound: 1, InvalidArgument: 1, Canceled: 1},
	}, c.Stats())

	missing, err := dynamoseq.NewCounter(client, "no_such_table")
	require.NoError(t, err)
	_, err = missing.Next(ctx, "orders")
	require.ErrorIs(t, err, dynamoseq.ErrTableNotFound)
	assert.Equal(t, dynamoseq.ErrorStats{TableNotFound: 1}, missing.Stats().Errors)
	assert.Equal(t, int64(1), missing.Stats().Errors.Total())
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
	b := newBlock(t, c, 10, func(o *dynamoseq.Options) { o.MaxBlockSize = 10 })

	// 4 goroutines wait for the first lease, then draw 3 ranges flat out:
	// every caller that finds a range used up waits for the next.
	got := drawBlock(t, b, "orders", 4, 10)
	requireDistinct(t, slices.Concat(got...))
	st := b.Stats()
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
	waitFor(t, func() bool { return b.Stats().LeasedNumbers == st.Numbers+10 }) // the range leased in advance
	faulty.fail.Store(true)
	for range 10 {
		_, err := b.Next(ctx, "orders")
		require.NoError(t, err)
	}
	_, err = b.Next(ctx, "orders")
	require.ErrorIs(t, err, errInjected)
	st = b.Stats()
	assert.GreaterOrEqual(t, st.FailedLeases, int64(1), "FailedLeases")
	assert.Equal(t, dynamoseq.ErrorStats{Other: 1}, st.Errors, "Errors")
	assert.Equal(t, st.Numbers+1, st.Calls, "Calls")
}

// TestBlockStatsExhausted counts the callers that find the counter at its
// maximum, and the numbers Close abandons.
func TestBlockStatsExhausted(t *testing.T) {
	t.Parallel()
	c, _, _ := newCounter(t, func(o *dynamoseq.Options) { o.MaxValue = 15 })
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
	st := b.Stats()
	assert.Equal(t, int64(3), st.Errors.Exhausted, "Errors.Exhausted")
	assert.Equal(t, int64(13), st.Calls, "Calls")
	assert.Equal(t, int64(10), st.Numbers, "Numbers")
	assert.Equal(t, int64(1), st.Leases, "Leases")
	assert.GreaterOrEqual(t, st.FailedLeases, int64(1), "FailedLeases")
}

// waitFor waits until cond holds, for at most 10 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	require.Eventually(t, cond, 10*time.Second, time.Millisecond)
}
