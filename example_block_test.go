package dynamoseq_test

import (
	"context"
	"fmt"
	"log"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// A Block mints event ids from memory: the first call leases numbers
// 1..1000 with one UpdateItem, and the next range is leased in the
// background once 500 of them are used. Close hands the unused ones back,
// so that the next process continues at 4.
func ExampleBlock() {
	client, table := dynamoseqtest.SharedTable(dynamoseq.CounterTable("Sequences"))
	ctx := context.Background()

	counter, err := dynamoseq.NewCounter(client, table)
	if err != nil {
		log.Fatal(err)
	}
	ids, err := dynamoseq.NewBlock(counter, 1000)
	if err != nil {
		log.Fatal(err)
	}

	for range 3 {
		id, err := ids.Next(ctx, "events")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("event", id)
	}
	// The counter in DynamoDB moved once, by the whole range.
	last, err := counter.Current(ctx, "events")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("counter at", last)

	if err := ids.Close(); err != nil {
		log.Fatal(err)
	}
	last, err = counter.Current(ctx, "events")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("counter after Close at", last)
	st := ids.Stats()
	fmt.Println("round trips", st.RoundTrips, "handed out", st.Numbers)
	// Output:
	// event 1
	// event 2
	// event 3
	// counter at 1000
	// counter after Close at 3
	// round trips 2 handed out 3
}
