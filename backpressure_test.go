package dynamoseq_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// The tests of this file run every strategy on the service model
// (dynamoseqtest.WithService): one hot name, over the capacity of its
// partition, so that DynamoDB throttles it, in either form. Without
// deadlines no caller may see an error, and every guarantee holds.
//
// The capacities are sized so that each case is throttled within its
// first few hundred milliseconds, also on a loaded machine that sends at
// half its usual rate, and ends in about two to four seconds: the time is
// the units written divided by the partition's rate. Burst (a tenth of a
// second of the rate) keeps the first, unthrottled, burst short.

// throttleForms are the two forms of a throttle: an exception
// (ThrottlingException, ProvisionedThroughputExceededException) for a
// single-item request, a cancellation reason (ThrottlingError,
// ProvisionedThroughputExceeded) for a transaction.
var throttleForms = []struct {
	name string
	form dynamoseqtest.ThrottleForm
}{
	{"on-demand", dynamoseqtest.ThrottleOnDemand},
	{"provisioned", dynamoseqtest.ThrottleProvisioned},
}

// hotService is the model of a case: a partition of writeUnits a second,
// the published latencies.
func hotService(form dynamoseqtest.ThrottleForm, writeUnits float64) dynamoseqtest.Service {
	return dynamoseqtest.Service{WriteUnits: writeUnits, Burst: 100 * time.Millisecond, Throttle: form}
}

// requireNoErrors fails t with the first caller errors of results.
func requireNoErrors(t *testing.T, results []appendResult) {
	t.Helper()
	var failed []string
	for _, r := range results {
		if r.err != nil {
			failed = append(failed, r.err.Error())
		}
	}
	require.Empty(t, failed, "%d of %d callers got an error", len(failed), len(results))
}

// modelFigures logs what a case did on the model: its throughput, the
// write units it was charged per number, the ceiling of that write
// pattern on one partition (writeUnits a second over the units per
// number) and the share of it reached, and the throttles, and requires
// that the case was throttled at all (else it proves nothing).
func modelFigures(t *testing.T, srv *dynamoseqtest.Server, writeUnits float64, numbers int, took time.Duration, capacity dynamoseq.CapacityFigures) {
	t.Helper()
	total := srv.ModelStats()
	perNumber := total.WriteUnits / float64(numbers)
	rate := float64(numbers) / took.Seconds()
	ceiling := writeUnits / perNumber
	t.Logf("%d numbers in %v: %.0f/s; %.2f write units a number, ceiling %.0f/s, %.0f%% of it; model: %d requests, %d throttled (requests and transactions), %d conflicts (requests and transactions)",
		numbers, took.Round(time.Millisecond), rate, perNumber, ceiling, 100*rate/ceiling,
		total.Requests, total.Throttled, total.Conflicts)
	t.Logf("library: %+v", capacity)
	require.Positive(t, total.Throttled, "the model throttled nothing: the test proves nothing")
}

// TestModelHotNameAppend: SortKey and Latest, with and without
// transactions, 16 goroutines appending to one name over its partition's
// capacity, in either form of throttling: no caller gets an error, the
// numbers are 1..k with no gap, each item is stored once at the number
// its caller was told, and Latest's 'latest' holds the largest version
// (one behind at most without transactions, which GetLatest repairs).
func TestModelHotNameAppend(t *testing.T) {
	t.Parallel()
	cases := []struct {
		strategy   string
		noTx       bool
		writeUnits float64 // the partition's capacity
		each       int     // appends per goroutine
	}{
		{"SortKey", false, 150, 12},
		{"Latest", false, 150, 10},
		{"SortKey", true, 25, 4},
		{"Latest", true, 25, 3},
	}
	for _, form := range throttleForms {
		for _, c := range cases {
			name := c.strategy
			if c.noTx {
				name += "/NoTransactions"
			}
			t.Run(form.name+"/"+name, func(t *testing.T) {
				t.Parallel()
				srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(hotService(form.form, c.writeUnits)))
				table := srv.NewTable(t, dynamoseq.SortKeyTable("hot"))
				appendFn, stats, latest := modelAppender(t, c.strategy, srv.Client(), table, c.noTx)
				start := time.Now()
				results := appendBodies(appendFn, "hot", "b", 16, c.each, 0)
				took := time.Since(start)
				requireNoErrors(t, results)
				checkAppends(t, srv.Client(), table, "hot", results, false)
				if latest != nil {
					checkLatestPointer(t, srv, latest, table, "hot", len(results), c.noTx)
				}
				modelFigures(t, srv, c.writeUnits, len(results), took, stats().Capacity())
			})
		}
	}
}

// modelAppender returns the Append of a new SortKey or Latest over table
// with the default options (but for NoTransactions), its Stats, and the
// Latest itself (nil for a SortKey).
func modelAppender(t *testing.T, strategy string, client dynamoseq.Client, table string, noTx bool) (appender, func() dynamoseq.AppendFigures, *dynamoseq.Latest) {
	t.Helper()
	if strategy == "SortKey" {
		s, err := dynamoseq.NewSortKey(client, table, func(o *dynamoseq.SortKeyOptions) { o.NoTransactions = noTx })
		require.NoError(t, err)
		return s.Append, func() dynamoseq.AppendFigures { return s.Figures() }, nil
	}
	l, err := dynamoseq.NewLatest(client, table, func(o *dynamoseq.LatestOptions) { o.NoTransactions = noTx })
	require.NoError(t, err)
	return l.Append, func() dynamoseq.AppendFigures { return l.Figures() }, l
}

// checkLatestPointer checks that the 'latest' item of name holds version
// newest (without transactions, newest-1 is allowed: the last move may
// have been throttled, and the next Append or GetLatest repairs it), and
// that GetLatest returns newest.
func checkLatestPointer(t *testing.T, srv *dynamoseqtest.Server, l *dynamoseq.Latest, table, name string, newest int, noTx bool) {
	t.Helper()
	item := collection(t, srv.Client(), table, name)[0]
	require.NotNil(t, item, "no 'latest' item")
	held, err := strconv.Atoi(item["version"].(*types.AttributeValueMemberN).Value)
	require.NoError(t, err)
	if noTx {
		require.Contains(t, []int{newest - 1, newest}, held, "'latest' holds version %d, the newest is %d", held, newest)
	} else {
		require.Equal(t, newest, held, "the version 'latest' holds")
	}
	v, err := l.GetLatest(context.Background(), name, nil)
	require.NoError(t, err)
	require.Equal(t, int64(newest), v, "GetLatest")
}

// TestModelHotNameCounters: Counter, Block and IDMinter, 16 goroutines on
// one name over its partition's capacity: no caller gets an error, no
// number is handed out twice.
func TestModelHotNameCounters(t *testing.T) {
	t.Parallel()
	cases := []struct {
		strategy   string
		writeUnits float64
		each       int
	}{
		{"Counter", 15, 20}, // group commit: about 10 numbers a write unit
		{"Block", 10, 20},
		{"IDMinter", 15, 20},
	}
	for _, form := range throttleForms {
		for _, c := range cases {
			t.Run(form.name+"/"+c.strategy, func(t *testing.T) {
				t.Parallel()
				srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(hotService(form.form, c.writeUnits)))
				table := srv.NewTable(t, dynamoseq.CounterTable("hot"))
				counter, err := dynamoseq.NewCounter(srv.Client(), table)
				require.NoError(t, err)
				next := counterNext(t, c.strategy, counter)
				var mu sync.Mutex
				seen := map[string]bool{}
				start := time.Now()
				got := fanOut(t, 16, c.each, func(g, i int) (string, error) {
					v, err := next(g)
					if err != nil {
						return "", err
					}
					mu.Lock()
					defer mu.Unlock()
					if seen[v] {
						t.Errorf("%s handed out twice", v)
					}
					seen[v] = true
					return v, nil
				})
				took := time.Since(start)
				require.Len(t, seen, 16*c.each, "values handed out")
				requireIncreasingIDs(t, got)
				st := counter.Figures()
				require.Zero(t, st.Errors.Total(), "the counter's failed calls: %+v", st.Errors)
				modelFigures(t, srv, c.writeUnits, len(seen), took, st.Capacity())
			})
		}
	}
}

// requireIncreasingIDs requires each goroutine's values, numbers or
// readable IDs of one width, to increase (compared as strings, the
// shorter first).
func requireIncreasingIDs(t *testing.T, got [][]string) {
	t.Helper()
	less := func(a, b string) bool { return len(a) < len(b) || len(a) == len(b) && a < b }
	for g, values := range got {
		for i := 1; i < len(values); i++ {
			require.True(t, less(values[i-1], values[i]), "goroutine %d: %s then %s, want a larger value", g, values[i-1], values[i])
		}
	}
}

// counterNext returns the Next of the strategy over counter, for the
// goroutine g: a Counter's, a Block of 2 of the goroutine's own (so that
// 16 Blocks lease from one counter item, as 16 processes would), or a
// daily IDMinter's.
func counterNext(t *testing.T, strategy string, counter *dynamoseq.Counter) func(g int) (string, error) {
	t.Helper()
	switch strategy {
	case "Counter":
		return func(int) (string, error) {
			n, err := counter.Next(context.Background(), "hot")
			return strconv.FormatInt(n, 10), err
		}
	case "Block":
		blocks := make([]*dynamoseq.Block, 16)
		for g := range blocks {
			b, err := dynamoseq.NewBlock(counter, 2, func(o *dynamoseq.BlockOptions) { o.MaxSize = 2 })
			require.NoError(t, err)
			t.Cleanup(func() { _ = b.Close() })
			blocks[g] = b
		}
		return func(g int) (string, error) {
			n, err := blocks[g].Next(context.Background(), "hot")
			return strconv.FormatInt(n, 10), err
		}
	}
	m, err := dynamoseq.NewIDMinter(counter, dynamoseq.Format{Prefix: "ORD", DateLayout: "060102", Separator: "-", Width: 6}, dynamoseq.Daily)
	require.NoError(t, err)
	return func(int) (string, error) { return m.Next(context.Background(), "hot") }
}

func init() {
	helpers["model-append"] = func(t *testing.T) {
		// Goroutines of one process appending to one name on the model
		// (whose endpoint the parent passed as the server's), without
		// deadlines: each result on a line.
		appendFn, _, _ := modelAppender(t, os.Getenv("STRATEGY"), dbtest.Client(t), os.Getenv("TABLE"), false)
		goroutines, _ := strconv.Atoi(os.Getenv("GOROUTINES"))
		each, _ := strconv.Atoi(os.Getenv("EACH"))
		for _, r := range appendBodies(appendFn, "hot", fmt.Sprintf("p%d", os.Getpid()), goroutines, each, 0) {
			outcome := "ok"
			if r.err != nil {
				outcome = strings.ReplaceAll(r.err.Error(), "\n", " ")
			}
			fmt.Printf("appended %s %d %s\n", r.body, r.n, outcome)
		}
	}
}

// TestModelHotNameProcesses: SortKey and Latest from 4 OS processes x 4
// goroutines appending to one name over its partition's capacity, in
// either form of throttling: no caller gets an error, and every guarantee
// holds, across processes (which also meet conflicts of each other's
// transactions).
func TestModelHotNameProcesses(t *testing.T) {
	t.Parallel()
	const processes, goroutines, writeUnits = 4, 4, 100
	for _, form := range throttleForms {
		// A Latest's batches in turns are small: about 3 units a version.
		for strategy, each := range map[string]int{"SortKey": 12, "Latest": 8} {
			t.Run(form.name+"/"+strategy, func(t *testing.T) {
				t.Parallel()
				srv, table, outs, took := hotProcesses(t, form.form, writeUnits, dynamoseq.SortKeyTable("hot"),
					"model-append", strategy, processes, goroutines, each)
				var results []appendResult
				for _, l := range outputLines(outs, "appended ") {
					fields := strings.SplitN(l, " ", 3)
					require.Len(t, fields, 3, "line %q", l)
					n, err := strconv.ParseInt(fields[1], 10, 64)
					require.NoError(t, err, "line %q", l)
					r := appendResult{body: fields[0], n: n}
					if fields[2] != "ok" {
						r.err = errors.New(fields[2])
					}
					results = append(results, r)
				}
				require.Len(t, results, processes*goroutines*each, "results reported")
				requireNoErrors(t, results)
				checkAppends(t, srv.Client(), table, "hot", results, false)
				if strategy == "Latest" {
					l, err := dynamoseq.NewLatest(srv.Client(), table)
					require.NoError(t, err)
					checkLatestPointer(t, srv, l, table, "hot", len(results), false)
				}
				modelFigures(t, srv, writeUnits, len(results), took, dynamoseq.CapacityFigures{})
			})
		}
	}
}

func init() {
	helpers["model-counter"] = func(t *testing.T) {
		// Goroutines of one process taking numbers of one name on the
		// model (whose endpoint the parent passed as the server's), without
		// deadlines: each goroutine's values on a line, in order.
		counter, err := dynamoseq.NewCounter(dbtest.Client(t), os.Getenv("TABLE"))
		require.NoError(t, err)
		next := counterNext(t, os.Getenv("STRATEGY"), counter)
		goroutines, _ := strconv.Atoi(os.Getenv("GOROUTINES"))
		each, _ := strconv.Atoi(os.Getenv("EACH"))
		for _, values := range fanOut(t, goroutines, each, func(g, _ int) (string, error) { return next(g) }) {
			fmt.Printf("minted %s\n", strings.Join(values, " "))
		}
	}
}

// TestModelHotNameCounterProcesses: Counter, Block and IDMinter from 4 OS
// processes x 4 goroutines on one name over its partition's capacity, in
// either form of throttling: no caller gets an error (a helper process
// fails on one), no value is handed out twice, and each goroutine's values
// increase.
func TestModelHotNameCounterProcesses(t *testing.T) {
	t.Parallel()
	const processes, goroutines, each, writeUnits = 4, 4, 15, 25
	for _, form := range throttleForms {
		for _, strategy := range []string{"Counter", "Block", "IDMinter"} {
			t.Run(form.name+"/"+strategy, func(t *testing.T) {
				t.Parallel()
				srv, _, outs, took := hotProcesses(t, form.form, writeUnits, dynamoseq.CounterTable("hot"),
					"model-counter", strategy, processes, goroutines, each)
				var got [][]string
				seen := map[string]bool{}
				for _, l := range outputLines(outs, "minted ") {
					values := strings.Fields(l)
					for _, v := range values {
						require.False(t, seen[v], "%s handed out twice", v)
						seen[v] = true
					}
					got = append(got, values)
				}
				require.Len(t, seen, processes*goroutines*each, "values handed out")
				requireIncreasingIDs(t, got)
				modelFigures(t, srv, writeUnits, len(seen), took, dynamoseq.CapacityFigures{})
			})
		}
	}
}

// hotProcesses runs helper (with STRATEGY, GOROUTINES and EACH) in
// processes OS processes against a new table made by def on a model whose
// partitions take writeUnits a second, throttled in form. It returns the
// model, the table, the processes' outputs and how long they took.
func hotProcesses(t *testing.T, form dynamoseqtest.ThrottleForm, writeUnits float64, def *dynamodb.CreateTableInput,
	helper, strategy string, processes, goroutines, each int) (*dynamoseqtest.Server, string, [][]byte, time.Duration) {
	t.Helper()
	srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(hotService(form, writeUnits)))
	table := srv.NewTable(t, def)
	start := time.Now()
	outs := dbtest.RunProcesses(t, processes, helper, "STRATEGY="+strategy, "TABLE="+table,
		"GOROUTINES="+strconv.Itoa(goroutines), "EACH="+strconv.Itoa(each), dbtest.EndpointEnv+"="+srv.Endpoint())
	return srv, table, outs, time.Since(start)
}
