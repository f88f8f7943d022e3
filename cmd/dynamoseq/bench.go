package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/spf13/pflag"

	"github.com/dynamoseq/dynamoseq"
)

// minter returns the function goroutine g calls to mint one number.
type minter func(g int) func(context.Context) error

// benchOptions are bench's own flags.
type benchOptions struct {
	kind        string
	concurrency int
	duration    time.Duration
	size        int64
	baseline    bool

	// The runtime options bench's flags set.
	maxAttempts   int                    // Retry.MaxAttempts
	block         dynamoseq.BlockOptions // a Block's, but MinSize and Lifetime
	minBlockSize  int64                  // MinSize; set, the sizes follow the rate
	blockLifetime time.Duration          // Lifetime
}

// blockOptions copies the Block's options that bench's flags set into o.
func (b *benchOptions) blockOptions(o *dynamoseq.BlockOptions) {
	*o = b.block
	if b.minBlockSize != 0 {
		o.MinSize, o.Lifetime = b.minBlockSize, cmp.Or(b.blockLifetime, defaultBlockLifetime)
	}
}

func benchCommand() *command {
	return &command{
		name:     "bench",
		synopsis: "[NAME]",
		summary:  "Measure a strategy against the raw SDK call",
		doc: "Mints numbers of sequence NAME (default dynamoseq-bench) flat out from -c\n" +
			"goroutines for -d, with a live progress line when stderr is a terminal (rate,\n" +
			"p50, p99 of the last half second, errors so far). Then it prints a latency\n" +
			"histogram and the same figures for the raw SDK call that the library's own\n" +
			"benchmarks compare with (on sequence NAME-sdk), the two sides run in\n" +
			"alternating rounds of about 1s, after an uncounted warm-up of both, so that\n" +
			"they share the machine's load. It writes to the table: give it a sequence\n" +
			"of its own.\n",
		minArgs: 0, maxArgs: 1,
		define: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
			var o benchOptions
			kind := defineKind(fs, kindCounter, kindBlock, kindSortKey, kindLatest)
			fs.IntVarP(&o.concurrency, "concurrency", "c", 16, "goroutines minting at once")
			fs.DurationVarP(&o.duration, "duration", "d", 30*time.Second, "how long each side (library, raw SDK) is measured; the calls in flight at its end finish and count")
			fs.Int64Var(&o.size, "size", 1000, "the range size of a Block")
			fs.BoolVar(&o.baseline, "baseline", true, "also run the raw SDK call")
			fs.IntVar(&o.maxAttempts, "max-attempts", 0, fmt.Sprintf("tries of a write that lost a race to another writer, which a counter does only on an MRSC table (default %d)", defaultMaxAttempts))
			fs.Int64Var(&o.minBlockSize, "min-block-size", 0, "when set, range sizes follow the rate of use, from this size to --max-block-size (default: they grow after callers waited)")
			fs.Int64Var(&o.block.MaxSize, "max-block-size", 0, fmt.Sprintf("the largest range (default %d times --size)", defaultBlockGrowth))
			fs.DurationVar(&o.blockLifetime, "block-lifetime", 0, fmt.Sprintf("with --min-block-size: how long an adaptive range should last (default %v)", defaultBlockLifetime))
			return func(ctx context.Context, e *env, args []string) error {
				name := "dynamoseq-bench"
				if len(args) == 1 {
					name = args[0]
				}
				if o.concurrency < 1 || o.duration <= 0 {
					return usageErrorf("-c %d -d %v: want at least one goroutine and a positive duration", o.concurrency, o.duration)
				}
				if o.blockLifetime != 0 && o.minBlockSize == 0 {
					return usageErrorf("--block-lifetime is read with --min-block-size only")
				}
				k, err := kind.of(ctx, e, "")
				if err != nil {
					return err
				}
				o.kind = k
				return e.bench(ctx, name, o)
			}
		},
	}
}

func (e *env) bench(ctx context.Context, name string, o benchOptions) error {
	client, err := e.client(ctx)
	if err != nil {
		return err
	}
	lib, err := e.strategy(client, o)
	if err != nil {
		return err
	}
	if c, ok := lib.(io.Closer); ok {
		defer c.Close() // on an early return; Close may be called twice
	}
	sides := []*side{
		{label: "dynamoseq", sequence: name, mint: sequencerMinter(lib, name)},
		{label: "raw SDK", sequence: name + "-sdk", mint: e.rawMinter(client, name+"-sdk", o.kind)},
	}
	if !o.baseline {
		sides = sides[:1]
	}
	if err := e.runSides(ctx, sides, o); err != nil {
		return err
	}
	if c, ok := lib.(io.Closer); ok {
		// Before Stats, so that they show what Close handed back.
		if err := c.Close(); err != nil {
			return e.fail("bench", name, err)
		}
	}
	res := benchResult{Table: e.table, Kind: o.kind, Sequence: name, Concurrency: o.concurrency,
		Seconds: o.duration.Seconds(), Rounds: o.rounds(), Dynamoseq: sides[0].hist.figures(sides[0].took),
		Histogram: sides[0].hist.rows(), Stats: stats(lib)}
	if o.baseline {
		f := sides[1].hist.figures(sides[1].took)
		res.Baseline = &f
	}
	return e.print(res.text(), res)
}

// runSides warms every side up, uncounted, for DynamoDB Local's JVM
// compiles its hot paths during the first thousands of requests; then it
// runs them in short rounds, each side first in every other round, so
// that both see the same machine load.
func (e *env) runSides(ctx context.Context, sides []*side, o benchOptions) error {
	for _, s := range sides {
		if _, err := e.runPhase(ctx, s.label+" warm-up", o.concurrency, min(time.Second, o.duration/5), s.mint, &histogram{}); err != nil {
			return e.fail("bench", s.sequence, err)
		}
	}
	rounds := o.rounds()
	for r := range rounds {
		order := sides
		if r%2 == 1 {
			order = slices.Clone(sides)
			slices.Reverse(order)
		}
		for _, s := range order {
			label := fmt.Sprintf("%s %d/%d", s.label, r+1, rounds)
			took, err := e.runPhase(ctx, label, o.concurrency, o.duration/time.Duration(rounds), s.mint, &s.hist)
			if err != nil {
				return e.fail("bench", s.sequence, err)
			}
			s.took += took
		}
	}
	if err := ctx.Err(); err != nil {
		return e.fail("bench", sides[0].sequence, fmt.Errorf("interrupted: %w", err))
	}
	return nil
}

// rounds is how many rounds the sides alternate in: one per second of
// duration, at most 60, so that a change in the machine's load falls on
// both sides alike.
func (o benchOptions) rounds() int {
	return int(min(max(o.duration/time.Second, 1), 60))
}

// side is one of the two things bench measures: the library or the raw
// SDK call.
type side struct {
	label    string
	sequence string
	mint     minter
	hist     histogram
	took     time.Duration // the rounds' time, calls in flight at their ends included
}

// strategy builds the strategy o.kind measures.
func (e *env) strategy(client *dynamodb.Client, o benchOptions) (dynamoseq.Sequencer, error) {
	switch o.kind {
	case kindSortKey:
		return dynamoseq.NewSortKey(client, e.table, e.settings.sortKeyOptions, func(so *dynamoseq.SortKeyOptions) { so.MaxAttempts = o.maxAttempts })
	case kindLatest:
		return dynamoseq.NewLatest(client, e.table, e.settings.latestOptions, func(lo *dynamoseq.LatestOptions) { lo.MaxAttempts = o.maxAttempts })
	}
	c, err := dynamoseq.NewCounter(client, e.table, e.settings.counterOptions, func(co *dynamoseq.CounterOptions) { co.MaxAttempts = o.maxAttempts })
	if err != nil || o.kind != kindBlock {
		return c, err
	}
	return dynamoseq.NewBlock(c, o.size, o.blockOptions) // the table and key options are the Counter's
}

// stats returns the strategy's own cumulative figures, for the strategies
// that keep them, or nil.
func stats(s dynamoseq.Sequencer) any {
	switch s := s.(type) {
	case *dynamoseq.Counter:
		return s.Stats()
	case *dynamoseq.Block:
		return s.Stats()
	case *dynamoseq.SortKey:
		return s.Stats()
	case *dynamoseq.Latest:
		return s.Stats()
	}
	return nil
}

// sequencerMinter mints with s.Next from every goroutine.
func sequencerMinter(s dynamoseq.Sequencer, name string) minter {
	return func(int) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := s.Next(ctx, name)
			return err
		}
	}
}

func (e *env) rawMinter(client *dynamodb.Client, name, kind string) minter {
	return func(int) func(context.Context) error {
		switch kind {
		case kindSortKey:
			return e.rawSortKey(client, name)
		case kindLatest:
			return e.rawLatest(client, name)
		}
		return e.rawCounter(client, name)
	}
}

// worker is one goroutine's figures; the progress line reads them while it
// runs.
type worker struct {
	mu sync.Mutex // protects h
	h  histogram
}

// runPhase mints with concurrency goroutines for d, adding the figures to
// total, and returns how long it ran: each goroutine starts calls until d
// has passed, and the calls in flight then finish and count (cut off,
// the slowest calls would leave the histogram, and a phase shorter than
// one call, on a busy machine, would count none). It stops at the first
// error that no retry can cure (a missing table, an invalid option or a
// table of the wrong shape) and returns it.
func (e *env) runPhase(ctx context.Context, label string, concurrency int, d time.Duration, mint minter, total *histogram) (time.Duration, error) {
	ctx, cancel := context.WithCancel(ctx) // by a fatal error
	defer cancel()
	began := time.Now()
	end := began.Add(d)
	workers := make([]*worker, concurrency)
	var fatal error
	var fatalOnce sync.Once
	var wg sync.WaitGroup
	for g := range workers {
		w := &worker{}
		workers[g] = w
		call := mint(g)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && time.Now().Before(end) {
				start := time.Now()
				err := call(ctx)
				d := time.Since(start)
				if err != nil && ctx.Err() != nil {
					return // interrupted, or another goroutine's error was fatal
				}
				if isFatal(err) {
					fatalOnce.Do(func() { fatal = err; cancel() })
					return
				}
				w.mu.Lock()
				w.h.add(d, err)
				w.mu.Unlock()
			}
		}()
	}
	stopProgress := e.progress(label, workers)
	wg.Wait()
	stopProgress()
	for _, w := range workers {
		total.merge(&w.h)
	}
	return time.Since(began), fatal
}

// isFatal reports whether err means that further calls would fail too.
func isFatal(err error) bool {
	var notFound *types.ResourceNotFoundException
	return errors.As(err, &notFound) || errors.Is(err, dynamoseq.ErrTableNotFound) || errors.Is(err, dynamoseq.ErrInvalidArgument) ||
		errors.Is(err, dynamoseq.ErrTableMismatch) || errors.Is(err, dynamoseq.ErrExhausted)
}
