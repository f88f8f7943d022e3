package dynamoseq_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// The model set of make bench: every strategy on the service model of
// dynamoseqtest (WithService), one hot name, beside the recipe it replaces,
// in the same run. The model, not DynamoDB Local, sets the pace there: a
// partition key value takes 1,000 write units a second (Scale 1), so each
// benchmark reports the numbers stored a second and per write unit, and
// the ceiling of its write pattern (the partition's write units a second
// divided by the write units the model charged per number handed out).
//
// Each row runs on several models: one for each bucket depth of
// modelBursts (Service.Burst: how much of a second's capacity a partition
// can bank, which AWS does not document per partition) and each seed of
// the latency draws (Service.Seed, 1 to DYNAMOSEQ_BENCH_SEEDS). Each of
// those windows is a sub-benchmark of its own,
// <row>/burst=<depth>/seed=<n>/<side>, the recipe's window just before the
// library's on the same depth and seed; tools/benchratio and
// tools/benchplot report a row as the median and the range of its windows,
// never one of them.
//
// Before the first window, DynamoDB Local is warmed up (warmLocal). Each
// window starts a model of its own (fresh buckets), creates its
// table, warms the connection on other names, drains the hot name's bucket
// (drainPartition), and then runs its writers flat out for a ramp and a
// window: only the calls that end inside the window count, and the model's
// figures are taken at the window's two ends, so what is measured is the
// steady state of a hot partition, without the one-off burst of a full
// bucket. Calls that fail are counted, not fatal. The window does not
// depend on b.N (run with -benchtime 1x); ns/op is set to 1/(ops/s).
//
// The units a bucket holds at the window's two ends may differ by up to
// its depth, so a window of w seconds may read up to depth/w above or
// below the steady state. A window is therefore at least
// minWindowPerDepth times the bucket's depth.
//
// The model runs at Scale 1 by default: the library's own time constants
// (the cap of its waits for capacity, Retry.MaxDelay, the contention
// window between processes) and the SDK's backoff are in the machine's
// seconds and do not scale with the model, so a row measured at another
// scale measures the library with waits the service would not see.
//
// DYNAMOSEQ_BENCH_SCALE sets the model's scale (default 1);
// DYNAMOSEQ_BENCH_WINDOW the sweep's window (default 1s; twice that with
// 16 writers, six times from processes; at least minWindowPerDepth depths);
// DYNAMOSEQ_BENCH_BURSTS the bucket depths, comma-separated (default
// 20ms,100ms,1s); DYNAMOSEQ_BENCH_SEEDS the seeds of each row and depth
// (default 2); DYNAMOSEQ_BENCH_LATENCY a factor on the model's published
// latencies (default 1; 0.5 halves them); DYNAMOSEQ_BENCH_RAMP the ramp
// before each window (default 0.4s/scale, long enough for the bucket's
// drain to settle; soloRamp/scale for the main rows, long enough for a
// SortKey's or Latest's solo turns to grow).

// modelAttrs is what each append stores beside its key: a title of about
// forty bytes, as BenchmarkProcessesOneName stores.
var modelAttrs = map[string]types.AttributeValue{"title": &types.AttributeValueMemberS{Value: "a ticket of about forty bytes of text"}}

// mainWindowFactor is how much longer than the sweep's the window of the
// 16-writer rows is.
const mainWindowFactor = 2

// soloRamp is the ramp of the main rows: a SortKey or Latest that writes a
// name flat out holds solo turns of 2, 4, 8, ... round trips, up to 2 s
// (engine.Turns), each followed by a gap of 2 round trips. After 4 s at a
// round trip of 30-40 ms its turns have about reached that length, so the
// window measures a name written for a while, not its first seconds, when
// the gaps take about a tenth of the time, not about 5% (docs/performance.md).
const soloRamp = 4 * time.Second

// modelWriters are the writer counts of the sweep; the last is the hot
// name's main figure.
var modelWriters = []int{1, 2, 4, 8, 16}

// modelBench holds what the benchmarks on the model share.
type modelBench struct {
	scale        float64
	latency      float64 // factor on the published latencies
	ramp, window time.Duration
	mainRamp     time.Duration   // the ramp of the main rows (see soloRamp)
	bursts       []time.Duration // the bucket depths a row runs on
	burst        time.Duration   // the depth of the window being run
	seeds        int             // the models a row runs on at each depth
}

// modelBursts are the bucket depths (Service.Burst) every row runs on by
// default: from a bucket smaller than one of the library's batches to the
// model's default of one second.
var modelBursts = []time.Duration{20 * time.Millisecond, 100 * time.Millisecond, time.Second}

// modelSeeds is how many models, seeded 1, 2, ..., a row runs on at each
// bucket depth by default.
const modelSeeds = 2

// minWindowPerDepth is the shortest window, in bucket depths: the bucket's
// level at the window's ends moves a reading by at most 1/minWindowPerDepth.
const minWindowPerDepth = 3

func newModelBench(b *testing.B) modelBench {
	b.Helper()
	mb := modelBench{scale: 1, window: time.Second, bursts: modelBursts, seeds: modelSeeds, latency: 1}
	envFloat(b, "DYNAMOSEQ_BENCH_SCALE", &mb.scale)
	envFloat(b, "DYNAMOSEQ_BENCH_LATENCY", &mb.latency)
	envDuration(b, "DYNAMOSEQ_BENCH_WINDOW", &mb.window)
	if s := os.Getenv("DYNAMOSEQ_BENCH_BURSTS"); s != "" {
		mb.bursts = nil
		for _, f := range strings.Split(s, ",") {
			d, err := time.ParseDuration(strings.TrimSpace(f))
			if err != nil || d <= 0 {
				b.Fatalf("DYNAMOSEQ_BENCH_BURSTS=%q: want positive durations, comma-separated", s)
			}
			mb.bursts = append(mb.bursts, d)
		}
	}
	mb.ramp = time.Duration(float64(400*time.Millisecond) / mb.scale)
	mb.mainRamp = time.Duration(float64(soloRamp) / mb.scale)
	envDuration(b, "DYNAMOSEQ_BENCH_RAMP", &mb.ramp)
	envDuration(b, "DYNAMOSEQ_BENCH_RAMP", &mb.mainRamp)
	if s := os.Getenv("DYNAMOSEQ_BENCH_SEEDS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			b.Fatalf("DYNAMOSEQ_BENCH_SEEDS=%q: want a positive integer", s)
		}
		mb.seeds = v
	}
	warmLocal(b)
	return mb
}

// envFloat sets *v from the environment variable name, when it is set.
func envFloat(b *testing.B, name string, v *float64) {
	b.Helper()
	if s := os.Getenv(name); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f <= 0 {
			b.Fatalf("%s=%q: want a positive number", name, s)
		}
		*v = f
	}
}

// envDuration sets *v from the environment variable name, when set: a
// positive duration (time.ParseDuration), else the benchmark fails.
func envDuration(b *testing.B, name string, v *time.Duration) {
	b.Helper()
	if s := os.Getenv(name); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			b.Fatalf("%s=%q: want a positive duration", name, s)
		}
		*v = d
	}
}

// windows runs run once for each bucket depth, seed and side (baseline,
// then dynamoseq), each a sub-benchmark <depth>/<seed>/<side>, and reports
// each window. The main rows (16 writers, and the processes) run a window
// mainWindowFactor times as long, after the main ramp; a window is at
// least minWindowPerDepth depths of the service's time.
func (mb modelBench) windows(b *testing.B, main bool, run func(b *testing.B, mb modelBench, seed uint64, mode string) window) {
	factor := time.Duration(1)
	if main {
		factor, mb.ramp = mainWindowFactor, mb.mainRamp
	}
	for _, burst := range mb.bursts {
		for seed := 1; seed <= mb.seeds; seed++ {
			for _, mode := range []string{"baseline", "dynamoseq"} {
				b.Run(fmt.Sprintf("burst=%v/seed=%d/%s", burst, seed, mode), func(b *testing.B) {
					mb := mb
					mb.burst = burst
					mb.window = max(mb.window*factor, time.Duration(float64(minWindowPerDepth*burst)/mb.scale))
					mb.report(b, run(b, mb, uint64(seed), mode))
				})
			}
		}
	}
}

// start starts a model of the service of the benchmark's own, at the
// benchmark's scale and bucket depth, throttling in the given form, its
// latencies drawn from seed, with opts applied to its Service last.
func (mb modelBench) start(tb testing.TB, form dynamoseqtest.ThrottleForm, seed uint64, opts ...func(*dynamoseqtest.Service)) *dynamoseqtest.Server {
	tb.Helper()
	svc := dynamoseqtest.Service{Scale: mb.scale, Throttle: form, Seed: seed, Burst: mb.burst}
	for _, o := range opts {
		o(&svc)
	}
	if mb.latency != 1 { // the published figures (the Service's defaults) times the factor; each item of a transaction beyond 5 follows its P50
		at := func(d time.Duration) time.Duration { return time.Duration(float64(d) * mb.latency) }
		svc.WriteLatency = dynamoseqtest.Latency{P50: at(7500 * time.Microsecond), P99: at(16 * time.Millisecond)}
		svc.TransactLatency = dynamoseqtest.Latency{P50: at(25 * time.Millisecond), P99: at(95 * time.Millisecond)}
	}
	return dynamoseqtest.Start(tb, dynamoseqtest.WithService(svc))
}

// modelWriteUnits is the model's default write units a second of one
// partition key value (Service.WriteUnits).
const modelWriteUnits = 1000

// capacity is the write units a second of one partition key value.
func (mb modelBench) capacity() float64 { return modelWriteUnits * mb.scale }

// depthUnits is the write units the bucket of one partition key value
// holds: Burst's worth at its rate, the same at any scale.
func (mb modelBench) depthUnits() float64 { return modelWriteUnits * mb.burst.Seconds() }

// modelKinds are the strategies of the model set: the table each needs,
// whether it has a sort key, and the throttle forms its 16-writer row is
// run in (the sweep runs in the first).
var modelKinds = []struct {
	kind  string
	table func(string) *dynamodb.CreateTableInput
	forms []dynamoseqtest.ThrottleForm
	more  []int // writer counts beyond the sweep, in the first form
}{
	// A caller waits a round trip per number at least, so 16 of them get
	// at most 16 numbers a round trip: for a Counter about 2.1 times what
	// one item's write units allow the raw loop, for SortKey and Latest
	// about 85-90% of their ceiling (a transaction's round trip). The rows
	// beyond 16 writers show where the library goes past those bounds.
	{"counter", counterTableDef, []dynamoseqtest.ThrottleForm{dynamoseqtest.ThrottleOnDemand}, []int{64}},
	{"block", counterTableDef, []dynamoseqtest.ThrottleForm{dynamoseqtest.ThrottleOnDemand}, nil},
	{"sortkey", sortKeyTableDef, []dynamoseqtest.ThrottleForm{dynamoseqtest.ThrottleOnDemand, dynamoseqtest.ThrottleProvisioned}, []int{32}},
	{"latest", sortKeyTableDef, []dynamoseqtest.ThrottleForm{dynamoseqtest.ThrottleOnDemand, dynamoseqtest.ThrottleProvisioned}, []int{32}},
}

func counterTableDef(name string) *dynamodb.CreateTableInput { return dynamoseq.CounterTable(name) }
func sortKeyTableDef(name string) *dynamodb.CreateTableInput { return dynamoseq.SortKeyTable(name) }

// formName names a throttle form in a benchmark's name.
func formName(f dynamoseqtest.ThrottleForm) string {
	if f == dynamoseqtest.ThrottleProvisioned {
		return "provisioned"
	}
	return "ondemand"
}

// BenchmarkModel runs each strategy (Counter, Block, SortKey, Latest) on
// the service model from 1, 2, 4, 8 and 16 goroutines on one hot name,
// beside its recipe: the raw UpdateItem ADD loop (rawCounterNext) for
// Counter and Block, the naive Query + conditional Put loop (naiveAppend)
// for SortKey, the hand-written transaction loop (rawLatest) for Latest.
// Names: BenchmarkModel/<kind>/<form>/writers=<n>/burst=<depth>/seed=<n>/{baseline,dynamoseq},
// where form is the throttle form (ondemand: ThrottlingException and
// ThrottlingError cancellations; provisioned: ProvisionedThroughputExceeded
// in both shapes). SortKey and Latest run their 16-writer rows in both
// forms.
func BenchmarkModel(b *testing.B) {
	mb := newModelBench(b)
	for _, k := range modelKinds {
		for i, form := range k.forms {
			for _, writers := range slices.Concat(modelWriters, k.more) {
				if i > 0 && writers != modelWriters[len(modelWriters)-1] {
					continue // the sweep in the first form only
				}
				main := writers == modelWriters[len(modelWriters)-1]
				b.Run(fmt.Sprintf("%s/%s/writers=%d", k.kind, formName(form), writers), func(b *testing.B) {
					mb.windows(b, main, func(b *testing.B, mb modelBench, seed uint64, mode string) window {
						srv := mb.start(b, form, seed)
						table := srv.NewTable(b, k.table("bench"))
						return mb.runInProcess(b, srv, table, k.kind, mode, writers)
					})
				})
			}
		}
	}
}

// runInProcess runs one sub-benchmark of BenchmarkModel: writers
// goroutines of this process on the hot name "hot".
func (mb modelBench) runInProcess(b *testing.B, srv *dynamoseqtest.Server, table, kind, mode string, writers int) window {
	client := srv.Client()
	call := benchAppender(b, client, table, kind, mode, writers)
	warmUp(b, writers, "warm-", call)
	const hot = "hot"
	drainPartition(b, client, table, hot, kind == "sortkey" || kind == "latest", mb.depthUnits())
	var before, after dynamoseqtest.ModelStats
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	b.ResetTimer()
	t := mb.runWindow(writers, func(ctx context.Context, g int) error { return call(ctx, g, hot) },
		func() { before = srv.ModelStats() }, func() { after = srv.ModelStats() })
	b.StopTimer()
	runtime.ReadMemStats(&m1)
	w := window{t: t, p: delta(after, before, table, "S:"+hot)}
	if reqs := after.Requests - before.Requests; reqs > 0 {
		// What the machine added to the model's latencies: DynamoDB
		// Local answering after the drawn latency (ModelStats.Overrun).
		over := float64(after.Overrun-before.Overrun) / float64(time.Millisecond)
		w.extra = map[string]float64{"overrun-ms/req": over / float64(reqs)}
	}
	if n := t.all; n > 0 {
		w.allocs = float64(m1.Mallocs-m0.Mallocs) / float64(n)
		w.bytes = float64(m1.TotalAlloc-m0.TotalAlloc) / float64(n)
	}
	return w
}

// window is what one window of a row measured: the calls that ended in it,
// and the hot partition's figures.
type window struct {
	t             tally
	p             dynamoseqtest.ModelStats
	allocs, bytes float64            // per call, when measured in this process; else 0
	capacity      float64            // the write units a second that bound the row; 0: the partition's
	extra         map[string]float64 // metrics of a shape (BenchmarkModelShapes), or overrun-ms/req, by unit
}

// warmUp makes two calls from each of writers goroutines at once, each on
// a name of its own (prefix and the goroutine), so that the window starts with as many connections
// open as it uses, to the model and from it to DynamoDB Local.
func warmUp(tb testing.TB, writers int, prefix string, call func(ctx context.Context, g int, name string) error) {
	tb.Helper()
	if err := callEach(writers, 2, func(g int) string { return prefix + strconv.Itoa(g) }, call); err != nil {
		tb.Fatalf("warm-up: %v", err)
	}
}

// callEach makes n calls in a row from each of writers goroutines at once,
// goroutine g on the name name(g), and returns the errors of the
// goroutines that stopped at one, joined (nil if none did).
func callEach(writers, n int, name func(g int) string, call func(ctx context.Context, g int, name string) error) error {
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				if errs[g] = call(context.Background(), g, name(g)); errs[g] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// benchAppender returns the call that hands out one number of kind in
// mode (baseline: the recipe; dynamoseq: the library) on the name it is
// given, for goroutine g of writers: the calls of the model benchmarks and
// of BenchmarkProcessesOneName.
func benchAppender(tb testing.TB, client dynamoseq.Client, table, kind, mode string, writers int) func(ctx context.Context, g int, name string) error {
	tb.Helper()
	must := func(err error) {
		if err != nil {
			tb.Fatal(err)
		}
	}
	switch kind + "/" + mode {
	case "counter/baseline", "block/baseline":
		raw := rawCounterNext(client, table)
		return func(ctx context.Context, _ int, name string) error { _, err := raw(ctx, name); return err }
	case "counter/dynamoseq":
		c, err := dynamoseq.NewCounter(client, table)
		must(err)
		return func(ctx context.Context, _ int, name string) error { _, err := c.Next(ctx, name); return err }
	case "block/dynamoseq":
		c, err := dynamoseq.NewCounter(client, table)
		must(err)
		blk, err := dynamoseq.NewBlock(c, 1000)
		must(err)
		tb.Cleanup(func() { _ = blk.Close() })
		return func(ctx context.Context, _ int, name string) error { _, err := blk.Next(ctx, name); return err }
	case "sortkey/baseline":
		return func(ctx context.Context, _ int, name string) error {
			_, err := naiveAppend(ctx, client, table, name, "a ticket of about forty bytes of text")
			return err
		}
	case "sortkey/dynamoseq":
		s, err := dynamoseq.NewSortKey(client, table)
		must(err)
		return func(ctx context.Context, _ int, name string) error {
			_, err := s.Append(ctx, name, modelAttrs)
			return err
		}
	case "latest/baseline":
		raw := rawLatest{client: client, table: table}
		known := make([]map[string]*int64, writers) // each writer's last version, per name
		for g := range known {
			known[g] = map[string]*int64{}
		}
		return func(ctx context.Context, g int, name string) error {
			v := known[g][name]
			if v == nil {
				v = new(int64)
				*v = -1
				known[g][name] = v
			}
			_, err := raw.append(ctx, name, v, modelAttrs)
			return err
		}
	case "latest/dynamoseq":
		l, err := dynamoseq.NewLatest(client, table)
		must(err)
		return func(ctx context.Context, _ int, name string) error {
			_, err := l.Append(ctx, name, modelAttrs)
			return err
		}
	}
	tb.Fatalf("unknown kind/mode %s/%s", kind, mode)
	return nil
}

// drainPartition empties the write bucket of the partition key value
// name, which starts full (a burst of depth write units, Service.Burst's
// worth, that the partition gives once), and leaves it about empty, not in
// debt: it puts an item and deletes it, each charged the item's size (a
// Delete is admitted at 1 unit and charged the item's size), in chunks of
// at most 350 units, half of what is left each, until depth units were
// charged. Each request is admitted since the bucket still holds it. The
// window then measures what the partition gives for ever, not its first
// burst. withSortKey says that the table has a Number sort key; the item
// is then at sort key -1, where no strategy writes. A bucket that refills
// faster than a round trip (a few units) is left as it is.
func drainPartition(tb testing.TB, client *dynamodb.Client, table, name string, withSortKey bool, depth float64) {
	tb.Helper()
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: name}}
	if withSortKey {
		key["sk"] = &types.AttributeValueMemberN{Value: "-1"}
	}
	ctx := context.Background()
	for left := int(depth); left >= 4; {
		units := min(350, left/2)
		// The key and the attribute names take less than 100 bytes.
		item := map[string]types.AttributeValue{"pad": &types.AttributeValueMemberS{Value: strings.Repeat("x", units*1024-100)}}
		for k, v := range key {
			item[k] = v
		}
		if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
			tb.Fatalf("draining the bucket of %s: %v", name, err)
		}
		if _, err := client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key}); err != nil {
			tb.Fatalf("draining the bucket of %s: %v", name, err)
		}
		left -= 2 * units
	}
}

// tally is what the calls that ended inside the window did.
type tally struct {
	ok, failed int64
	lat        latencies        // of the calls that succeeded
	errs       map[string]int64 // failed calls by the error's text (its middle cut out)
	all        int64            // calls made in the whole run, window or not
}

func (t *tally) merge(o *tally) {
	t.ok += o.ok
	t.failed += o.failed
	t.all += o.all
	t.lat.merge(&o.lat)
	for e, n := range o.errs {
		if t.errs == nil {
			t.errs = map[string]int64{}
		}
		t.errs[e] += n
	}
}

// record counts a call that ended inside the window.
func (t *tally) record(took time.Duration, err error) {
	if err == nil {
		t.ok++
		t.lat.add(took)
		return
	}
	t.failed++
	if t.errs == nil {
		t.errs = map[string]int64{}
	}
	msg := err.Error()
	if len(msg) > 300 { // the start names the call, the end the cause
		msg = msg[:120] + " ... " + msg[len(msg)-180:]
	}
	t.errs[msg]++
}

// runWindow runs call flat out from writers goroutines for the ramp and
// the window, calls atWindow when the window opens and atEnd when it
// closes, and returns the tally of the calls that ended inside it. When
// the window closes the goroutines stop calling and the context of the
// calls still running is cancelled (they end outside the window). The
// calls' context has no deadline, as a caller without one.
func (mb modelBench) runWindow(writers int, call func(ctx context.Context, g int) error, atWindow, atEnd func()) tally {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	open, shut := start.Add(mb.ramp), start.Add(mb.ramp+mb.window)
	tallies := make([]tally, writers)
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := &tallies[g]
			for ctx.Err() == nil {
				t0 := time.Now()
				err := call(ctx, g)
				t1 := time.Now()
				t.all++
				if t1.After(open) && !t1.After(shut) {
					t.record(t1.Sub(t0), err)
				}
			}
		}()
	}
	time.Sleep(time.Until(open))
	atWindow()
	time.Sleep(time.Until(shut))
	atEnd()
	cancel()
	wg.Wait()
	var all tally
	for i := range tallies {
		all.merge(&tallies[i])
	}
	return all
}

// delta is what the model counted on the partition key value key of table
// between two snapshots.
func delta(after, before dynamoseqtest.ModelStats, table, key string) dynamoseqtest.ModelStats {
	a, o := after.Partition(table, key), before.Partition(table, key)
	return dynamoseqtest.ModelStats{
		Requests:   a.Requests - o.Requests,
		WriteUnits: a.WriteUnits - o.WriteUnits,
		Throttled:  a.Throttled - o.Throttled,
		Conflicts:  a.Conflicts - o.Conflicts,
	}
}

// report reports the figures of a window: the numbers handed out a second
// (ops/s, and ns/op as its inverse), the bucket's depth in write units
// (depth-wu), the write units per number the model charged on the hot
// partition (wu/number) and its inverse, the numbers stored per write unit
// (numbers/wu), the ceiling of that pattern (the units a second that bound
// the row, w.capacity or the partition's, / wu/number) and the share of it
// reached (ceiling-%), a shape's own metrics (w.extra), the p50 and p99 latency of the calls that succeeded, the
// calls that failed (errors, errors-%), and the hot partition's requests,
// throttled requests (either form) and conflicts per call. The window's
// errors are logged, most frequent first.
func (mb modelBench) report(b *testing.B, w window) {
	t, p := w.t, w.p
	if w.allocs > 0 {
		b.ReportMetric(w.allocs, "allocs/op")
		b.ReportMetric(w.bytes, "B/op")
	}
	calls := float64(t.ok + t.failed)
	rate := float64(t.ok) / mb.window.Seconds()
	ns := 0.0 // suppresses ns/op when nothing succeeded
	if rate > 0 {
		ns = 1e9 / rate
	}
	b.ReportMetric(ns, "ns/op")
	b.ReportMetric(rate, "ops/s")
	capacity := mb.capacity()
	if w.capacity > 0 {
		capacity = w.capacity
	}
	b.ReportMetric(capacity, "capacity-wu/s")
	b.ReportMetric(mb.depthUnits(), "depth-wu")
	for unit, v := range w.extra {
		b.ReportMetric(v, unit)
	}
	if t.ok > 0 && p.WriteUnits > 0 {
		perNumber := p.WriteUnits / float64(t.ok)
		ceiling := capacity / perNumber
		b.ReportMetric(perNumber, "wu/number")
		b.ReportMetric(1/perNumber, "numbers/wu")
		b.ReportMetric(ceiling, "ceiling-ops/s")
		b.ReportMetric(100*rate/ceiling, "ceiling-%")
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	if t.ok > 0 {
		b.ReportMetric(ms(t.lat.quantile(0.50)), "p50-ms")
		b.ReportMetric(ms(t.lat.quantile(0.99)), "p99-ms")
	}
	b.ReportMetric(float64(t.failed), "errors")
	if calls > 0 {
		b.ReportMetric(100*float64(t.failed)/calls, "errors-%")
		b.ReportMetric(float64(p.Requests)/calls, "requests/op")
		b.ReportMetric(float64(p.Throttled)/calls, "throttled/op")
		b.ReportMetric(float64(p.Conflicts)/calls, "conflicts/op")
	}
	logErrors(b, t.errs)
}

// logErrors logs the three most frequent errors of a window.
func logErrors(b *testing.B, errs map[string]int64) {
	type count struct {
		msg string
		n   int64
	}
	var cs []count
	for m, n := range errs {
		cs = append(cs, count{m, n})
	}
	for range min(3, len(cs)) {
		best := 0
		for i := range cs {
			if cs[i].n > cs[best].n {
				best = i
			}
		}
		b.Logf("%d calls failed: %s", cs[best].n, cs[best].msg)
		cs = append(cs[:best], cs[best+1:]...)
	}
}

// The benchmarks' histogram of latencies gives each duration back within
// 1.6%.
func TestBenchLatencies(t *testing.T) {
	for _, d := range []time.Duration{0, 5, 31, 32, 33, 63, 64, 100, 1000, 12345, 27 * time.Millisecond, 1476 * time.Millisecond, time.Hour} {
		var h latencies
		h.add(d)
		got := h.quantile(0.5)
		if diff := float64(got-d) / float64(max(d, 1)); diff > 0.016 || diff < -0.016 {
			t.Errorf("histogram of %v: quantile(0.5) = %v, want within 1.6%%", d, got)
		}
	}
}
