package dynamoseq_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// maxTailRatio is the largest ratio of the p99 latency of 4 processes x 4
// goroutines on one hot name to that of 16 goroutines in one process that
// TestModelProcessesTail accepts. Issue 26 asks 3, which BenchmarkModelProcesses
// reports (p99-ratio) on a quiet machine; the test keeps a margin for a
// loaded one, where the processes, five times the goroutines and
// connections, fall behind first, and for its short window, whose p99 of
// about 70 calls is nearly their slowest: Latest measured 6.7 once on a
// quiet machine (1.1-3.1 in other runs). The code before the solo turns
// measured up to 15.6.
const maxTailRatio = 10

// TestModelProcessesTail: SortKey and Latest on one hot name of the model
// (its bucket 0.1 s deep), as 4 OS processes x 4 goroutines and, at the
// same time on a model of its own, as 16 goroutines of this process, so
// that both see the same load: no caller gets an error, and the p99
// latency across processes is within maxTailRatio of the one in one
// process. Issue 26 measured 9x to 15x before the turns handed over to a
// waiting process (2.3 s and 4.1 s against 0.24 s to 0.27 s). The window
// is short and the machine busy: few calls end in it, and the p99 is
// near their slowest; BenchmarkModelProcesses measures the ratio.
func TestModelProcessesTail(t *testing.T) {
	t.Parallel()
	mb := modelBench{scale: 1, latency: 1, ramp: 400 * time.Millisecond, window: 1500 * time.Millisecond, burst: 100 * time.Millisecond}
	for _, kind := range []string{"sortkey", "latest"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			run := mb.oneProcess(t, kind, dynamoseqtest.ThrottleOnDemand, 1)
			oneDone := make(chan tally, 1)
			procs := mb.processesWindow(t, kind, "dynamoseq", dynamoseqtest.ThrottleOnDemand, 1, func() {
				go func() { oneDone <- run() }()
			}).t
			one := <-oneDone
			require.Positive(t, one.ok, "calls that succeeded in one process")
			require.Positive(t, procs.ok, "calls that succeeded across processes")
			p99One, p99Procs := one.lat.quantile(0.99), procs.lat.quantile(0.99)
			ratio := float64(p99Procs) / float64(p99One)
			t.Logf("p99 %v from 4 processes x 4 goroutines (%d calls), %v from 16 goroutines in one process (%d calls): %.2fx",
				p99Procs.Round(time.Millisecond), procs.ok, p99One.Round(time.Millisecond), one.ok, ratio)
			require.Zero(t, one.failed, "calls that failed in one process: %v", one.errs)
			require.Zero(t, procs.failed, "calls that failed across processes: %v", procs.errs)
			require.LessOrEqual(t, ratio, float64(maxTailRatio), "p99 across processes over p99 in one process")
		})
	}
}
