package dynamoseq_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// Daily order numbers that restart at 1 every day, in the shop's time zone,
// with counters that DynamoDB deletes a week after their day.
func ExampleIDMinter() {
	client, table := dynamoseqtest.SharedTable(dynamoseq.CounterTable("Sequences"))
	ctx := context.Background()

	counter, err := dynamoseq.NewCounter(client, table)
	if err != nil {
		log.Fatal(err)
	}
	// A clock just before midnight in Tokyo; a service leaves Now
	// alone, which means time.Now.
	tokyo := time.FixedZone("JST", 9*3600)
	now := time.Date(2026, 11, 22, 23, 59, 59, 0, tokyo)
	format := dynamoseq.Format{Prefix: "ORD", DateLayout: "060102", Separator: "-", Width: 6}
	orders, err := dynamoseq.NewIDMinter(counter, format, dynamoseq.Daily,
		func(o *dynamoseq.IDMinterOptions) {
			o.Location = tokyo
			o.TTLAttribute = "ttl"
			o.TTLRetention = 7 * 24 * time.Hour // TTL enabled on the table for "ttl"
			o.Now = func() time.Time { return now }
		})
	if err != nil {
		log.Fatal(err)
	}

	for range 2 {
		id, err := orders.Next(ctx, "orders")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(id)
	}
	now = now.Add(time.Second) // midnight
	id, err := orders.Next(ctx, "orders")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(id)

	date, n, err := format.Parse(id, tokyo)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(date.Format("2 January 2006"), "order", n)
	seq, _ := orders.SequenceAt("orders", date)
	fmt.Println("counter:", seq)
	// Output:
	// ORD-261122-000001
	// ORD-261122-000002
	// ORD-261123-000001
	// 23 November 2026 order 1
	// counter: orders#20261123
}

// Yearly order IDs, gap-free, each stored with its order: over a SortKey,
// Append writes the order under the next number of the year and returns
// its ID, Get reads an order back by its ID, and All lists the orders
// across years.
func ExampleSortKeyIDMinter() {
	client, table := dynamoseqtest.SharedTable(dynamoseq.SortKeyTable("Orders"))
	ctx := context.Background()

	numbers, err := dynamoseq.NewSortKey(client, table)
	if err != nil {
		log.Fatal(err)
	}
	// A clock on New Year's Eve; a service leaves Now alone.
	now := time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC)
	orders, err := dynamoseq.NewSortKeyIDMinter(numbers,
		dynamoseq.Format{Prefix: "ORD", DateLayout: "2006", Separator: "-", Width: 6},
		dynamoseq.Yearly,
		func(o *dynamoseq.IDMinterOptions) { o.Now = func() time.Time { return now } })
	if err != nil {
		log.Fatal(err)
	}

	type Order struct {
		Customer string `dynamodbav:"customer"`
	}
	for _, customer := range []string{"Ada", "Grace", "Edsger"} {
		id, err := orders.Append(ctx, "orders", Order{Customer: customer})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(id, customer)
		now = now.Add(time.Second / 2) // midnight after the second order
	}

	var o Order
	if err := orders.Get(ctx, "orders", "ORD-2026-000002", &o); err != nil {
		log.Fatal(err)
	}
	fmt.Println("ORD-2026-000002 is for", o.Customer)

	// Newest first across the new year; a page's last ID, passed as after,
	// goes on from there.
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) // the first order's year
	for it, err := range orders.All(ctx, "orders", since, "", dynamoseq.NewestFirst) {
		if err != nil {
			log.Fatal(err)
		}
		if err := it.Decode(&o); err != nil {
			log.Fatal(err)
		}
		fmt.Println("listed", it.ID, o.Customer)
	}
	// Output:
	// ORD-2026-000001 Ada
	// ORD-2026-000002 Grace
	// ORD-2027-000001 Edsger
	// ORD-2026-000002 is for Grace
	// listed ORD-2027-000001 Edsger
	// listed ORD-2026-000002 Grace
	// listed ORD-2026-000001 Ada
}

func ExampleFormat() {
	f := dynamoseq.Format{Prefix: "ORD", DateLayout: "060102", Separator: "-", Width: 6}
	at := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	fmt.Println(f.ID(at, 42))
	fmt.Println(f.ID(at, 1234567)) // wider than Width: written whole

	date, n, err := f.Parse("ORD-261122-000042", time.UTC)
	fmt.Println(date.Format(time.DateOnly), n, err)

	_, _, err = f.Parse("ORD-261122-42", time.UTC)
	fmt.Println(err)
	// Output:
	// ORD-261122-000042
	// ORD-261122-1234567
	// 2026-11-22 42 <nil>
	// dynamoseq: Format.Parse: invalid argument: id "ORD-261122-42": number part "42" has 2 digits, want at least 6
}
