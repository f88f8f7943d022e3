// Command global mints order numbers in two Regions of a global table in
// multi-Region eventually consistent (MREC) mode, and shows that they never
// collide: each Region's Counter is given GlobalTableMREC, its own Region
// and the table's list of Regions, and hands out its own slice of the
// numbers (us-east-1 the odd ones, eu-west-1 the even ones). For contrast,
// the same run also mints with a Counter that knows nothing of Regions,
// and counts the numbers it hands out twice.
//
// The table (-table) must exist in every Region as one global table, with
// a String partition key "pk" (dynamoseq.CounterTable): on AWS, a table
// with a replica per Region (UpdateTable with ReplicaUpdates adds one). By
// default the program reaches each Region through the AWS configuration
// chain with that Region set; -endpoints gives one endpoint per Region
// instead. DynamoDB Local has no global tables: the program's test runs it
// on dynamoseqtest.NewGlobalTable, two DynamoDB Local servers kept in step
// as the service would keep the Regions.
//
//	go run ./examples/global -regions us-east-1,eu-west-1 -table orders-global
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

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamoseq/dynamoseq"
)

func main() {
	log.SetFlags(0)
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		log.Fatalf("global: %v", err)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	flags := flag.NewFlagSet("global", flag.ContinueOnError)
	regionList := flags.String("regions", "us-east-1,eu-west-1", "the table's Regions, comma-separated: the same list, in the same order, in every process")
	endpoints := flags.String("endpoints", "", "one DynamoDB endpoint per Region, comma-separated (default: the AWS configuration chain)")
	table := flags.String("table", "dynamoseq-global", "the global table, with a replica in every Region")
	goroutines := flags.Int("goroutines", 4, "concurrent callers per Region")
	orders := flags.Int("orders", 50, "order numbers per caller")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *goroutines < 1 || *orders < 1 {
		return fmt.Errorf("-goroutines and -orders must be at least 1")
	}
	regions := strings.Split(*regionList, ",")
	clients, err := newClients(ctx, regions, *endpoints)
	if err != nil {
		return err
	}
	sliced := make([]*dynamoseq.Counter, len(regions))
	plain := make([]*dynamoseq.Counter, len(regions))
	for i, region := range regions {
		if sliced[i], err = dynamoseq.NewCounter(clients[i], *table, func(o *dynamoseq.CounterOptions) {
			o.GlobalTable = dynamoseq.GlobalTableMREC
			o.Region = region
			o.Regions = regions
		}); err != nil {
			return err
		}
		if plain[i], err = dynamoseq.NewCounter(clients[i], *table); err != nil {
			return err
		}
		fmt.Fprintf(out, "Region %-10s table %q\n", region, *table)
	}
	fmt.Fprintln(out)
	for _, c := range []struct {
		label    string
		counters []*dynamoseq.Counter
		sequence string
	}{
		{"Region-sliced Counter (GlobalTableMREC)", sliced, "orders"},
		{"plain Counter (GlobalTableNone)", plain, "orders-plain"},
	} {
		fmt.Fprintf(out, "%s: %d callers per Region, %d order numbers each, all Regions at once\n", c.label, *goroutines, *orders)
		byRegion, err := mintInRegions(ctx, c.counters, c.sequence, *goroutines, *orders)
		if err != nil {
			return err
		}
		report(out, regions, byRegion)
	}
	return nil
}

// newClients returns a client per Region: of the endpoint given for it, or
// of the AWS configuration chain with the Region set.
func newClients(ctx context.Context, regions []string, endpoints string) ([]*dynamodb.Client, error) {
	clients := make([]*dynamodb.Client, len(regions))
	if endpoints != "" {
		urls := strings.Split(endpoints, ",")
		if len(urls) != len(regions) {
			return nil, fmt.Errorf("-endpoints has %d endpoints for %d Regions", len(urls), len(regions))
		}
		for i, url := range urls {
			clients[i] = dynamodb.New(dynamodb.Options{
				BaseEndpoint: aws.String(url),
				Region:       regions[i],
				Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
				// DynamoDB Local sends no CRC32 on error responses
				// (aws/aws-sdk-go-v2#3545).
				DisableValidateResponseChecksum: true,
			})
		}
		return clients, nil
	}
	for i, region := range regions {
		cfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(region))
		if err != nil {
			return nil, fmt.Errorf("loading the AWS configuration for %s: %w", region, err)
		}
		clients[i] = dynamodb.NewFromConfig(cfg)
	}
	return clients, nil
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
func report(out io.Writer, regions []string, byRegion [][]int64) {
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
