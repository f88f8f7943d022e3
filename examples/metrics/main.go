// Command metrics publishes the Stats of a Counter, a Block, a SortKey and
// a Latest with expvar from the standard library, while a small workload
// mints with each, so that /debug/vars shows their figures live:
//
//	go run ./examples/metrics -for 30s -endpoint http://localhost:8000
//	curl -s localhost:8080/debug/vars | jq .dynamoseq
//
// Each figure is read on request from Stats (a few atomic loads), not
// copied on every call. docs/metrics.md says what each one means, what to
// alert on, and how to hand the same figures to Prometheus or
// OpenTelemetry instead.
//
// With -endpoint it uses that DynamoDB Local (`make ddblocal` prints how to
// start one); without, what the AWS configuration chain says (AWS_REGION,
// AWS_PROFILE, AWS_ENDPOINT_URL...). The tables are created if missing.
package main

import (
	"context"
	"errors"
	"expvar"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamoseq/dynamoseq"
)

func main() {
	log.SetFlags(0)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		log.Fatalf("metrics: %v", err)
	}
}

// sequencers are the four strategies whose Stats the program publishes.
type sequencers struct {
	counter *dynamoseq.Counter
	block   *dynamoseq.Block
	sortKey *dynamoseq.SortKey
	latest  *dynamoseq.Latest
}

// stats is what /debug/vars shows under "dynamoseq": one object per
// strategy, its Stats as encoding/json writes them (durations in
// nanoseconds).
func (s *sequencers) stats() any {
	return map[string]any{
		"counter": s.counter.Stats(),
		"block":   s.block.Stats(),
		"sortkey": s.sortKey.Stats(),
		"latest":  s.latest.Stats(),
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	flags := flag.NewFlagSet("metrics", flag.ContinueOnError)
	endpoint := flags.String("endpoint", "", "DynamoDB Local's endpoint, such as http://localhost:8000 (default: the AWS configuration chain)")
	addr := flags.String("addr", "localhost:8080", "address to serve /debug/vars on")
	prefix := flags.String("tables", "dynamoseq-metrics", "prefix of the three tables (created if missing)")
	goroutines := flags.Int("goroutines", 4, "callers per strategy")
	pause := flags.Duration("pause", 20*time.Millisecond, "pause of each caller between calls")
	duration := flags.Duration("for", 0, "how long to run (0: until interrupted)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *goroutines < 1 || *pause < 0 || *duration < 0 {
		return errors.New("-goroutines must be at least 1, -pause and -for at least 0")
	}
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	client, err := newClient(ctx, *endpoint)
	if err != nil {
		return err
	}
	seqs, err := newSequencers(ctx, client, *prefix)
	if err != nil {
		return err
	}
	expvar.Publish("dynamoseq", expvar.Func(seqs.stats))

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/debug/vars", expvar.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(out, "serving http://%s/debug/vars\n", ln.Addr())

	work(ctx, seqs, *goroutines, *pause)
	closeErr := seqs.block.Close()
	if err := srv.Shutdown(context.Background()); err != nil {
		return err
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	fmt.Fprintf(out, "counter  %+v\nblock    %+v\nsortkey  %+v\nlatest   %+v\n",
		seqs.counter.Stats(), seqs.block.Stats(), seqs.sortKey.Stats(), seqs.latest.Stats())
	return closeErr
}

// newClient returns a client of the DynamoDB Local at endpoint (any
// credentials do), or, without one, of what the AWS configuration chain
// says.
func newClient(ctx context.Context, endpoint string) (*dynamodb.Client, error) {
	if endpoint != "" {
		return dynamodb.New(dynamodb.Options{
			BaseEndpoint: aws.String(endpoint),
			Region:       "us-east-1",
			Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
			// DynamoDB Local sends no CRC32 on error responses
			// (aws/aws-sdk-go-v2#3545).
			DisableValidateResponseChecksum: true,
		}), nil
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("loading the AWS configuration: %w", err)
	}
	return dynamodb.NewFromConfig(cfg), nil
}

// newSequencers creates the tables if missing and the four strategies over
// them; the Block leases ranges of 50 from the Counter.
func newSequencers(ctx context.Context, client *dynamodb.Client, prefix string) (*sequencers, error) {
	counters, tickets, documents := prefix+"-counters", prefix+"-tickets", prefix+"-documents"
	for _, in := range []*dynamodb.CreateTableInput{
		dynamoseq.CounterTable(counters), dynamoseq.SortKeyTable(tickets), dynamoseq.LatestTable(documents),
	} {
		if err := dynamoseq.EnsureTable(ctx, client, in, ""); err != nil {
			return nil, err
		}
	}
	var s sequencers
	var err error
	if s.counter, err = dynamoseq.NewCounter(client, counters); err != nil {
		return nil, err
	}
	if s.block, err = dynamoseq.NewBlock(s.counter, 50); err != nil {
		return nil, err
	}
	if s.sortKey, err = dynamoseq.NewSortKey(client, tickets); err != nil {
		return nil, err
	}
	if s.latest, err = dynamoseq.NewLatest(client, documents); err != nil {
		return nil, err
	}
	return &s, nil
}

// work calls each strategy from goroutines callers, each pausing between
// calls, until ctx ends. Errors are not returned: they are what the
// figures count.
func work(ctx context.Context, s *sequencers, goroutines int, pause time.Duration) {
	calls := []func(context.Context) error{
		func(ctx context.Context) error { _, err := s.counter.Next(ctx, "orders"); return err },
		func(ctx context.Context) error { _, err := s.block.Next(ctx, "invoices"); return err },
		func(ctx context.Context) error {
			_, err := s.sortKey.Append(ctx, "project-1", map[string]string{"title": "a ticket"})
			return err
		},
		func(ctx context.Context) error {
			_, err := s.latest.Append(ctx, "page-1", map[string]string{"body": "a new version"})
			return err
		},
	}
	var wg sync.WaitGroup
	for _, call := range calls {
		for range goroutines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					_ = call(ctx)
					select {
					case <-ctx.Done():
					case <-time.After(pause):
					}
				}
			}()
		}
	}
	wg.Wait()
}
