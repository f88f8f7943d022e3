// Command quickstart mints order numbers from many goroutines with a
// dynamoseq.Counter and shows that none repeated. `make demo` runs it.
//
// Where it runs:
//   - with -endpoint http://host:port, on that DynamoDB Local (any
//     credentials; `make demo` starts one and passes its endpoint);
//   - without, on what the AWS configuration chain says (AWS_PROFILE,
//     AWS_REGION, credentials...): real DynamoDB, or the endpoint
//     AWS_ENDPOINT_URL names (`make demo AWS=1`).
//
// The table is created if missing (dynamoseq.EnsureTable, on-demand
// capacity) and left in place.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
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
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		log.Fatalf("quickstart: %v", err)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	flags := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	endpoint := flags.String("endpoint", "", "DynamoDB Local's endpoint, such as http://localhost:8000 (default: the AWS configuration chain, AWS_ENDPOINT_URL included)")
	table := flags.String("table", "dynamoseq-quickstart", "table to mint in (created if missing)")
	sequence := flags.String("sequence", "orders", "sequence name")
	goroutines := flags.Int("goroutines", 16, "concurrent callers")
	orders := flags.Int("orders", 3200, "numbers to mint in all")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *goroutines < 1 || *orders < 1 {
		return fmt.Errorf("-goroutines and -orders must be at least 1")
	}

	client, where, err := connect(ctx, *endpoint)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "DynamoDB:  %s\n", where)

	// The table a Counter needs under its options: a String partition
	// key "pk", on-demand. EnsureTable creates it unless it exists.
	if err := dynamoseq.EnsureTable(ctx, client, dynamoseq.CounterTable(*table), ""); err != nil {
		return err
	}
	fmt.Fprintf(out, "Table:     %q ready (dynamoseq.CounterTable: partition key pk, String; on-demand; created if missing)\n", *table)
	counter, err := dynamoseq.NewCounter(client, *table)
	if err != nil {
		return err
	}
	before, err := counter.Current(ctx, *sequence)
	if errors.Is(err, dynamoseq.ErrNotFound) {
		before, err = 0, nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Sequence:  %q in table %q, last value before this run: %d\n", *sequence, *table, before)
	fmt.Fprintf(out, "Minting:   %d order numbers from %d goroutines (Counter.Next: concurrent calls share an UpdateItem)\n\n", *orders, *goroutines)

	sent := counter.Stats().RoundTrips
	values, latencies, elapsed, err := mint(ctx, counter, *sequence, *goroutines, *orders)
	if err != nil {
		return err
	}
	return report(out, values, latencies, elapsed, before, counter.Stats().RoundTrips-sent)
}

// connect returns a client for the endpoint the user chose, and says which.
func connect(ctx context.Context, endpoint string) (*dynamodb.Client, string, error) {
	if endpoint != "" {
		// A DynamoDB Local: it accepts any credentials, so the AWS chain
		// (and its instance-metadata probes) is not consulted.
		client := dynamodb.New(dynamodb.Options{
			BaseEndpoint: aws.String(endpoint),
			Region:       "us-east-1",
			Credentials:  credentials.NewStaticCredentialsProvider("dynamoseq", "dynamoseq", ""),
			// DynamoDB Local sends no CRC32 on error responses; without this
			// the SDK logs a warning for each (aws/aws-sdk-go-v2#3545).
			DisableValidateResponseChecksum: true,
		})
		return client, endpoint, nil
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("loading the AWS configuration: %w", err)
	}
	client := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		// An endpoint from AWS_ENDPOINT_URL is most often DynamoDB Local.
		o.DisableValidateResponseChecksum = o.BaseEndpoint != nil
	})
	if e := client.Options().BaseEndpoint; e != nil {
		return client, *e + " (AWS_ENDPOINT_URL), Region " + cfg.Region, nil
	}
	return client, "AWS, Region " + cfg.Region, nil
}

func mint(ctx context.Context, c *dynamoseq.Counter, name string, goroutines, total int) ([]int64, []time.Duration, time.Duration, error) {
	values := make([]int64, total)
	latencies := make([]time.Duration, total)
	errs := make(chan error, goroutines)
	var wg sync.WaitGroup
	start := time.Now()
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < total; i += goroutines {
				t0 := time.Now()
				v, err := c.Next(ctx, name)
				if err != nil {
					errs <- err
					return
				}
				values[i], latencies[i] = v, time.Since(t0)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return nil, nil, 0, err
	}
	return values, latencies, elapsed, nil
}

func report(out io.Writer, values []int64, latencies []time.Duration, elapsed time.Duration, before, updates int64) error {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	distinct := len(slices.Compact(slices.Clone(sorted)))
	lo, hi := sorted[0], sorted[len(sorted)-1]
	gaps := int(hi-lo+1) - distinct

	fmt.Fprintf(out, "Orders:    ")
	for _, v := range sorted[:min(5, len(sorted))] {
		fmt.Fprintf(out, "ORD-%06d ", v)
	}
	fmt.Fprintf(out, "... ORD-%06d\n", hi)

	slices.Sort(latencies)
	pct := func(p float64) time.Duration { return latencies[int(p*float64(len(latencies)-1))] }
	fmt.Fprintf(out, "Minted:    %d numbers in %v = %.0f numbers/s\n", len(values), elapsed.Round(time.Millisecond), float64(len(values))/elapsed.Seconds())
	fmt.Fprintf(out, "Latency:   p50 %v, p99 %v, max %v per Next\n", pct(0.50).Round(10*time.Microsecond), pct(0.99).Round(10*time.Microsecond), latencies[len(latencies)-1].Round(10*time.Microsecond))
	fmt.Fprintf(out, "Updates:   %d UpdateItems for %d numbers (%.1f numbers each: the calls waiting together share one)\n",
		updates, len(values), float64(len(values))/float64(max(updates, 1)))
	fmt.Fprintf(out, "Range:     %d..%d (continuing from %d)\n", lo, hi, before)
	fmt.Fprintf(out, "Distinct:  %d of %d; repeated: %d; gaps inside the range: %d\n", distinct, len(values), len(values)-distinct, gaps)
	if distinct != len(values) {
		return fmt.Errorf("FAIL: %d order numbers were handed out twice", len(values)-distinct)
	}
	fmt.Fprintln(out, "OK: no order number was handed out twice.")
	return nil
}
