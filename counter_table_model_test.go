package dynamoseq_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// counterTableUnits is the table ceiling of TestModelCounterTableCeiling,
// in write units a second: the Counter group-commits, one UpdateItem of
// 1 write unit for all the waiting calls of a name, so a round of the
// tableNames names takes 8 units, 0.2 s at the ceiling, far below what
// the names' partitions would take (8,000) and what a loaded machine
// offers with -race.
const counterTableUnits = 16

// TestModelCounterTableCeiling: tableNames hot Counter names of
// tableGoroutines goroutines each calling Next, on a table whose ceiling
// (Service.TableWriteUnits) is far below the sum of its partitions', in
// either form of throttling: the names take turns in the Counter's share
// of the table (engine.Share), so that no caller gets an error with a
// tableDeadline deadline, every name gets numbers in every 2 s window
// after tableWarm, and every number is handed out once. It logs the
// numbers each name got in each window.
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
			calls := callNames(next, tableNames, tableGoroutines, end.Add(time.Second))
			var failed []string
			got := make([][tableWindows]int, tableNames)
			seen := make([]map[int64]bool, tableNames)
			for _, call := range calls {
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
			stats := c.Stats()
			t.Logf("%d calls; numbers got per name per 2 s window: %v; library: %+v", len(calls), got, stats)
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
