// Command documents keeps contracts with their full history in DynamoDB
// with a dynamoseq.Latest: several editors save the same contract at once,
// and every save becomes its own numbered version; the current version is
// one read away and the history pages newest first.
//
// By default it starts DynamoDB Local (installed by `make ddblocal`); with
// -endpoint (or DYNAMODB_ENDPOINT) it uses a DynamoDB Local you run. The
// table is created if missing.
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

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/ddblocal"
)

func main() {
	log.SetFlags(0)
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		log.Fatalf("documents: %v", err)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	flags := flag.NewFlagSet("documents", flag.ContinueOnError)
	endpoint := flags.String("endpoint", os.Getenv("DYNAMODB_ENDPOINT"), "DynamoDB Local endpoint (empty starts one)")
	table := flags.String("table", "dynamoseq-documents", "table (created if missing)")
	id := flags.String("contract", "C-1001", "contract id")
	editors := flags.Int("editors", 4, "editors saving at once")
	saves := flags.Int("saves", 5, "saves per editor")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *endpoint == "" {
		srv, err := ddblocal.Start(ctx)
		if err != nil {
			return err
		}
		defer srv.Stop()
		*endpoint = srv.Endpoint
	}
	client := ddblocal.NewClient(*endpoint)
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
	count := 0
	for cursor := int64(0); ; {
		revs, next, err := store.History(ctx, *id, cursor, 10)
		if err != nil {
			return err
		}
		count += len(revs)
		if next == 0 {
			break
		}
		cursor = next
	}
	fmt.Fprintf(out, "history: %d versions, newest first, in pages of 10\n", count)
	return nil
}
