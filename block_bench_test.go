package dynamoseq_test

import (
	"context"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// benchBlockSize is the range size of the benchmarks: at tens of millions
// of numbers a second, a new range every few tens of milliseconds, so that
// the dynamoseq rows run while ranges are refilled in the background.
const benchBlockSize = 1 << 20

// BenchmarkBlockNext compares Counter.Next (baseline: one UpdateItem per
// number) with Block.Next, from one goroutine and from 16. The 16-goroutine
// rows time every call and report its 99th and 99.9th percentiles. Every row
// reports the numbers handed out per second ("ids/s"); the dynamoseq rows
// also report the ranges leased during the row ("leases").
func BenchmarkBlockNext(b *testing.B) {
	client := dbtest.Client(b)
	for _, goroutines := range []int{1, 16} {
		b.Run(fmt.Sprintf("goroutines=%d", goroutines), func(b *testing.B) {
			b.Run("baseline", func(b *testing.B) {
				c, err := dynamoseq.NewCounter(client, dbtest.CounterTable(b, client))
				require.NoError(b, err)
				benchNext(b, c, goroutines)
			})
			b.Run("dynamoseq", func(b *testing.B) {
				c, err := dynamoseq.NewCounter(client, dbtest.CounterTable(b, client))
				require.NoError(b, err)
				blk, err := dynamoseq.NewBlock(c, benchBlockSize)
				require.NoError(b, err)
				defer blk.Close()
				benchNext(b, blk, goroutines)
				b.ReportMetric(float64(blk.Figures().Leases), "leases")
			})
		})
	}
}

// benchNext calls s.Next b.N times from goroutines goroutines.
func benchNext(b *testing.B, s dynamoseq.Sequencer, goroutines int) {
	ctx := context.Background()
	// The first number of a sequence costs a round trip either way.
	_, err := s.Next(ctx, "bench")
	require.NoError(b, err)
	b.ReportAllocs()
	b.ResetTimer()
	if goroutines == 1 {
		for range b.N {
			if _, err := s.Next(ctx, "bench"); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ids/s")
		return
	}
	hists := make([]*latencies, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		n := shareOf(b.N, goroutines, g)
		h := new(latencies)
		hists[g] = h
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				start := time.Now()
				_, err := s.Next(ctx, "bench")
				h.add(time.Since(start))
				if err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	var all latencies
	for _, h := range hists {
		all.merge(h)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ids/s")
	b.ReportMetric(all.quantile(0.99).Seconds()*1e6, "p99-us")
	b.ReportMetric(all.quantile(0.999).Seconds()*1e6, "p99.9-us")
}

// latencies is a histogram of durations with buckets 1/32 of a power of
// two wide (exact below 32ns), so that a quantile is within 1.6% of the
// truth and recording one costs no allocation and no lock: each goroutine
// records into its own.
type latencies struct {
	counts [60 * 32]int64
}

func (h *latencies) add(d time.Duration) {
	v := uint64(max(d, 0))
	if v < 32 {
		h.counts[v]++
		return
	}
	e := bits.Len64(v) - 6 // v>>e is 32..63
	h.counts[32*e+int(v>>e)]++
}

func (h *latencies) merge(o *latencies) {
	for i, n := range o.counts {
		h.counts[i] += n
	}
}

// quantile returns the middle of the bucket that holds the q quantile.
func (h *latencies) quantile(q float64) time.Duration {
	var total int64
	for _, n := range h.counts {
		total += n
	}
	want := int64(q * float64(total))
	var seen int64
	for i, n := range h.counts {
		seen += n
		if seen > want {
			if i < 32 {
				return time.Duration(i)
			}
			e := i/32 - 1
			m := uint64(i%32 + 32)
			return time.Duration(m<<e + (1<<e)/2)
		}
	}
	return 0
}

// BenchmarkBlockSteadyStream: one goroutine draws 5 million numbers flat out
// from a Block of size 100,000 with the default options ("stream"), and, in
// turn in the same loop, from a Block whose one range holds them all
// ("inrange", the baseline: no lease during the draw). Each op is one
// stream of each, on a new name whose first number is drawn untimed, and 5
// million more numbers of one name that goes on from op to op ("warm": the
// steady state, once the ranges have grown). It reports ns per number of
// each, the streams' rates as percentages of the baseline's, the share of
// the stream's time spent waiting for a lease (which does not depend on
// how loaded the machine is, as the rates do), the mallocs per number
// during the stream, and the stream's waits for a lease (the untimed first
// call included).
func BenchmarkBlockSteadyStream(b *testing.B) {
	const numbers, size = 5_000_000, 100_000
	client := dbtest.Client(b)
	c, err := dynamoseq.NewCounter(client, dbtest.CounterTable(b, client))
	require.NoError(b, err)
	inRange, err := dynamoseq.NewBlock(c, 2*numbers, func(o *dynamoseq.BlockOptions) { o.MaxSize = 2 * numbers })
	require.NoError(b, err)
	defer inRange.Close()
	stream, err := dynamoseq.NewBlock(c, size)
	require.NoError(b, err)
	defer stream.Close()

	ctx := context.Background()
	warm, err := dynamoseq.NewBlock(c, size)
	require.NoError(b, err)
	defer warm.Close()
	if _, err := warm.Next(ctx, "warm"); err != nil {
		b.Fatal(err)
	}

	// draw times numbers calls of blk.Next on name, after one untimed call,
	// and returns how long they took, how long of it they waited for
	// leases, and how many mallocs they made.
	draw := func(blk *dynamoseq.Block, name string) (took, waited time.Duration, mallocs uint64) {
		if _, err := blk.Next(ctx, name); err != nil {
			b.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		waitedBefore := blk.Figures().WaitTime
		start := time.Now()
		for range numbers {
			if _, err := blk.Next(ctx, name); err != nil {
				b.Fatal(err)
			}
		}
		took = time.Since(start)
		runtime.ReadMemStats(&after)
		return took, blk.Figures().WaitTime - waitedBefore, after.Mallocs - before.Mallocs
	}
	var inTime, streamTime, streamWait, warmTime time.Duration
	var streamMallocs uint64
	b.ResetTimer()
	for i := range b.N {
		d, _, _ := draw(inRange, fmt.Sprintf("inrange-%d", i))
		inTime += d
		d, w, m := draw(stream, fmt.Sprintf("stream-%d", i))
		streamTime += d
		streamWait += w
		streamMallocs += m
		d, _, _ = draw(warm, "warm")
		warmTime += d
	}
	b.StopTimer()
	total := float64(b.N * numbers)
	b.ReportMetric(float64(inTime.Nanoseconds())/total, "inrange-ns/id")
	b.ReportMetric(float64(streamTime.Nanoseconds())/total, "stream-ns/id")
	b.ReportMetric(100*inTime.Seconds()/streamTime.Seconds(), "stream-%-of-inrange")
	b.ReportMetric(100*inTime.Seconds()/warmTime.Seconds(), "warm-%-of-inrange")
	b.ReportMetric(100*streamWait.Seconds()/streamTime.Seconds(), "stream-%-waiting")
	b.ReportMetric(float64(streamMallocs)/total, "stream-mallocs/id")
	b.ReportMetric(float64(stream.Figures().Waits)/float64(b.N), "stream-waits/op")
}
