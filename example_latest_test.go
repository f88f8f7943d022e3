package dynamoseq_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// A wiki page with its history: each save is a new version, the current
// text is one GetItem away, and the history is listed newest first. The
// table has partition key "pk" (String) and sort key "sk" (Number).
func ExampleLatest() {
	opts := func(o *dynamoseq.LatestOptions) { o.KeyPrefix = "PAGE#" }
	client, table := dynamoseqtest.SharedTable(dynamoseq.LatestTable("Wiki", opts))
	ctx := context.Background()

	type Page struct {
		Title string `dynamodbav:"title"`
		Body  string `dynamodbav:"body"`
	}
	pages, err := dynamoseq.NewLatest(client, table, opts)
	if err != nil {
		log.Fatal(err)
	}
	for _, body := range []string{"Hello.", "Hello, world.", "Hello, DynamoDB."} {
		v, err := pages.Append(ctx, "home", Page{Title: "Home", Body: body})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("saved version", v)
	}

	var current Page
	v, err := pages.GetLatest(ctx, "home", &current)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("current: v%d %q\n", v, current.Body)

	var first Page
	if err := pages.Get(ctx, "home", 1, &first); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("first:   v1 %q\n", first.Body)

	for v, err := range pages.All(ctx, "home", dynamoseq.NewestFirst) {
		var p Page
		if err == nil {
			err = v.Decode(&p)
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("history: v%d %q\n", v.Number, p.Body)
	}

	_, err = pages.GetLatest(ctx, "missing", nil)
	fmt.Println("missing page:", errors.Is(err, dynamoseq.ErrNotFound))
	// Output:
	// saved version 1
	// saved version 2
	// saved version 3
	// current: v3 "Hello, DynamoDB."
	// first:   v1 "Hello."
	// history: v3 "Hello, DynamoDB."
	// history: v2 "Hello, world."
	// history: v1 "Hello."
	// missing page: true
}

// All lists a document's versions oldest first too, and a loop that
// breaks reads no further page: here, how a contract's status went until
// it was signed.
func ExampleLatest_All() {
	client, table := dynamoseqtest.SharedTable(dynamoseq.LatestTable("Contracts"))
	ctx := context.Background()

	docs, err := dynamoseq.NewLatest(client, table)
	if err != nil {
		log.Fatal(err)
	}
	for _, status := range []string{"draft", "review", "draft", "signed", "archived"} {
		if _, err := docs.Append(ctx, "contract-1001", map[string]string{"status": status}); err != nil {
			log.Fatal(err)
		}
	}

	for v, err := range docs.All(ctx, "contract-1001", dynamoseq.OldestFirst) {
		var doc map[string]string
		if err == nil {
			err = v.Decode(&doc)
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("v%d %s\n", v.Number, doc["status"])
		if doc["status"] == "signed" {
			break
		}
	}
	// Output:
	// v1 draft
	// v2 review
	// v3 draft
	// v4 signed
}

// A Latest that writes without transactions, as it must on a multi-Region
// strongly consistent global table (o.GlobalTable =
// dynamoseq.GlobalTableMRSC) and may on one Region for half the write
// units: each Append puts the version item, then moves 'latest' forward.
// GetLatest reads 'latest' and the version after it, so it returns the
// newest version even if a writer stopped between its two writes.
func ExampleLatest_noTransactions() {
	opts := func(o *dynamoseq.LatestOptions) { o.NoTransactions = true }
	client, table := dynamoseqtest.SharedTable(dynamoseq.LatestTable("Contracts", opts))
	ctx := context.Background()

	docs, err := dynamoseq.NewLatest(client, table, opts)
	if err != nil {
		log.Fatal(err)
	}
	for _, status := range []string{"draft", "review", "signed"} {
		v, err := docs.Append(ctx, "contract-1001", map[string]string{"status": status})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("saved version", v)
	}
	var current map[string]string
	v, err := docs.GetLatest(ctx, "contract-1001", &current)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("current: v%d %s\n", v, current["status"])
	// Output:
	// saved version 1
	// saved version 2
	// saved version 3
	// current: v3 signed
}
