package dynamoseq_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// naiveAppend is the published recipe that SortKey replaces: a strongly
// consistent Query for the largest sort key, a PutItem at the next number
// with attribute_not_exists, and on a failed condition the same again at
// once.
func naiveAppend(ctx context.Context, client dynamoseq.Client, table, pk string, title string) (int64, error) {
	for {
		out, err := client.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(table),
			KeyConditionExpression:    aws.String("pk = :pk"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}},
			ScanIndexForward:          aws.Bool(false),
			Limit:                     aws.Int32(1),
			ConsistentRead:            aws.Bool(true),
		})
		if err != nil {
			return 0, err
		}
		last := int64(0)
		if len(out.Items) > 0 {
			last, err = strconv.ParseInt(out.Items[0]["sk"].(*types.AttributeValueMemberN).Value, 10, 64)
			if err != nil {
				return 0, err
			}
		}
		_, err = client.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String(table),
			Item: map[string]types.AttributeValue{
				"pk":    &types.AttributeValueMemberS{Value: pk},
				"sk":    &types.AttributeValueMemberN{Value: strconv.FormatInt(last+1, 10)},
				"title": &types.AttributeValueMemberS{Value: title},
			},
			ConditionExpression: aws.String("attribute_not_exists(pk)"),
		})
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			continue
		}
		if err != nil {
			return 0, err
		}
		return last + 1, nil
	}
}

type benchTicket struct {
	Title string `dynamodbav:"title"`
}

// BenchmarkSortKeyAppend compares SortKey.Append with the naive recipe
// (naiveAppend) on one item collection, in the same run against the same
// DynamoDB Local:
//
//   - writers=1: one goroutine appending in a loop;
//   - goroutines=16: sixteen goroutines of one process on one name;
//   - instances=4x4: four SortKeys, each with its own client and four
//     goroutines, on one name. They stand for four processes: each has its
//     own hints and queue, so they race each other through DynamoDB exactly
//     as processes do (separate OS processes are used by
//     TestSortKeyAppendProcesses; in a benchmark their start-up would be
//     timed too). For the baseline the recipe has no state, so it is
//     sixteen goroutines again.
//
// Each in two rows:
//
//   - steady: the same SortKeys throughout (every run of the row), on a
//     name no other writes: a process at work;
//   - start: rounds of startRound appends, each by new SortKeys (the same
//     clients) on a name the round before's SortKeys wrote flat out a
//     moment ago (the first round's, untimed): what a process pays when it
//     comes to a name another has just left (a restart, a deploy). The
//     recipe keeps nothing, so its start row is its steady one again.
//
// Each reports appends/s and the p99 and maximum latency of one append in
// milliseconds; make bench prints the ratios. The dynamoseq rows also
// report, per 1,000 appends, the reads (Queries) and the turns taken, and
// the share of the time each SortKey spent waiting in turns (turnwait-%):
// at writers=1 steady, the solo turns' gaps (see internal/engine/turns.go).
func BenchmarkSortKeyAppend(b *testing.B) {
	client := dbtest.Client(b)
	table := dbtest.SortKeyTable(b, client, types.ScalarAttributeTypeN)
	// Warm DynamoDB Local's JVM, as BenchmarkCounterNext does.
	for i := range 1500 {
		if _, err := naiveAppend(context.Background(), client, table, "warm-up-"+strconv.Itoa(i%16), "warm"); err != nil {
			b.Fatal(err)
		}
	}
	clients := []dynamoseq.Client{client, dbtest.Client(b), dbtest.Client(b), dbtest.Client(b)}
	naive := func(name string) appenders {
		return appenders{call: func(int) func(context.Context) error {
			return func(ctx context.Context) error {
				_, err := naiveAppend(ctx, client, table, name, "a ticket")
				return err
			}
		}}
	}
	for _, bc := range []struct {
		name       string
		goroutines int
		instances  int
	}{
		{"writers=1", 1, 1},
		{"goroutines=16", 16, 1},
		{"instances=4x4", 16, 4},
	} {
		steady := newAppenders(b, clients[:bc.instances], table, "lib-steady-"+bc.name)
		b.Run(bc.name+"/steady/baseline", func(b *testing.B) {
			runSortKeyAppends(b, bc.goroutines, naive("raw-steady-"+bc.name))
		})
		b.Run(bc.name+"/steady/dynamoseq", func(b *testing.B) {
			runSortKeyAppends(b, bc.goroutines, steady)
		})
		b.Run(bc.name+"/start/baseline", func(b *testing.B) {
			runSortKeyStarts(b, bc.goroutines, func() appenders { return naive("raw-start-" + bc.name) })
		})
		b.Run(bc.name+"/start/dynamoseq", func(b *testing.B) {
			runSortKeyStarts(b, bc.goroutines, func() appenders {
				return newAppenders(b, clients[:bc.instances], table, "lib-start-"+bc.name)
			})
		})
	}
}

// startRound is how many appends each set of new SortKeys makes in the
// start rows of BenchmarkSortKeyAppend: about a third of a second at
// writers=1 on DynamoDB Local.
const startRound = 200

// appenders is a set of appenders of one name: what goroutine g calls, and
// the SortKeys they call (none for the recipe).
type appenders struct {
	call func(g int) func(context.Context) error
	sks  []*dynamoseq.SortKey
}

// newAppenders returns a new SortKey on each of clients, as many
// processes, that append to name in table; goroutine g calls SortKey g
// modulo their number.
func newAppenders(b *testing.B, clients []dynamoseq.Client, table, name string) appenders {
	a := appenders{sks: make([]*dynamoseq.SortKey, len(clients))}
	for i, c := range clients {
		s, err := dynamoseq.NewSortKey(c, table)
		if err != nil {
			b.Fatal(err)
		}
		a.sks[i] = s
	}
	a.call = func(g int) func(context.Context) error {
		s := a.sks[g%len(a.sks)]
		return func(ctx context.Context) error {
			_, err := s.Append(ctx, name, benchTicket{Title: "a ticket"})
			return err
		}
	}
	return a
}

// figures returns the reads, turns and time waited in turns of the
// SortKeys of a, in all.
func (a appenders) figures() (reads, turns int64, waited time.Duration) {
	for _, s := range a.sks {
		f := s.Figures()
		reads, turns, waited = reads+f.Reads, turns+f.Turns, waited+f.TurnWait
	}
	return reads, turns, waited
}

// runSortKeyAppends runs b.N appends in all from the given number of
// goroutines of a, after one to warm the connection and the hint, and
// reports them (see reportAppends).
func runSortKeyAppends(b *testing.B, goroutines int, a appenders) {
	b.ReportAllocs()
	ctx := context.Background()
	appends := make([]func(context.Context) error, goroutines)
	for g := range appends {
		appends[g] = a.call(g)
	}
	if err := appends[0](ctx); err != nil { // warm the connection and the hint
		b.Fatal(err)
	}
	reads, turns, waited := a.figures()
	all, elapsed := timeCalls(b, goroutines, func(g int) error { return appends[g](ctx) })
	r, tu, w := a.figures()
	reportAppends(b, all, elapsed, len(a.sks), r-reads, tu-turns, w-waited)
}

// runSortKeyStarts runs b.N appends in rounds of startRound from the given
// number of goroutines, each round by a new set of appenders (newSet) on a
// name that the set before wrote flat out a moment ago (before the first
// round, an untimed one), and reports them (see reportAppends).
func runSortKeyStarts(b *testing.B, goroutines int, newSet func() appenders) {
	b.ReportAllocs()
	ctx := context.Background()
	instances := 0
	if _, _, err := timeRound(ctx, goroutines, startRound, newSet()); err != nil {
		b.Fatal(err)
	}
	var all []time.Duration
	var elapsed, waited time.Duration
	var reads, turns int64
	b.ResetTimer()
	for done := 0; done < b.N; done += startRound {
		b.StopTimer()
		set := newSet()
		b.StartTimer()
		lats, took, err := timeRound(ctx, goroutines, min(startRound, b.N-done), set)
		if err != nil {
			b.Fatal(err)
		}
		r, tu, w := set.figures()
		all, elapsed, instances = append(all, lats...), elapsed+took, len(set.sks)
		reads, turns, waited = reads+r, turns+tu, waited+w
	}
	b.StopTimer()
	slices.Sort(all)
	reportAppends(b, all, elapsed, instances, reads, turns, waited)
}

// timeRound makes n calls in all of a from the given number of goroutines
// and returns their latencies, the time they took together, and the errors.
func timeRound(ctx context.Context, goroutines, n int, a appenders) ([]time.Duration, time.Duration, error) {
	lats := make([][]time.Duration, goroutines)
	errs := make([]error, goroutines)
	calls := make([]func(context.Context) error, goroutines)
	for g := range calls {
		calls[g] = a.call(g)
	}
	var wg sync.WaitGroup
	start := time.Now()
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range shareOf(n, goroutines, g) {
				t0 := time.Now()
				if errs[g] = calls[g](ctx); errs[g] != nil {
					return
				}
				lats[g] = append(lats[g], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	return slices.Concat(lats...), time.Since(start), errors.Join(errs...)
}

// reportAppends reports the throughput and the latency of the slowest of
// all (sorted), made in elapsed, and for SortKeys (instances of them) the
// reads and turns per 1,000 appends and the share of each one's time spent
// waiting in turns.
func reportAppends(b *testing.B, all []time.Duration, elapsed time.Duration, instances int, reads, turns int64, waited time.Duration) {
	if len(all) == 0 {
		return
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "appends/s")
	b.ReportMetric(ms(all[(len(all)*99)/100]), "p99-ms")
	b.ReportMetric(ms(all[len(all)-1]), "max-ms")
	if instances == 0 {
		return
	}
	per1k := func(n int64) float64 { return 1000 * float64(n) / float64(len(all)) }
	b.ReportMetric(per1k(reads), "reads/1k")
	b.ReportMetric(per1k(turns), "turns/1k")
	b.ReportMetric(100*float64(waited)/float64(elapsed)/float64(instances), "turnwait-%")
}

// BenchmarkSortKeyAppendInterleaved alternates one warm SortKey.Append and
// one raw PutItem at the next number (attribute_not_exists, the number kept
// in a local variable, as a warm writer does), each on its own name, and
// times each, so that both see the same server state; see
// BenchmarkLatestAppendInterleaved. It reports each one's mean time per
// append and their ratio (dynamoseq/baseline).
func BenchmarkSortKeyAppendInterleaved(b *testing.B) {
	client := dbtest.Client(b)
	table := dbtest.SortKeyTable(b, client, types.ScalarAttributeTypeN)
	s, err := dynamoseq.NewSortKey(client, table)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	item := benchTicket{Title: "a ticket of about forty bytes of text"}
	last := int64(0)
	raw := func() error {
		_, err := client.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String(table),
			Item: map[string]types.AttributeValue{
				"pk":    &types.AttributeValueMemberS{Value: "raw"},
				"sk":    &types.AttributeValueMemberN{Value: strconv.FormatInt(last+1, 10)},
				"title": &types.AttributeValueMemberS{Value: item.Title},
			},
			ConditionExpression: aws.String("attribute_not_exists(pk)"),
		})
		last++
		return err
	}
	interleave(b, 600, raw, func() error { // see BenchmarkLatestAppend for the warm-up
		_, err := s.Append(ctx, "lib", item)
		return err
	})
}
