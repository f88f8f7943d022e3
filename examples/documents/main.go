// Command documents keeps contracts with their full history in DynamoDB
// with a dynamoseq.Latest: several editors save the same contract at once,
// and every save becomes its own numbered version; the current version is
// one read away and the history pages newest first.
//
// With -endpoint it runs on that DynamoDB Local (`make ddblocal` prints how
// to start one); without, on what the AWS configuration chain says
// (AWS_REGION, AWS_PROFILE, AWS_ENDPOINT_URL...). The table is created if
// missing.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
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
		log.Fatalf("documents: %v", err)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	flags := flag.NewFlagSet("documents", flag.ContinueOnError)
	endpoint := flags.String("endpoint", "", "DynamoDB Local's endpoint, such as http://localhost:8000 (default: the AWS configuration chain)")
	table := flags.String("table", "dynamoseq-documents", "table (created if missing)")
	id := flags.String("contract", "C-1001", "contract id")
	editors := flags.Int("editors", 4, "editors saving at once")
	saves := flags.Int("saves", 5, "saves per editor")
	if err := flags.Parse(args); err != nil {
		return err
	}
	client, err := newClient(ctx, *endpoint)
	if err != nil {
		return err
	}
	if err := dynamoseq.EnsureTable(ctx, client, dynamoseq.LatestTable(*table), ""); err != nil {
		return err
	}
	store, err := NewStore(client, *table)
	if err != nil {
		return err
	}

	before := int64(0)
	if cur, err := store.Current(ctx, *id); err == nil {
		before = cur.Version
	} else if !errors.Is(err, ErrNoContract) {
		return err
	}
	var wg sync.WaitGroup
	errs := make(chan error, *editors)
	for e := range *editors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range *saves {
				c := Contract{Customer: "ACME", Amount: int64(100_00 * (s + 1)), Status: "draft", EditedBy: fmt.Sprintf("editor%d", e)}
				if _, err := store.Save(ctx, *id, c); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}

	cur, err := store.Current(ctx, *id)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%d editors saved %s %d times each: versions %d..%d, current v%d by %s\n",
		*editors, *id, *saves, before+1, cur.Version, cur.Version, cur.Contract.EditedBy)
	count, amounts := 0, map[int64]bool{}
	for rev, err := range store.Revisions(ctx, *id, false) {
		if err != nil {
			return err
		}
		count++
		amounts[rev.Contract.Amount] = true
	}
	fmt.Fprintf(out, "history: %d versions, newest first, %d different amounts\n", count, len(amounts))
	return nil
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
