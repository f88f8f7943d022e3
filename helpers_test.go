package dynamoseq_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// requireExactly checks that got holds each of from..to once.
func requireExactly(t *testing.T, got []int64, from, to int64) {
	t.Helper()
	slices.Sort(got)
	require.Len(t, got, int(to-from+1), "count of values")
	for i, v := range got {
		if v != from+int64(i) {
			t.Fatalf("sorted values[%d] = %d, want %d (a duplicate or a gap)", i, v, from+int64(i))
		}
	}
}

// fanOut makes each calls call(g, i) on each of goroutines goroutines and returns what each goroutine got, in order; a goroutine stops at its first error, which fails t.
func fanOut[T any](t testing.TB, goroutines, each int, call func(g, i int) (T, error)) [][]T {
	t.Helper()
	got := make([][]T, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		got[g] = make([]T, 0, each)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				v, err := call(g, i)
				if err != nil {
					t.Errorf("goroutine %d, call %d: %v", g, i, err)
					return
				}
				got[g] = append(got[g], v)
			}
		}()
	}
	wg.Wait()
	return got
}

// printLines prints every goroutine's lines, for the parent of a helper process to read with outputLines.
func printLines(lines [][]string) {
	for _, l := range slices.Concat(lines...) {
		fmt.Println(l)
	}
}

// outputLines returns the lines of all the helper processes' outputs that start with prefix, with the prefix removed.
func outputLines(outs [][]byte, prefix string) []string {
	var lines []string
	for _, out := range outs {
		lines = append(lines, dbtest.Lines(out, prefix)...)
	}
	return lines
}

// shareOf returns how many of n calls goroutine g of goroutines makes, so that they add up to n.
func shareOf(n, goroutines, g int) int {
	if g < n%goroutines {
		return n/goroutines + 1
	}
	return n / goroutines
}

// timeCalls resets the timer, makes b.N calls of call(g) in all from goroutines goroutines, stops the timer and returns the latencies of the calls that succeeded, sorted, and the time they all took.
func timeCalls(b *testing.B, goroutines int, call func(g int) error) ([]time.Duration, time.Duration) {
	latencies := make([][]time.Duration, goroutines)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for g := range goroutines {
		n := shareOf(b.N, goroutines, g)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				t0 := time.Now()
				if err := call(g); err != nil {
					b.Error(err)
					return
				}
				latencies[g] = append(latencies[g], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	all := slices.Concat(latencies...)
	slices.Sort(all)
	return all, elapsed
}

// optList returns opt as a list of option functions, or none when opt is nil.
func optList[T any](opt func(*T)) []func(*T) {
	if opt == nil {
		return nil
	}
	return []func(*T){opt}
}

// callCounter is a DynamoDB client that counts the calls made through it,
// and the writes refused because another writer got there first (races).
type callCounter struct {
	dynamoseq.Client
	queries, gets, puts, transactions atomic.Int64
	races                             atomic.Int64
	conflicts                         atomic.Int64 // races with a transaction in flight
	stored                            atomic.Int64 // items stored by successful writes
	writes                            atomic.Int64 // successful writes
	writeNanos                        atomic.Int64 // time spent in write calls, all of them
	lostNanos                         atomic.Int64 // time spent in write calls that lost a race
	queryNanos                        atomic.Int64 // time spent in Queries
}

// wrote records a write call that took since start and stored n items when
// err is nil.
func (c *callCounter) wrote(start time.Time, n int, err error) {
	c.writeNanos.Add(int64(time.Since(start)))
	if lostRace(err) {
		c.lostNanos.Add(int64(time.Since(start)))
	}
	if conflicted(err) {
		c.conflicts.Add(1)
	}
	if err == nil {
		c.writes.Add(1)
		c.stored.Add(int64(n))
	}
}

// total is the number of calls made.
func (c *callCounter) total() int64 {
	return c.queries.Load() + c.gets.Load() + c.puts.Load() + c.transactions.Load()
}

// reset sets every count to zero.
func (c *callCounter) reset() {
	for _, n := range []*atomic.Int64{&c.queries, &c.gets, &c.puts, &c.transactions, &c.races, &c.conflicts, &c.stored, &c.writes, &c.writeNanos, &c.lostNanos, &c.queryNanos} {
		n.Store(0)
	}
}

func (c *callCounter) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.queries.Add(1)
	defer func(start time.Time) { c.queryNanos.Add(int64(time.Since(start))) }(time.Now())
	return c.Client.Query(ctx, in, optFns...)
}

func (c *callCounter) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.gets.Add(1)
	return c.Client.GetItem(ctx, in, optFns...)
}

func (c *callCounter) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.puts.Add(1)
	start := time.Now()
	out, err := c.Client.PutItem(ctx, in, optFns...)
	c.wrote(start, 1, err)
	if lostRace(err) {
		c.races.Add(1)
	}
	return out, err
}

func (c *callCounter) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c.transactions.Add(1)
	start := time.Now()
	out, err := c.Client.TransactWriteItems(ctx, in, optFns...)
	puts := 0
	for _, a := range in.TransactItems {
		if a.Put != nil {
			puts++
		}
	}
	c.wrote(start, puts, err)
	if lostRace(err) {
		c.races.Add(1)
	}
	return out, err
}

// interleave calls baseline and lib warm times each, to let DynamoDB Local
// compile both paths, then alternates them b.N times, timing each call, so
// that both see the same server state, and reports each one's mean time
// per call and their ratio (dynamoseq/baseline).
func interleave(b *testing.B, warm int, baseline, lib func() error) {
	b.Helper()
	for range warm {
		if err := baseline(); err != nil {
			b.Fatal(err)
		}
		if err := lib(); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	var rawTotal, libTotal time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := baseline(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := lib(); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		rawTotal += t1.Sub(t0)
		libTotal += t2.Sub(t1)
	}
	b.ReportMetric(float64(rawTotal.Nanoseconds())/float64(b.N), "baseline-ns/call")
	b.ReportMetric(float64(libTotal.Nanoseconds())/float64(b.N), "dynamoseq-ns/call")
	b.ReportMetric(float64(libTotal)/float64(rawTotal), "dynamoseq/baseline")
}
