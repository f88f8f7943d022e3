package dynamoseq_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// EnsureTable makes the table a strategy needs, under the same options, and
// is safe to call at every start: a table that is ready is left as it is.
func ExampleEnsureTable() {
	srv, err := dynamoseqtest.Shared() // DynamoDB Local; a service has its AWS client
	if err != nil {
		log.Fatal(err)
	}
	client := srv.Client()
	ctx := context.Background()

	opts := func(o *dynamoseq.SortKeyOptions) { o.KeyPrefix = "PROJECT#" }
	for range 2 {
		if err := dynamoseq.EnsureTable(ctx, client, dynamoseq.SortKeyTable("Tickets", opts), ""); err != nil {
			log.Fatal(err)
		}
	}
	tickets, err := dynamoseq.NewSortKey(client, "Tickets", opts)
	if err != nil {
		log.Fatal(err)
	}
	type Ticket struct {
		Title string `dynamodbav:"title"`
	}
	n, err := tickets.Append(ctx, "projectA", Ticket{Title: "Printer on fire"})
	if err != nil {
		log.Fatal(err)
	}
	var t Ticket
	if err := tickets.Get(ctx, "projectA", n, &t); err != nil {
		log.Fatal(err)
	}
	fmt.Println(t.Title)

	// A Counter's table has no sort key: EnsureTable refuses to take this
	// one for it.
	err = dynamoseq.EnsureTable(ctx, client, dynamoseq.CounterTable("Tickets"), "")
	fmt.Println(errors.Is(err, dynamoseq.ErrTableMismatch))
	// Output:
	// Printer on fire
	// true
}
