package dynamoseq_test

import (
	"context"
	"slices"
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
// with full jitter, did not starve a name before the share either; with
// 16, a name got 0 or 2 numbers in some windows (see the test's doc).
const (
	counterNames      = 16
	counterTableUnits = 32
)

// TestModelCounterTableCeiling: counterNames hot Counter names of
// tableGoroutines goroutines each calling Next, on a table whose ceiling
// (Service.TableWriteUnits) is far below the sum of its partitions', in
// either form of throttling: the names take turns in the Counter's share
// of the table (engine.Share), so that no caller gets an error with a
// tableDeadline deadline, every name gets numbers in every 2 s window
// after tableWarm, and every number is handed out once. It logs the
// numbers each name got in each window and the p99 of the calls begun
// after tableWarm. Before the Counter took part in the share (4 runs,
// machine loaded 8-12 times): a name got 0 numbers in a window in one run,
// 2 in many; 402-548 updates throttled. With it: 4-23 a window, mostly
// 8; 7-50 throttled.
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
			start := time.Now()
			end := start.Add(tableWarm + tableWindows*2*time.Second)
			calls := callNames(next, counterNames, tableGoroutines, end.Add(time.Second))
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
			stats := c.Stats()
			t.Logf("%d calls, p99 %v; numbers got per name per 2 s window: %v; library: %+v", len(calls), took[len(took)*99/100].Round(time.Millisecond), got, stats)
			require.Empty(t, failed, "%d of %d calls failed with a %v deadline", len(failed), len(calls), tableDeadline)
			require.Positive(t, stats.Throttled, "the model throttled none of the Counter's updates: the test proves nothing")
			for n := range got {
				for w := range tableWindows {
					require.Positive(t, got[n][w], "numbers name %d got in window %d of 2 s (all: %v)", n, w, got)
				}
			}
		})
	}
}
