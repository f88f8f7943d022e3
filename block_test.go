package dynamoseq_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

func newBlock(t *testing.T, c *dynamoseq.Counter, size int64, optFns ...func(*dynamoseq.BlockOptions)) *dynamoseq.Block {
	t.Helper()
	b, err := dynamoseq.NewBlock(c, size, optFns...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// drawBlock calls Next from goroutines goroutines, each times, and returns
// what each goroutine got, in order. It stops a goroutine at its first error.
func drawBlock(t *testing.T, b *dynamoseq.Block, name string, goroutines, each int) [][]int64 {
	t.Helper()
	return fanOut(t, goroutines, each, func(int, int) (int64, error) {
		return b.Next(context.Background(), name)
	})
}

// requireDistinct checks that no value occurs twice in vs, which it sorts.
func requireDistinct(t *testing.T, vs []int64) {
	t.Helper()
	slices.Sort(vs)
	for i := 1; i < len(vs); i++ {
		if vs[i] == vs[i-1] {
			t.Fatalf("value %d handed out twice", vs[i])
		}
	}
}

// requireIncreasing checks that each goroutine saw strictly increasing values.
func requireIncreasing(t *testing.T, got [][]int64) {
	t.Helper()
	for g, vs := range got {
		for i := 1; i < len(vs); i++ {
			if vs[i] <= vs[i-1] {
				t.Fatalf("goroutine %d: Next() = %d after %d, want a larger value", g, vs[i], vs[i-1])
			}
		}
	}
}

func TestBlockNextInOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		start, step int64
		size        int64
	}{
		{"defaults", 1, 1, 10},
		{"size 1", 1, 1, 1},
		{"start and step", 1000, 10, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, _, _ := newCounter(t, func(o *dynamoseq.CounterOptions) { o.Start, o.Step = tt.start, tt.step })
			b := newBlock(t, c, tt.size)
			// One Block alone on a counter leases consecutive ranges, so
			// one goroutine sees the sequence itself.
			for i := range int64(35) {
				v, err := b.Next(context.Background(), "orders")
				require.NoError(t, err)
				if want := tt.start + i*tt.step; v != want {
					t.Fatalf("Next() = %d, want %d", v, want)
				}
			}
			other, err := b.Next(context.Background(), "other")
			require.NoError(t, err)
			assert.Equal(t, tt.start, other, "Next(other): names are separate sequences")
		})
	}
}

// TestBlockIncreasing checks the order a Block promises: a Next that starts
// after another returned gets a larger number, whichever goroutines make
// them. Small ranges make the goroutines cross from range to range often.
func TestBlockIncreasing(t *testing.T) {
	t.Parallel()
	for _, size := range []int64{1, 3, 64} {
		t.Run(fmt.Sprintf("size=%d", size), func(t *testing.T) {
			t.Parallel()
			c, _, _ := newCounter(t)
			b := newBlock(t, c, size)
			var done atomic.Int64 // the largest number of the calls that returned
			got := fanOut(t, 8, 300, func(int, int) (int64, error) {
				before := done.Load()
				v, err := b.Next(context.Background(), "s")
				if err != nil {
					return 0, err
				}
				if v <= before {
					return 0, fmt.Errorf("Next() = %d after a call that returned %d, want a larger value", v, before)
				}
				for old := done.Load(); v > old && !done.CompareAndSwap(old, v); old = done.Load() {
				}
				return v, nil
			})
			requireDistinct(t, slices.Concat(got...))
		})
	}
}

// TestBlockTwoBlocks runs two Blocks over the same counter and name, as two
// processes would have them.
func TestBlockTwoBlocks(t *testing.T) {
	t.Parallel()
	c1, client, table := newCounter(t)
	c2, err := dynamoseq.NewCounter(client, table)
	require.NoError(t, err)
	const goroutines, each = 8, 100_000
	var got [2][][]int64
	var wg sync.WaitGroup
	for i, c := range []*dynamoseq.Counter{c1, c2} {
		b := newBlock(t, c, 2000)
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = drawBlock(t, b, "events", goroutines, each)
		}()
	}
	wg.Wait()
	require.False(t, t.Failed())
	requireIncreasing(t, got[0])
	requireIncreasing(t, got[1])
	all := slices.Concat(slices.Concat(got[0]...), slices.Concat(got[1]...))
	require.Len(t, all, 2*goroutines*each)
	requireDistinct(t, all)
	cur, err := c1.Current(context.Background(), "events")
	require.NoError(t, err)
	assert.GreaterOrEqual(t, all[0], int64(1), "smallest value")
	assert.LessOrEqual(t, all[len(all)-1], cur, "largest value against the counter")
}

func init() {
	helpers["block-next"] = func(t *testing.T) {
		c, err := dynamoseq.NewCounter(dbtest.Client(t), os.Getenv("TABLE"))
		require.NoError(t, err)
		b, err := dynamoseq.NewBlock(c, 2000)
		require.NoError(t, err)
		defer b.Close()
		goroutines, _ := strconv.Atoi(os.Getenv("GOROUTINES"))
		each, _ := strconv.Atoi(os.Getenv("EACH"))
		got := drawBlock(t, b, "events", goroutines, each)
		requireIncreasing(t, got)
		// The values come from few ranges: print them as runs of
		// consecutive numbers. A value handed out twice starts a run that
		// overlaps the one before, which the parent sees.
		w := bufio.NewWriter(os.Stdout)
		defer w.Flush()
		all := slices.Concat(got...)
		slices.Sort(all)
		for i := 0; i < len(all); {
			j := i + 1
			for j < len(all) && all[j] == all[j-1]+1 {
				j++
			}
			fmt.Fprintf(w, "run %d %d\n", all[i], all[j-1])
			i = j
		}
	}
}

func TestBlockProcesses(t *testing.T) {
	t.Parallel()
	_, _, table := newCounter(t)
	const processes, goroutines, each = 2, 8, 100_000
	outs := dbtest.RunProcesses(t, processes, "block-next",
		"TABLE="+table, "GOROUTINES="+strconv.Itoa(goroutines), "EACH="+strconv.Itoa(each))
	type run struct{ first, last int64 }
	var runs []run
	for _, out := range outs {
		for _, l := range dbtest.Lines(out, "run ") {
			var r run
			_, err := fmt.Sscanf(l, "%d %d", &r.first, &r.last)
			require.NoError(t, err, "line %q", l)
			runs = append(runs, r)
		}
	}
	slices.SortFunc(runs, func(a, b run) int { return int(a.first - b.first) })
	var count int64
	for i, r := range runs {
		if i > 0 && r.first <= runs[i-1].last {
			t.Fatalf("values %d..%d and %d..%d overlap: handed out twice", runs[i-1].first, runs[i-1].last, r.first, r.last)
		}
		count += r.last - r.first + 1
	}
	assert.Equal(t, int64(processes*goroutines*each), count, "count of values")
}

// faultyClient is the real client with UpdateItem failing on demand.
type faultyClient struct {
	dynamoseq.Client
	fail    atomic.Bool
	updates atomic.Int64 // UpdateItem calls that reached DynamoDB
	mu      sync.Mutex   // protects sizes
	sizes   []int64      // the :n of every UpdateItem that reached DynamoDB
}

var errInjected = errors.New("injected failure")

func (f *faultyClient) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if f.fail.Load() {
		return nil, errInjected
	}
	f.updates.Add(1)
	if n, ok := in.ExpressionAttributeValues[":n"].(*types.AttributeValueMemberN); ok {
		v, _ := strconv.ParseInt(n.Value, 10, 64)
		f.mu.Lock()
		f.sizes = append(f.sizes, v)
		f.mu.Unlock()
	}
	return f.Client.UpdateItem(ctx, in, optFns...)
}

func (f *faultyClient) leaseSizes() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sizes)
}

func TestBlockRefillFailure(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	table := dbtest.CounterTable(t, client)
	faulty := &faultyClient{Client: client}
	c, err := dynamoseq.NewCounter(faulty, table)
	require.NoError(t, err)
	b := newBlock(t, c, 10, func(o *dynamoseq.BlockOptions) { o.MaxSize = 10 }) // fixed size
	ctx := context.Background()

	var got []int64
	v, err := b.Next(ctx, "orders")
	require.NoError(t, err)
	got = append(got, v)

	// The background lease fails; the range in memory still serves 2..10.
	faulty.fail.Store(true)
	for want := int64(2); want <= 10; want++ {
		v, err := b.Next(ctx, "orders")
		require.NoError(t, err)
		require.Equal(t, want, v, "Next() while leases fail")
		got = append(got, v)
	}

	// Callers that need a number get the error, all of them.
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = b.Next(ctx, "orders")
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.ErrorIs(t, err, errInjected)
		var e *dynamoseq.Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, "Block.Next", e.Op)
		assert.Equal(t, table, e.Table)
		assert.Equal(t, "orders", e.Sequence)
		assert.Equal(t, fmt.Sprintf(`dynamoseq: Block.Next: table %q, sequence "orders": lease of 10 numbers: UpdateItem: injected failure`, table), err.Error())
	}

	// The next call tries again and recovers; the failed leases reserved
	// nothing, so it continues at 11.
	faulty.fail.Store(false)
	v, err = b.Next(ctx, "orders")
	require.NoError(t, err)
	assert.Equal(t, int64(11), v, "Next() after the failure")
	got = append(got, v)
	for _, vs := range drawBlock(t, b, "orders", 4, 50) {
		got = append(got, vs...)
	}
	requireDistinct(t, got)
}

// TestBlockMergesLeases checks that callers who need a number at once share
// one lease: no range is leased that is not used, but the last in advance.
func TestBlockMergesLeases(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	table := dbtest.CounterTable(t, client)
	counting := &faultyClient{Client: client}
	c, err := dynamoseq.NewCounter(counting, table)
	require.NoError(t, err)
	b := newBlock(t, c, 10, func(o *dynamoseq.BlockOptions) { o.MaxSize = 10 }) // fixed size
	got := slices.Concat(drawBlock(t, b, "s", 16, 50)...)
	requireDistinct(t, got)
	assert.Equal(t, []int64{1, 800}, []int64{got[0], got[len(got)-1]}, "smallest and largest value")
	// Counted before Close, which hands back the numbers of a range leased
	// in advance with one more UpdateItem.
	leases := counting.updates.Load()
	require.NoError(t, b.Close())
	if leases != 80 && leases != 81 {
		t.Errorf("%d leases for 800 numbers in ranges of 10, want 80 (81 with the next range leased in advance)", leases)
	}
}

func TestBlockExhausted(t *testing.T) {
	t.Parallel()
	c, _, _ := newCounter(t, func(o *dynamoseq.CounterOptions) { o.MaxValue = 25 })
	b := newBlock(t, c, 10)
	ctx := context.Background()
	for want := int64(1); want <= 20; want++ {
		v, err := b.Next(ctx, "tickets")
		require.NoError(t, err)
		require.Equal(t, want, v)
	}
	// 21..25 do not make a whole range.
	for range 2 {
		_, err := b.Next(ctx, "tickets")
		require.ErrorIs(t, err, dynamoseq.ErrExhausted)
	}
}

func TestBlockAdaptiveSize(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	table := dbtest.CounterTable(t, client)
	faulty := &faultyClient{Client: client}
	c, err := dynamoseq.NewCounter(faulty, table)
	require.NoError(t, err)

	// A clock that moves only when told.
	var mu sync.Mutex
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	tick := time.Duration(0)
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(tick)
		return now
	}
	setTick := func(d time.Duration) {
		mu.Lock()
		tick = d
		mu.Unlock()
	}
	b := newBlock(t, c, 100, func(o *dynamoseq.BlockOptions) {
		o.MaxSize = 10_000
		o.MinSize, o.Lifetime = 10, time.Second
		dynamoseq.BlockClock(clock)(o)
	})
	ctx := context.Background()
	draw := func(n int) {
		for range n {
			_, err := b.Next(ctx, "s")
			require.NoError(t, err)
		}
	}
	waitLeases := func(n int) {
		t.Helper()
		waitFor(t, func() bool { return len(faulty.leaseSizes()) >= n })
	}

	// Numbers used in no time: the next range is as large as allowed.
	draw(100)
	waitLeases(2)
	assert.Equal(t, []int64{100, 10_000}, faulty.leaseSizes())

	// 5,000 numbers an hour: a range for a second is the smallest allowed.
	setTick(time.Hour) // each reading of the clock moves it an hour
	draw(10_000)
	waitLeases(3)
	assert.Equal(t, []int64{100, 10_000, 10}, faulty.leaseSizes())

	// 600 numbers a second (6 in 10ms): ranges of 600.
	setTick(10 * time.Millisecond)
	draw(6)
	waitLeases(4)
	assert.Equal(t, []int64{100, 10_000, 10, 600}, faulty.leaseSizes())
}

func TestBlockClose(t *testing.T) {
	t.Parallel()
	c, _, _ := newCounter(t)
	b, err := dynamoseq.NewBlock(c, 100)
	require.NoError(t, err)
	v, err := b.Next(context.Background(), "orders")
	require.NoError(t, err)
	assert.Equal(t, int64(1), v)
	require.NoError(t, b.Close())
	require.NoError(t, b.Close(), "second Close")
	_, err = b.Next(context.Background(), "orders")
	require.ErrorIs(t, err, dynamoseq.ErrClosed)
	assert.Contains(t, err.Error(), `Block.Next: table`)
	_, err = b.Next(context.Background(), "fresh")
	require.ErrorIs(t, err, dynamoseq.ErrClosed)
}

// blockGoroutines counts the goroutines running code of a Block.
func blockGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "dynamoseq.(*Block)")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// slowClient delays every UpdateItem, or holds it until its context ends
// when stall is set, as a network that stopped answering would.
type slowClient struct {
	dynamoseq.Client
	delay time.Duration
	stall atomic.Bool
	held  atomic.Int64 // calls held now
}

func (s *slowClient) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if s.stall.Load() {
		s.held.Add(1)
		defer s.held.Add(-1)
		<-ctx.Done()
		return nil, fmt.Errorf("slow client: %w", ctx.Err())
	}
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return nil, fmt.Errorf("slow client: %w", ctx.Err())
	}
	return s.Client.UpdateItem(ctx, in, optFns...)
}

// TestBlockCloseUnderLoad is not parallel: it counts the goroutines of the
// whole test binary.
func TestBlockCloseUnderLoad(t *testing.T) {
	transport := &http.Transport{}
	client := dynamodb.New(dbtest.Client(t).Options(), func(o *dynamodb.Options) {
		o.HTTPClient = &http.Client{Transport: transport}
	})
	table := dbtest.CounterTable(t, client)
	before := runtime.NumGoroutine()

	slow := &slowClient{Client: client, delay: time.Millisecond}
	const refillTimeout = 2 * time.Second // bounds the hand-backs at Close too
	c, err := dynamoseq.NewCounter(slow, table)
	require.NoError(t, err)
	b, err := dynamoseq.NewBlock(c, 100, func(o *dynamoseq.BlockOptions) { o.RefillTimeout = refillTimeout })
	require.NoError(t, err)
	callers := startBlockCallers(b, 8)

	// Run until each name has gone through several ranges.
	cur := func(name string) int64 { v, _ := c.Current(context.Background(), name); return v }
	if !pollUntil(t, func() bool { return cur("a") > 1000 && cur("b") > 1000 }) {
		t.Fatalf("Current(a) = %d, Current(b) = %d near the test's deadline, want both > 1000; %d callers stopped early, %d leases outlived RefillTimeout",
			cur("a"), cur("b"), callers.stopped.Load(), callers.timedOut.Load())
	}
	slow.stall.Store(true) // leases in flight at Close never answer
	require.True(t, pollUntil(t, func() bool { return slow.held.Load() > 0 }),
		"a lease held in flight, to Close with; none came up to the test's deadline (%d callers stopped early)", callers.stopped.Load())
	start := time.Now()
	err = b.Close()
	took := time.Since(start)
	t.Logf("Close took %v, RefillTimeout %v; %d leases outlived RefillTimeout before the stall", took, refillTimeout, callers.timedOut.Load())
	assert.Less(t, took, refillTimeout+time.Second, "Close with a lease in flight and hand-backs that never get an answer")
	if err != nil { // numbers were left to hand back, and the stalled network never answered
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Contains(t, err.Error(), "Block.Close")
	}
	callers.wg.Wait()
	require.NoError(t, b.Close(), "second Close")
	assert.Zero(t, blockGoroutines(), "goroutines of the Block right after Close")

	for g, err := range callers.errs {
		require.ErrorIs(t, err, dynamoseq.ErrClosed, "goroutine %d", g)
	}
	for _, names := range [][]int{{0, 2, 4, 6}, {1, 3, 5, 7}} {
		var all []int64
		for _, g := range names {
			all = append(all, callers.got[g]...)
		}
		require.NotEmpty(t, all)
		requireDistinct(t, all)
	}

	after := runtime.NumGoroutine()
	pollUntil(t, func() bool {
		transport.CloseIdleConnections()
		after = runtime.NumGoroutine()
		return after <= before
	})
	assert.LessOrEqual(t, after, before, "goroutines after Close (before the Block), once its connections closed")
}

// blockCallers are goroutines that call Next on names "a" and "b" in
// turn until it fails.
type blockCallers struct {
	wg       sync.WaitGroup
	got      [][]int64 // per goroutine, once wg is done
	errs     []error   // the error each goroutine stopped at, once wg is done
	stopped  atomic.Int64
	timedOut atomic.Int64 // leases that outlived RefillTimeout
}

// startBlockCallers starts n callers of b. A caller goes on after a lease
// that outlived RefillTimeout (a loaded machine's slow round trip) and
// stops at any other error.
func startBlockCallers(b *dynamoseq.Block, n int) *blockCallers {
	c := &blockCallers{got: make([][]int64, n), errs: make([]error, n)}
	for g := range n {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			name := []string{"a", "b"}[g%2]
			for {
				v, err := b.Next(context.Background(), name)
				switch {
				case err == nil:
					c.got[g] = append(c.got[g], v)
					continue
				case errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, dynamoseq.ErrClosed):
					c.timedOut.Add(1)
					continue
				}
				c.errs[g] = err
				c.stopped.Add(1)
				return
			}
		}()
	}
	return c
}

func TestNewBlockInvalid(t *testing.T) {
	t.Parallel()
	c, _, _ := newCounter(t)
	tests := []struct {
		name    string
		counter *dynamoseq.Counter
		size    int64
		opt     func(*dynamoseq.BlockOptions)
		message string
	}{
		{"nil counter", nil, 10, nil, "nil counter"},
		{"zero size", c, 0, nil, "size is 0"},
		{"negative size", c, -1, nil, "size is -1"},
		{"min above size", c, 10, func(o *dynamoseq.BlockOptions) { o.MinSize = 11 }, "MinSize is 11"},
		{"negative min", c, 10, func(o *dynamoseq.BlockOptions) { o.MinSize = -1 }, "MinSize is -1"},
		{"max below size", c, 10, func(o *dynamoseq.BlockOptions) { o.MaxSize = 9 }, "MaxSize is 9"},
		{"negative lifetime", c, 10, func(o *dynamoseq.BlockOptions) { o.Lifetime = -time.Second }, "Lifetime"},
		{"negative timeout", c, 10, func(o *dynamoseq.BlockOptions) { o.RefillTimeout = -time.Second }, "RefillTimeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fns := optList(tt.opt)
			b, err := dynamoseq.NewBlock(tt.counter, tt.size, fns...)
			require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument)
			assert.Contains(t, err.Error(), tt.message)
			assert.Nil(t, b)
		})
	}
}

func TestBlockBadInput(t *testing.T) {
	t.Parallel()
	c, client, _ := newCounter(t)
	b := newBlock(t, c, 10)
	for _, name := range []string{"", strings.Repeat("x", 2049), "bad\xff"} {
		_, err := b.Next(context.Background(), name)
		require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "Next(%q)", name)
	}
	_, err := c.Current(context.Background(), "bad\xff")
	require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument)

	// A missing table: every caller gets the error, each call tries again.
	missing, err := dynamoseq.NewCounter(client, "no_such_table")
	require.NoError(t, err)
	mb := newBlock(t, missing, 10)
	for range 2 {
		_, err = mb.Next(context.Background(), "orders")
		require.ErrorIs(t, err, dynamoseq.ErrTableNotFound)
		assert.Contains(t, err.Error(), `dynamoseq: Block.Next: table "no_such_table", sequence "orders": lease of 10 numbers: table not found`)
	}
}

func TestBlockCancelledWait(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	table := dbtest.CounterTable(t, client)
	slow := &slowClient{Client: client}
	slow.stall.Store(true)
	c, err := dynamoseq.NewCounter(slow, table)
	require.NoError(t, err)
	b := newBlock(t, c, 10, func(o *dynamoseq.BlockOptions) { o.RefillTimeout = 300 * time.Millisecond })

	// A context that has ended gets its error and no number.
	ended, cancelEnded := context.WithCancel(context.Background())
	cancelEnded()
	_, err = b.Next(ended, "orders")
	require.ErrorIs(t, err, context.Canceled)

	// The caller's context bounds its wait for a lease.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = b.Next(ctx, "orders")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), time.Second)

	// The lease that never got an answer ends at RefillTimeout, and a
	// caller waiting for it gets that error; the next call tries again.
	slow.stall.Store(false)
	_, err = b.Next(context.Background(), "orders")
	require.ErrorIs(t, err, context.DeadlineExceeded, "Next() waiting for the stalled lease")
	v, err := b.Next(context.Background(), "orders")
	require.NoError(t, err)
	assert.Equal(t, int64(1), v, "Next() after the stalled lease")
}

// TestBlockCloseHandsBack: after a clean Close, a new Block continues where
// the last number handed out left off, also when a range leased in advance
// was waiting.
func TestBlockCloseHandsBack(t *testing.T) {
	t.Parallel()
	startAndStep := func(o *dynamoseq.CounterOptions) { o.Start, o.Step = 1000, 10 }
	tests := []struct {
		name        string
		opt         func(*dynamoseq.CounterOptions) // the Counter's
		start, step int64                           // of the numbers handed out
		draw        int64                           // numbers handed out before Close
		leased      int64                           // numbers leased by then
	}{
		{"part of one range", nil, 1, 1, 10, 100},
		{"range leased in advance", nil, 1, 1, 60, 200},
		{"start and step", startAndStep, 1000, 10, 60, 200},
		{"nothing left", nil, 1, 1, 100, 200},
		{"Region slice", inRegion([]string{"us-east-1", "eu-west-1", "ap-south-1"}, 1), 2, 3, 60, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			c, _, _ := newCounter(t, optList(tt.opt)...)
			b, err := dynamoseq.NewBlock(c, 100, func(o *dynamoseq.BlockOptions) { o.MaxSize = 100 }) // fixed size
			require.NoError(t, err)
			for range tt.draw {
				_, err := b.Next(ctx, "orders")
				require.NoError(t, err)
			}
			waitFor(t, func() bool { return b.Figures().LeasedNumbers == tt.leased })
			require.NoError(t, b.Close())
			st := b.Figures()
			assert.Equal(t, tt.leased-tt.draw, st.HandedBack, "HandedBack")
			assert.Zero(t, st.Abandoned, "Abandoned")

			cur, err := c.Current(ctx, "orders")
			require.NoError(t, err)
			assert.Equal(t, tt.start+(tt.draw-1)*tt.step, cur, "Current() after Close")
			again := newBlock(t, c, 100)
			v, err := again.Next(ctx, "orders")
			require.NoError(t, err)
			assert.Equal(t, tt.start+tt.draw*tt.step, v, "Next() of a new Block after Close")
		})
	}
}

// TestBlockCloseAfterOtherLease: when another process leased from the name
// after this Block, Close leaves the counter where it is.
func TestBlockCloseAfterOtherLease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, client, table := newCounter(t)
	other, err := dynamoseq.NewCounter(client, table)
	require.NoError(t, err)
	b, err := dynamoseq.NewBlock(c, 100)
	require.NoError(t, err)
	for range 10 {
		_, err := b.Next(ctx, "orders")
		require.NoError(t, err)
	}
	v, err := other.Next(ctx, "orders")
	require.NoError(t, err)
	require.Equal(t, int64(101), v, "another process's Next()")
	require.NoError(t, b.Close())
	st := b.Figures()
	assert.Zero(t, st.HandedBack, "HandedBack")
	assert.Equal(t, int64(90), st.Abandoned, "Abandoned")
	assert.Equal(t, int64(2), st.RoundTrips, "RoundTrips: the lease and the refused hand-back")
	cur, err := c.Current(ctx, "orders")
	require.NoError(t, err)
	assert.Equal(t, int64(101), cur, "Current() after Close")
}

// TestBlockCloseHandsBackUnderLoad closes a Block while goroutines draw
// from it flat out: no number handed out is handed back, so the next Block
// continues above every one of them.
func TestBlockCloseHandsBackUnderLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, _, _ := newCounter(t)
	b, err := dynamoseq.NewBlock(c, 1000)
	require.NoError(t, err)
	got := make([][]int64, 4)
	var wg sync.WaitGroup
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				v, err := b.Next(ctx, "events")
				if err != nil {
					assert.ErrorIs(t, err, dynamoseq.ErrClosed)
					return
				}
				got[g] = append(got[g], v)
			}
		}()
	}
	waitFor(t, func() bool { return b.Figures().Leases >= 5 })
	require.NoError(t, b.Close())
	wg.Wait()
	all := slices.Concat(got...)
	requireDistinct(t, all) // sorts all
	st := b.Figures()
	assert.Equal(t, int64(len(all)), st.Numbers, "Numbers")
	assert.Equal(t, st.LeasedNumbers, st.Numbers+st.HandedBack+st.Abandoned, "LeasedNumbers against the numbers handed out, back and abandoned")
	again := newBlock(t, c, 1000)
	v, err := again.Next(ctx, "events")
	require.NoError(t, err)
	assert.Greater(t, v, all[len(all)-1], "Next() of a new Block after Close, against the largest number handed out")
	// Close handed back what it could; the gap is what it abandoned, and
	// the lease it cancelled in flight, if any, when DynamoDB applied it.
	gap := v - all[len(all)-1] - 1
	assert.Contains(t, []int64{st.Abandoned, st.Abandoned + st.Interrupted}, gap,
		"numbers skipped by the next Block, against Abandoned %d and Interrupted %d", st.Abandoned, st.Interrupted)
	t.Logf("%d numbers handed out, %d handed back, %d abandoned, %d in a lease Close interrupted; gap %d",
		st.Numbers, st.HandedBack, st.Abandoned, st.Interrupted, gap)
}

// TestBlockGrows: a stream that outruns the leases makes the ranges grow
// until it stops waiting. Leases take 10ms more than DynamoDB Local's
// answer; the stream asks for about 100,000 numbers a second, so ranges of
// 100 last 1ms.
func TestBlockGrows(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	table := dbtest.CounterTable(t, client)
	sizes := &faultyClient{Client: client}
	c, err := dynamoseq.NewCounter(&slowClient{Client: sizes, delay: 10 * time.Millisecond}, table)
	require.NoError(t, err)
	b := newBlock(t, c, 100, func(o *dynamoseq.BlockOptions) { o.MaxSize = 1_000_000 })
	var got []int64
	for len(got) < 30_000 {
		for range 100 {
			v, err := b.Next(context.Background(), "events")
			require.NoError(t, err)
			got = append(got, v)
		}
		time.Sleep(time.Millisecond)
	}
	requireExactly(t, got, 1, 30_000)
	leased := sizes.leaseSizes()
	st := b.Figures()
	t.Logf("lease sizes %v; %d waits for %v", leased, st.Waits, st.WaitTime)
	assert.Equal(t, int64(100), leased[0], "first lease")
	assert.True(t, slices.IsSorted(leased), "lease sizes never shrink: %v", leased)
	assert.Greater(t, leased[len(leased)-1], int64(100), "last lease size")
	assert.LessOrEqual(t, st.Waits, int64(6), "waits for a lease, of 300 with ranges of a fixed size")
}

// TestBlockGrownRangeNearMaxValue: a grown range that no longer fits below
// MaxValue is asked for again at the first size, so no number is lost to
// growth.
func TestBlockGrownRangeNearMaxValue(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	table := dbtest.CounterTable(t, client)
	c, err := dynamoseq.NewCounter(&slowClient{Client: client, delay: 5 * time.Millisecond}, table,
		func(o *dynamoseq.CounterOptions) { o.MaxValue = 1000 })
	require.NoError(t, err)
	b := newBlock(t, c, 10)
	var got []int64
	for {
		v, err := b.Next(context.Background(), "tickets")
		if err != nil {
			require.ErrorIs(t, err, dynamoseq.ErrExhausted)
			break
		}
		got = append(got, v)
	}
	// Grown ranges are sized by the measured rate, so the tail below
	// MaxValue may be shorter than the first size: then it is not leased
	// (documented), and fewer than 10 numbers stay unused.
	require.Greater(t, len(got), 1000-10, "numbers handed out before ErrExhausted")
	requireExactly(t, got, 1, int64(len(got)))
	assert.Greater(t, b.Figures().RoundTrips, b.Figures().Leases+b.Figures().FailedLeases, "RoundTrips: leases asked for again at the first size")
}

// handBackLoser applies the first hand-back UpdateItem ("SET #v = :back"),
// then runs between() (another process leasing), then loses the answer, so
// that a retryer would send the hand-back again.
type handBackLoser struct {
	done    atomic.Bool
	between func()
}

func (h *handBackLoser) RoundTrip(req *http.Request) (*http.Response, error) {
	body, _ := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil && bytes.Contains(body, []byte("SET #v = :back")) && h.done.CompareAndSwap(false, true) {
		resp.Body.Close()
		h.between()
		return nil, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	}
	return resp, err
}

// TestBlockHandBackNotResent: a hand-back whose answer is lost is not sent
// again: had the SDK resent it after another process leased exactly the
// numbers handed back, its condition would pass again and those numbers
// would be handed out twice. (Found by review.)
func TestBlockHandBackNotResent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	plain := dbtest.Client(t)
	table := dbtest.CounterTable(t, plain)
	other, err := dynamoseq.NewCounter(plain, table) // another process
	require.NoError(t, err)
	var otherFirst int64
	rt := &handBackLoser{between: func() {
		var err error
		otherFirst, err = other.NextN(ctx, "orders", 100) // the size of this Block's ranges
		require.NoError(t, err)
	}}
	client := dynamoseqtest.Start(t).Client(dynamoseqtest.WithTransport(rt), dbtest.FastRetries())
	c, err := dynamoseq.NewCounter(client, table)
	require.NoError(t, err)
	b, err := dynamoseq.NewBlock(c, 100, func(o *dynamoseq.BlockOptions) { o.MaxSize = 100 })
	require.NoError(t, err)
	for range 100 { // the whole first range; the second is leased in advance
		_, err := b.Next(ctx, "orders")
		require.NoError(t, err)
	}
	waitFor(t, func() bool { return b.Figures().LeasedNumbers == 200 })
	t.Logf("Close() = %v; other process leased %d..%d", b.Close(), otherFirst, otherFirst+99)
	again, err := dynamoseq.NewCounter(plain, table)
	require.NoError(t, err)
	v, err := again.Next(ctx, "orders")
	require.NoError(t, err)
	require.Greater(t, v, otherFirst+99, "Next() after Close: %d..%d are another process's", otherFirst, otherFirst+99)
}
