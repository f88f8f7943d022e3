package dynamoseq_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/dbtest"
)

// A wiki page with its history: each save is a new version, the current
// text is one GetItem away, and the history is listed newest first. The
// table has partition key "pk" (String) and sort key "sk" (Number).
func ExampleLatest() {
	client, table := dbtest.ExampleTable(types.ScalarAttributeTypeN)
	ctx := context.Background()

	type Page struct {
		Title string `dynamodbav:"title"`
		Body  string `dynamodbav:"body"`
	}
	pages, err := dynamoseq.NewLatest(client, table, func(o *dynamoseq.LatestOptions) {
		o.KeyPrefix = "PAGE#"
	})
	if err != nil {
		panic(err)
	}
	for _, body := range []string{"Hello.", "Hello, world.", "Hello, DynamoDB."} {
		v, err := pages.Append(ctx, "home", Page{Title: "Home", Body: body})
		if err != nil {
			panic(err)
		}
		fmt.Println("saved version", v)
	}

	var current Page
	v, err := pages.GetLatest(ctx, "home", &current)
	if err != nil {
		panic(err)
	}
	fmt.Printf("current: v%d %q\n", v, current.Body)

	var first Page
	if err := pages.Get(ctx, "home", 1, &first); err != nil {
		panic(err)
	}
	fmt.Printf("first:   v1 %q\n", first.Body)

	for before := int64(0); ; {
		history, next, err := pages.Versions(ctx, "home", before, 2)
		if err != nil {
			panic(err)
		}
		for _, h := range history {
			var p Page
			if err := h.Decode(&p); err != nil {
				panic(err)
			}
			fmt.Printf("history: v%d %q\n", h.Number, p.Body)
		}
		if next == 0 {
			break
		}
		before = next
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

// A Latest that writes without transactions, as it must on a multi-Region
// strongly consistent global table (o.GlobalTable =
// dynamoseq.GlobalTableMRSC) and may on one Region for half the write
// units: each Append puts the version item, then moves 'latest' forward.
// GetLatest reads 'latest' and the version after it, so it returns the
// newest version even if a writer stopped between its two writes.
func ExampleLatest_noTransactions() {
	client, table := dbtest.ExampleTable(types.ScalarAttributeTypeN)
	ctx := context.Background()

	docs, err := dynamoseq.NewLatest(client, table, func(o *dynamoseq.LatestOptions) {
		o.NoTransactions = true
	})
	if err != nil {
		panic(err)
	}
	for _, status := range []string{"draft", "review", "signed"} {
		v, err := docs.Append(ctx, "contract-1001", map[string]string{"status": status})
		if err != nil {
			panic(err)
		}
		fmt.Println("saved version", v)
	}
	var current map[string]string
	v, err := docs.GetLatest(ctx, "contract-1001", &current)
	if err != nil {
		panic(err)
	}
	fmt.Printf("current: v%d %s\n", v, current["status"])
	// Output:
	// saved version 1
	// saved version 2
	// saved version 3
	// current: v3 signed
}
