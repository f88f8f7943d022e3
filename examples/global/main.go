// Command global mints order numbers in two Regions of a global table in
// multi-Region eventually consistent (MREC) mode, and shows that they never
// collide: each Region's Counter is given GlobalTableMREC, its own Region
// and the table's list of Regions, and hands out its own slice of the
// numbers (us-east-1 the odd ones, eu-west-1 the even ones).
//
// DynamoDB Local has no global tables, so the two Regions are two DynamoDB
// Local servers (started for the run, or given with -endpoints) whose
// tables a replicator keeps in step as DynamoDB does: each change applied
// in the other Region after -delay, last writer wins per item. For
// contrast, the same run also mints with a Counter that knows nothing of
// Regions, and counts the numbers it hands out twice.
//
//	go run ./examples/global
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/ddblocal"
	"github.com/dynamoseq/dynamoseq/internal/replicator"
)

// regions is the table's list of Regions, the same in every process.
var regions = []string{"us-east-1", "eu-west-1"}

func main() {
	log.SetFlags(0)
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		log.Fatalf("global: %v", err)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	flags := flag.NewFlagSet("global", flag.ContinueOnError)
	endpoints := flags.String("endpoints", "", "two DynamoDB Local endpoints, comma-separated, one per Region (empty starts two)")
	table := flags.String("table", "dynamoseq-global", "table to create in both Regions")
	goroutines := flags.Int("goroutines", 4, "concurrent callers per Region")
	orders := flags.Int("orders", 50, "order numbers per caller")
	delay := flags.Duration("delay", 200*time.Millisecond, "replication delay between the Regions")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *goroutines < 1 || *orders < 1 {
		return fmt.Errorf("-goroutines and -orders must be at least 1")
	}
	urls, stop, err := servers(ctx, *endpoints)
	if err != nil {
		return err
	}
	defer stop()
	clients := make([]*dynamodb.Client, len(regions))
	replicas := make([]replicator.Region, len(regions))
	for i, url := range urls {
		clients[i] = ddblocal.NewClient(url)
		if err := createTable(ctx, clients[i], *table); err != nil {
			return fmt.Errorf("region %s: %w", regions[i], err)
		}
		replicas[i] = replicator.Region{Name: regions[i], Endpoint: url}
		fmt.Fprintf(out, "Region %-10s DynamoDB Local at %s, table %q\n", regions[i], url, *table)
	}
	rep, err := replicator.Start(ctx, *table, *delay, replicas...)
	if err != nil {
		return err
	}
	defer rep.Close()
	fmt.Fprintf(out, "Replication: every change reaches the other Region after %v; last writer wins per item\n\n", *delay)

	sliced := make([]*dynamoseq.Counter, len(regions))
	plain := make([]*dynamoseq.Counter, len(regions))
	for i := range regions {
		if sliced[i], err = dynamoseq.NewCounter(clients[i], *table, func(o *dynamoseq.Options) {
			o.GlobalTable = dynamoseq.GlobalTableMREC
			o.Region = regions[i]
			o.Regions = regions
		}); err != nil {
			return err
		}
		if plain[i], err = dynamoseq.NewCounter(clients[i], *table); err != nil {
			return err
		}
	}
	for _, c := range []struct {
		label    string
		counters []*dynamoseq.Counter
		sequence string
	}{
		{"Region-sliced Counter (GlobalTableMREC)", sliced, "orders"},
		{"plain Counter (GlobalTableNone)", plain, "orders-plain"},
	} {
		fmt.Fprintf(out, "%s: %d callers per Region, %d order numbers each, both Regions at once\n", c.label, *goroutines, *orders)
		byRegion, err := mintInRegions(ctx, c.counters, c.sequence, *goroutines, *orders)
		if err != nil {
			return err
		}
		if err := rep.Settle(ctx); err != nil {
			return err
		}
		report(out, byRegion)
	}
	return nil
}

// servers returns the endpoints of the two Regions, starting DynamoDB Local
// for each when none are given, and a function that stops what it started.
func servers(ctx context.Context, endpoints string) ([]string, func(), error) {
	if endpoints != "" {
		urls := strings.Split(endpoints, ",")
		if len(urls) != len(regions) {
			return nil, nil, fmt.Errorf("-endpoints has %d endpoints, want %d", len(urls), len(regions))
		}
		return urls, func() {}, nil
	}
	var started []*ddblocal.Server
	stop := func() {
		for _, s := range started {
			s.Stop()
		}
	}
	for range regions {
		s, err := ddblocal.Start(ctx)
		if err != nil {
			stop()
			return nil, nil, err
		}
		started = append(started, s)
	}
	urls := make([]string, len(started))
	for i, s := range started {
		urls[i] = s.Endpoint
	}
	return urls, stop, nil
}

// createTable creates the table with a stream, which the replicator reads.
func createTable(ctx context.Context, client *dynamodb.Client, table string) error {
	in := dynamoseq.CounterTable(table)
	in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage}
	_, err := client.CreateTable(ctx, in)
	return err
}

// mintInRegions mints order numbers from goroutines callers in every
// Region at once and returns them by Region.
func mintInRegions(ctx context.Context, counters []*dynamoseq.Counter, sequence string, goroutines, orders int) ([][]int64, error) {
	byRegion := make([][]int64, len(counters))
	var mu sync.Mutex // protects byRegion and firstErr
	var firstErr error
	var wg sync.WaitGroup
	for r, c := range counters {
		for range goroutines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range orders {
					n, err := c.Next(ctx, sequence)
					mu.Lock()
					if err != nil && firstErr == nil {
						firstErr = err
					}
					byRegion[r] = append(byRegion[r], n)
					mu.Unlock()
					if err != nil {
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	return byRegion, firstErr
}

// report prints each Region's first order numbers and how many numbers
// were handed out twice, across the Regions.
func report(out io.Writer, byRegion [][]int64) {
	seen := map[int64]int{}
	total, repeated := 0, 0
	for r, numbers := range byRegion {
		slices.Sort(numbers)
		var first []string
		for _, n := range numbers[:min(5, len(numbers))] {
			first = append(first, fmt.Sprintf("ORD-%06d", n))
		}
		fmt.Fprintf(out, "  %-10s %s ... ORD-%06d\n", regions[r], strings.Join(first, " "), numbers[len(numbers)-1])
		for _, n := range numbers {
			if seen[n]++; seen[n] == 2 {
				repeated++
			}
			total++
		}
	}
	fmt.Fprintf(out, "  %d order numbers, %d distinct; handed out twice: %d\n\n", total, len(seen), repeated)
}
