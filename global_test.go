package dynamoseq_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/ddblocal"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// replicationDelay is how long the simulated MREC table takes to apply a
// write of one Region in the other: long enough that the Regions mint many
// numbers before they see each other's writes.
const replicationDelay = 150 * time.Millisecond

// inRegion sets the options of a client in Region i of regions, on an MREC
// table.
func inRegion(regions []string, i int) func(*dynamoseq.CounterOptions) {
	return func(o *dynamoseq.CounterOptions) {
		o.GlobalTable = dynamoseq.GlobalTableMREC
		o.Region = regions[i]
		o.Regions = regions
	}
}

// slicedCounters returns a Region-sliced Counter in each Region of g.
func slicedCounters(t *testing.T, g *dbtest.MREC) [2]*dynamoseq.Counter {
	t.Helper()
	var counters [2]*dynamoseq.Counter
	for r := range counters {
		c, err := dynamoseq.NewCounter(g.Clients[r], g.Table, inRegion(dbtest.MRECRegions, r))
		require.NoError(t, err)
		counters[r] = c
	}
	return counters
}

// mintInRegions calls mint(region, goroutine) each times from goroutines
// goroutines in every Region at once, and returns what each goroutine got,
// by Region.
func mintInRegions[T any](t *testing.T, regions, goroutines, each int, mint func(r, g int) (T, error)) [][][]T {
	t.Helper()
	got := make([][][]T, regions)
	var wg sync.WaitGroup
	for r := range regions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[r] = fanOut(t, goroutines, each, func(g, _ int) (T, error) { return mint(r, g) })
		}()
	}
	wg.Wait()
	return got
}

// repeated returns the values that occur more than once.
func repeated[T comparable](values []T) []T {
	seen := make(map[T]int, len(values))
	var dups []T
	for _, v := range values {
		if seen[v]++; seen[v] == 2 {
			dups = append(dups, v)
		}
	}
	return dups
}

// checkSliced checks numbers minted by Region r of n, goroutine by
// goroutine: each in the Region's slice (Start 1, Step 1), increasing.
func checkSliced(t *testing.T, got [][][]int64, n int) {
	t.Helper()
	for r, perGoroutine := range got {
		for g, vs := range perGoroutine {
			require.True(t, slices.IsSorted(vs), "Region %d, goroutine %d: numbers out of order: %v", r, g, vs)
			for _, v := range vs {
				require.Equal(t, int64(r), (v-1)%int64(n), "Region %d handed out %d, of another Region's slice", r, v)
			}
		}
	}
}

func flatten[T any](got [][][]T) []T {
	var all []T
	for _, perGoroutine := range got {
		all = append(all, slices.Concat(perGoroutine...)...)
	}
	return all
}

// TestMREC runs the tests of the simulated MREC table, which share two
// DynamoDB Local servers, one per Region.
func TestMREC(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		test func(*testing.T)
	}{
		{"PlainCounterHandsOutDuplicates", testMRECPlainCounterHandsOutDuplicates},
		{"SlicedCounter", testMRECSlicedCounter},
		{"SlicedBlock", testMRECSlicedBlock},
		{"SlicedIDMinter", testMRECSlicedIDMinter},
		{"SlicedProcesses", testMRECSlicedProcesses},
		{"AddRegion", testMRECAddRegion},
	} {
		t.Run(tt.name, tt.test)
	}
}

// testMRECPlainCounterHandsOutDuplicates is the hazard: a Counter that
// knows nothing of Regions, used in both Regions of an MREC table, hands
// out the same numbers in both, and replication (last writer wins) loses
// the evidence.
func testMRECPlainCounterHandsOutDuplicates(t *testing.T) {
	t.Parallel()
	g := dbtest.MRECTable(t, replicationDelay)
	var counters [2]*dynamoseq.Counter
	for r := range counters {
		c, err := dynamoseq.NewCounter(g.Clients[r], g.Table)
		require.NoError(t, err)
		counters[r] = c
	}
	next := func(r, _ int) (int64, error) { return counters[r].Next(context.Background(), "orders") }
	all := flatten(mintInRegions(t, 2, 2, 10, next))
	g.Settle(t)
	all = append(all, flatten(mintInRegions(t, 2, 2, 10, next))...)
	g.Settle(t)
	dups := repeated(all)
	t.Logf("%d numbers, %d handed out twice; replicator: %+v", len(all), len(dups), g.Stats())
	require.NotEmpty(t, dups, "a plain Counter on an MREC table should hand out duplicates")
	c0, err := counters[0].Current(context.Background(), "orders")
	require.NoError(t, err)
	c1, err := counters[1].Current(context.Background(), "orders")
	require.NoError(t, err)
	assert.Equal(t, c0, c1, "the Regions did not converge")
	assert.Less(t, c0, int64(len(all)), "the counter should have lost increments (last writer wins)")
}

// testMRECSlicedCounter mints with Next and NextN in both Regions at once,
// before and after replication settles: no number twice, each Region in its
// slice, and Current agrees in both Regions once replication settles.
func testMRECSlicedCounter(t *testing.T) {
	t.Parallel()
	g := dbtest.MRECTable(t, replicationDelay)
	counters := slicedCounters(t, g)
	next := func(r, g int) (int64, error) {
		if g == 0 {
			return counters[r].Next(context.Background(), "orders")
		}
		return counters[r].NextN(context.Background(), "orders", 3) // the first of 3: checked below
	}
	var all []int64
	for round := range 2 {
		got := mintInRegions(t, 2, 3, 10, next)
		checkSliced(t, got, 2)
		for r := range got {
			all = append(all, got[r][0]...)
			for _, vs := range got[r][1:] {
				for _, first := range vs {
					all = append(all, first, first+2, first+4) // Region r's next three
				}
			}
		}
		g.Settle(t)
		t.Logf("round %d: replicator %+v", round, g.Stats())
	}
	require.Empty(t, repeated(all), "numbers handed out twice")
	require.Len(t, all, 2*2*(10+2*10*3))
	c0, err := counters[0].Current(context.Background(), "orders")
	require.NoError(t, err)
	c1, err := counters[1].Current(context.Background(), "orders")
	require.NoError(t, err)
	assert.Equal(t, slices.Max(all), c0, "Current in Region 0")
	assert.Equal(t, c0, c1, "Current in Region 1")
}

// testMRECSlicedBlock leases blocks in both Regions at once: no number
// twice, before or after replication settles.
func testMRECSlicedBlock(t *testing.T) {
	t.Parallel()
	g := dbtest.MRECTable(t, replicationDelay)
	var blocks [2]*dynamoseq.Block
	for r, c := range slicedCounters(t, g) {
		b, err := dynamoseq.NewBlock(c, 10)
		require.NoError(t, err)
		t.Cleanup(func() { _ = b.Close() })
		blocks[r] = b
	}
	next := func(r, _ int) (int64, error) { return blocks[r].Next(context.Background(), "events") }
	var all []int64
	for range 2 {
		got := mintInRegions(t, 2, 4, 50, next)
		for r, perGoroutine := range got {
			for _, vs := range perGoroutine {
				for _, v := range vs {
					require.Equal(t, int64(r), (v-1)%2, "Region %d handed out %d", r, v)
				}
			}
		}
		all = append(all, flatten(got)...)
		g.Settle(t)
	}
	require.Len(t, all, 2*2*4*50)
	require.Empty(t, repeated(all), "numbers handed out twice")
}

// testMRECSlicedIDMinter mints readable IDs in both Regions at once: no ID
// twice.
func testMRECSlicedIDMinter(t *testing.T) {
	t.Parallel()
	g := dbtest.MRECTable(t, replicationDelay)
	now := func() time.Time { return time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC) }
	var minters [2]*dynamoseq.IDMinter
	for r, c := range slicedCounters(t, g) {
		m, err := dynamoseq.NewIDMinter(c, orderFormat, dynamoseq.Daily, func(o *dynamoseq.IDMinterOptions) { o.Now = now })
		require.NoError(t, err)
		minters[r] = m
	}
	next := func(r, _ int) (string, error) { return minters[r].Next(context.Background(), "orders") }
	var all []string
	for range 2 {
		all = append(all, flatten(mintInRegions(t, 2, 3, 10, next))...)
		g.Settle(t)
	}
	require.Len(t, all, 2*2*3*10)
	require.Empty(t, repeated(all), "IDs handed out twice")
	assert.Contains(t, all, "ORD-261123-000001")
	assert.Contains(t, all, "ORD-261123-000002")
}

func init() {
	helpers["mrec-mint"] = func(t *testing.T) {
		r, _ := strconv.Atoi(os.Getenv("REGION"))
		client := ddblocal.NewClient(os.Getenv("REGION_ENDPOINT"))
		c, err := dynamoseq.NewCounter(client, os.Getenv("TABLE"), inRegion(dbtest.MRECRegions, r))
		require.NoError(t, err)
		b, err := dynamoseq.NewBlock(c, 5)
		require.NoError(t, err)
		defer b.Close()
		now := func() time.Time { return time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC) }
		m, err := dynamoseq.NewIDMinter(c, orderFormat, dynamoseq.Daily, func(o *dynamoseq.IDMinterOptions) { o.Now = now })
		require.NoError(t, err)
		ctx := context.Background()
		printLines(fanOut(t, 2, 10, func(int, int) (string, error) {
			n, err := c.Next(ctx, "orders")
			if err != nil {
				return "", err
			}
			e, err := b.Next(ctx, "events")
			if err != nil {
				return "", err
			}
			id, err := m.Next(ctx, "orders")
			return fmt.Sprintf("counter %d\nblock %d\nid %s", n, e, id), err
		}))
	}
}

// testMRECSlicedProcesses mints with a Counter, a Block and an IDMinter
// from two OS processes per Region, all at once, twice with replication
// settling in between: no number and no ID twice.
func testMRECSlicedProcesses(t *testing.T) {
	t.Parallel()
	g := dbtest.MRECTable(t, replicationDelay)
	var envs [][]string
	for r := range 2 {
		for range 2 {
			envs = append(envs, []string{"REGION=" + strconv.Itoa(r), "REGION_ENDPOINT=" + g.Endpoints[r], "TABLE=" + g.Table})
		}
	}
	var outs [][]byte
	for range 2 {
		outs = append(outs, dbtest.RunProcessesEach(t, "mrec-mint", envs)...)
		g.Settle(t)
	}
	const want = 2 * 4 * 2 * 10 // rounds, processes, goroutines, calls
	for _, kind := range []string{"counter ", "block ", "id "} {
		got := outputLines(outs, kind)
		require.Len(t, got, want, "%svalues", kind)
		require.Empty(t, repeated(got), "%svalues handed out twice", kind)
	}
}

// testMRECAddRegion follows the procedure of docs/global-tables.md for
// adding a Region to the list: stop minting, let replication settle, read
// Current, then with the new list advance every Region's counter to it.
// The third Region's counter lives in the first server, as its replica
// would after replication.
func testMRECAddRegion(t *testing.T) {
	t.Parallel()
	g := dbtest.MRECTable(t, replicationDelay)
	ctx := context.Background()
	old := dbtest.MRECRegions
	var before []int64
	for r := range 2 {
		c, err := dynamoseq.NewCounter(g.Clients[r], g.Table, inRegion(old, r))
		require.NoError(t, err)
		for range 5 + r*3 { // uneven, so that one Region is ahead
			n, err := c.Next(ctx, "orders")
			require.NoError(t, err)
			before = append(before, n)
		}
	}
	g.Settle(t)
	c, err := dynamoseq.NewCounter(g.Clients[1], g.Table, inRegion(old, 1))
	require.NoError(t, err)
	last, err := c.Current(ctx, "orders")
	require.NoError(t, err)
	require.Equal(t, slices.Max(before), last, "Current once replication settled")

	regions := append(slices.Clone(old), "ap-south-1")
	clients := []dynamoseq.Client{g.Clients[0], g.Clients[1], g.Clients[0]}
	var counters []*dynamoseq.Counter
	for r := range regions {
		c, err := dynamoseq.NewCounter(clients[r], g.Table, inRegion(regions, r))
		require.NoError(t, err)
		_, err = c.AdvanceTo(ctx, "orders", last)
		require.NoError(t, err)
		counters = append(counters, c)
	}
	got := mintInRegions(t, 3, 2, 10, func(r, _ int) (int64, error) { return counters[r].Next(ctx, "orders") })
	g.Settle(t)
	checkSliced(t, got, 3)
	after := flatten(got)
	require.Greater(t, slices.Min(after), last, "a number at or below the old Current")
	require.Empty(t, repeated(slices.Concat(before, after)), "numbers handed out twice")
}

// TestMRECAdvanceTo: after AdvanceTo a Region continues with the first
// number of its slice above the value, whatever the value.
func TestMRECAdvanceTo(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	table := dbtest.CounterTable(t, client)
	ctx := context.Background()
	regions := []string{"a", "b", "c"}
	for _, tt := range []struct {
		region  int
		advance int64
		want    int64
	}{
		{0, 10, 13}, // slice 1, 4, 7, 10, 13
		{1, 10, 11}, // slice 2, 5, 8, 11
		{2, 10, 12}, // slice 3, 6, 9, 12
		{2, 0, 3},
	} {
		name := fmt.Sprintf("seq%d_%d", tt.region, tt.advance)
		c, err := dynamoseq.NewCounter(client, table, inRegion(regions, tt.region))
		require.NoError(t, err)
		stored, err := c.AdvanceTo(ctx, name, tt.advance)
		require.NoError(t, err)
		assert.Equal(t, tt.advance, stored, "AdvanceTo(%d) in Region %d", tt.advance, tt.region)
		n, err := c.Next(ctx, name)
		require.NoError(t, err)
		assert.Equal(t, tt.want, n, "Next() after AdvanceTo(%d) in Region %d", tt.advance, tt.region)
		n, err = c.Next(ctx, name)
		require.NoError(t, err)
		assert.Equal(t, tt.want+3, n, "the Next() after that")
	}
}

// TestMRECSliceWithStartStepMaxValue: Start, Step and MaxValue apply to
// the slices: Region i of R starts at Start+i*Step, steps R*Step, and stops
// at MaxValue.
func TestMRECSliceWithStartStepMaxValue(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	table := dbtest.CounterTable(t, client)
	ctx := context.Background()
	regions := []string{"a", "b"}
	var got [2][]int64
	for r := range 2 {
		c, err := dynamoseq.NewCounter(client, table, inRegion(regions, r), func(o *dynamoseq.CounterOptions) {
			o.Start, o.Step, o.MaxValue = 100, 10, 150
		})
		require.NoError(t, err)
		for {
			n, err := c.Next(ctx, "s")
			if err != nil {
				require.ErrorIs(t, err, dynamoseq.ErrExhausted)
				break
			}
			got[r] = append(got[r], n)
		}
	}
	assert.Equal(t, []int64{100, 120, 140}, got[0])
	assert.Equal(t, []int64{110, 130, 150}, got[1])
}

// TestGlobalTableOptions: the constructors refuse what cannot work, saying
// why.
func TestGlobalTableOptions(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	mrec := func(region string, regions ...string) func(*dynamoseq.CounterOptions) {
		return func(o *dynamoseq.CounterOptions) {
			o.GlobalTable, o.Region, o.Regions = dynamoseq.GlobalTableMREC, region, regions
		}
	}
	for _, tt := range []struct {
		name string
		opt  func(*dynamoseq.CounterOptions)
		want string // "" for no error
	}{
		{"MREC", mrec("b", "a", "b"), ""},
		{"MREC one Region", mrec("a", "a"), ""},
		{"MREC no Regions", mrec("a"), "want the ordered list of the table's Regions"},
		{"MREC Region missing", mrec("", "a", "b"), `Region is "", not one of the table's Regions`},
		{"MREC Region not listed", mrec("c", "a", "b"), `Region is "c", not one of the table's Regions`},
		{"MREC duplicate", mrec("a", "a", "b", "a"), `lists "a" twice`},
		{"MREC empty Region name", mrec("a", "a", ""), "entry 1 is empty"},
		{"Region without MREC", func(o *dynamoseq.CounterOptions) { o.Region = "a" }, "read only on a multi-Region eventually consistent table"},
		{"Regions with MRSC", func(o *dynamoseq.CounterOptions) {
			o.GlobalTable, o.Regions = dynamoseq.GlobalTableMRSC, []string{"a"}
		}, "read only on a multi-Region eventually consistent table"},
		{"MRSC", func(o *dynamoseq.CounterOptions) { o.GlobalTable = dynamoseq.GlobalTableMRSC }, ""},
		{"unknown mode", func(o *dynamoseq.CounterOptions) { o.GlobalTable = 7 }, "GlobalTableMode(7)"},
		{"Region above MaxValue", func(o *dynamoseq.CounterOptions) {
			mrec("b", "a", "b")(o)
			o.MaxValue = 1
		}, "above the largest value (MaxValue is 1)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := dynamoseq.NewCounter(client, "table", tt.opt)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	mrscCounter, err := dynamoseq.NewCounter(client, "table", func(o *dynamoseq.CounterOptions) { o.GlobalTable = dynamoseq.GlobalTableMRSC })
	require.NoError(t, err)
	_, err = dynamoseq.NewIDMinter(mrscCounter, orderFormat, dynamoseq.Daily, func(o *dynamoseq.IDMinterOptions) { o.TTLAttribute = "ttl" })
	require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "NewIDMinter with TTL over an MRSC Counter")
	assert.Contains(t, err.Error(), "do not support Time to Live")
	_, err = dynamoseq.NewSortKey(client, "table", func(o *dynamoseq.SortKeyOptions) { o.GlobalTable = dynamoseq.GlobalTableMREC })
	require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "NewSortKey with GlobalTableMREC")
	_, lerr := dynamoseq.NewLatest(client, "table", func(o *dynamoseq.LatestOptions) { o.GlobalTable = dynamoseq.GlobalTableMREC })
	require.ErrorIs(t, lerr, dynamoseq.ErrInvalidArgument, "NewLatest with GlobalTableMREC")
	for _, err := range []error{err, lerr} {
		assert.True(t, strings.Contains(err.Error(), "one writer per sequence") && strings.Contains(err.Error(), "home Region"), "%v", err)
	}
}
