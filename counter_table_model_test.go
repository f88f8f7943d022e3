package dynamoseq_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// Sizes of TestModelCounterTableCeiling: counterNames hot names (of
// tableGoroutines goroutines each) on a table of counterTableUnits write
// units a second. The Counter group-commits, one UpdateItem of 1 write
// unit for all the waiting calls of a name, so a round of the names takes
// 16 units, 0.5 s at the ceiling: 4 updates per name in a 2 s window, far
// below what the names' partitions would take (16,000) and below what a
// machine loaded 8-12 times over its 2 cores offers with -race. With 8
// names (at 16 or 40 units) the Counter's own waits, from the round trip
// with full jitter, starved no name before the share either; with 16
// they did (see the test's doc).
const (
	counterNames      = 16
	counterTableUnits = 32
)

// counterAtCeiling is the share of the table's ceiling used in a window
// above which the ceiling, not the machine, held the names back (issue
// 26's 0.85): in such a window every name must get numbers. Below it
// something else held them back (see the test's doc).
const counterAtCeiling = 0.85

// counterEmptyWindows is how many of the counterNames x tableWindows
// windows at the ceiling may leave a name without a number: issue 26 asks
// none. Before the Counter took part in the share, 1, 3, 4, 6, 6 and 7 in
// 6 runs; with it, 0 in 15 runs and 1 in one, where the share's estimate
// of the rate stood above the ceiling (35.7 units a second for 32); since
// the share takes a sample below its estimate whole, 0 in 8 runs (loaded
// 7-12 times); since a refused update takes the line's next slot, 0 in 4
// runs, loaded 5.5-8 times and, with two CPU burners besides, 9.6-11.6
// (and 0 in the 4 runs of the code before, interleaved with them), and
// 0 in 2 with -race and two CPU burners besides.
const counterEmptyWindows = 0

// TestModelCounterTableCeiling: counterNames hot Counter names of
// tableGoroutines goroutines each calling Next, on a table whose ceiling
// (Service.TableWriteUnits) is far below the sum of its partitions', in
// either form of throttling: the names take turns in the Counter's share
// of the table (engine.Share), so that no caller gets an error with a
// tableDeadline deadline, every name gets numbers in every 2 s window
// after tableWarm (but counterEmptyWindows), and every number is handed
// out once. The windows open
// once the model has throttled an update (untilThrottled). A window in
// which the table was used at less than counterAtCeiling of its ceiling
// was held back by something else than the ceiling: loaded 12-17 times
// over its 2 cores, a cold DynamoDB Local stalled every name at once (the
// model throttling 0-1 updates in 9 s), and later windows reached 0.4-0.9
// of the ceiling, for want of the machine or with the share's estimate
// taken while the machine was slow (21 units a second once); there the
// test asks numbers over the windows only. It logs the numbers
// each name got in each window, the share of the ceiling used and the p99
// of the calls begun after tableWarm. Before the Counter took part in the
// share (3 runs of both forms, machine loaded 9-11 times): every run
// failed, 1-7 names getting 0 numbers in a window with the table at
// 0.89-1.07 of its ceiling; 491-1,329 updates throttled, p99 2.7-4.2 s.
// With it (loaded 7-8 times): 2-10 numbers a name a window, mostly 8, the
// table at 0.97-1.03; 14-75 throttled, p99 0.90-1.31 s. Since a refused
// update takes the line's next slot (without -race, loaded 5.5-8 times): 6-22 numbers a
// name a window, mostly 8, the table at 0.98-1.03, p99 0.56-0.62 s (0.86-0.97 s
// before, interleaved); with two CPU burners besides, 0.84-1.14 s: the
// issue's 1 s is logged, not asked.
func TestModelCounterTableCeiling(t *testing.T) {
	t.Parallel()
	for _, form := range throttleForms {
		t.Run(form.name, func(t *testing.T) {
			t.Parallel()
			svc := dynamoseqtest.Service{TableWriteUnits: counterTableUnits, Burst: tableBurst, Throttle: form.form}
			srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(svc))
			table := srv.NewTable(t, dynamoseq.CounterTable("fair"))
			c, err := dynamoseq.NewCounter(srv.Client(), table)
			require.NoError(t, err)
			next := func(ctx context.Context, name string, _ any) (int64, error) { return c.Next(ctx, name) }
			var calls []nameCall
			untilThrottled(t, srv, func(int) { // the share is in play
				calls = append(calls, callNames(next, counterNames, tableGoroutines, time.Now().Add(500*time.Millisecond))...)
			})
			start := time.Now()
			end := start.Add(tableWarm + tableWindows*2*time.Second)
			use := windowUse(srv, counterTableUnits)
			calls = append(calls, callNames(next, counterNames, tableGoroutines, end.Add(time.Second))...)
			var failed []string
			var took []time.Duration
			got := make([][tableWindows]int, counterNames)
			seen := make([]map[int64]bool, counterNames)
			for _, call := range calls {
				if !call.done.Add(-call.took).Before(start.Add(tableWarm)) {
					took = append(took, call.took)
				}
				if call.err != nil {
					failed = append(failed, call.err.Error())
					continue
				}
				if seen[call.name] == nil {
					seen[call.name] = map[int64]bool{}
				}
				require.False(t, seen[call.name][call.n], "name %d: number %d handed out twice", call.name, call.n)
				seen[call.name][call.n] = true
				if w := call.done.Sub(start.Add(tableWarm)) / (2 * time.Second); w >= 0 && w < tableWindows {
					got[call.name][w]++
				}
			}
			slices.Sort(took)
			stats, used := c.Stats(), use()
			t.Logf("%d calls, p99 %v (issue 26: 1 s); numbers got per name per 2 s window: %v; share of the table's ceiling used per window: %.2f (issue 26: 0.85); the share's rate %.1f units/s; library: %+v",
				len(calls), took[len(took)*99/100].Round(time.Millisecond), got, used, c.ShareRate(), stats)
			require.Empty(t, failed, "%d of %d calls failed with a %v deadline", len(failed), len(calls), tableDeadline)
			require.Positive(t, stats.Throttled, "the model throttled none of the Counter's updates: the test proves nothing")
			var empty []string // a name's windows without a number, the table at its ceiling
			for n := range got {
				total := 0
				for w := range tableWindows {
					total += got[n][w]
					if used[w] >= counterAtCeiling && got[n][w] == 0 {
						empty = append(empty, fmt.Sprintf("name %d in window %d (the table at %.2f)", n, w, used[w]))
					}
				}
				require.Positive(t, total, "numbers name %d got in the %d windows of 2 s", n, tableWindows)
			}
			require.LessOrEqual(t, len(empty), counterEmptyWindows, "windows of 2 s in which a name got no number, the table at its ceiling: %v (all: %v)", empty, got)
		})
	}
}

// windowUse takes the model's figures at the bounds of the tableWindows
// windows of 2 s that open tableWarm from now, and returns a function that
// waits for them and returns the share of the table's ceiling, of units
// write units a second, used in each window.
func windowUse(srv *dynamoseqtest.Server, units float64) func() []float64 {
	var wg sync.WaitGroup
	var at [tableWindows + 1]float64
	for w := range at {
		wg.Add(1)
		time.AfterFunc(tableWarm+time.Duration(w)*2*time.Second, func() {
			defer wg.Done()
			at[w] = srv.ModelStats().WriteUnits
		})
	}
	return func() []float64 {
		wg.Wait()
		used := make([]float64, tableWindows)
		for w := range used {
			used[w] = (at[w+1] - at[w]) / (units * 2)
		}
		return used
	}
}
