package dynamoseq_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// The examples run against DynamoDB Local: dynamoseqtest.SharedTable
// creates the table they need and returns a client of it. In a service the
// client comes from the AWS configuration and the table exists already:
//
//	cfg, err := config.LoadDefaultConfig(ctx)
//	client := dynamodb.NewFromConfig(cfg)
//	orders, err := dynamoseq.NewCounter(client, "Sequences")
func ExampleCounter_Next() {
	client, table := dynamoseqtest.SharedTable(dynamoseq.CounterTable("Sequences"))
	ctx := context.Background()

	orders, err := dynamoseq.NewCounter(client, table)
	if err != nil {
		log.Fatal(err)
	}
	for range 3 {
		n, err := orders.Next(ctx, "orders")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("ORD-%06d\n", n)
	}
	// Output:
	// ORD-000001
	// ORD-000002
	// ORD-000003
}

func ExampleCounter_NextN() {
	client, table := dynamoseqtest.SharedTable(dynamoseq.CounterTable("Sequences"))
	ctx := context.Background()

	lines, err := dynamoseq.NewCounter(client, table)
	if err != nil {
		log.Fatal(err)
	}
	// Reserve numbers for the five lines of an order in one round trip.
	first, err := lines.NextN(ctx, "order-lines", 5)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("lines", first, "to", first+4)
	next, err := lines.Next(ctx, "order-lines")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("next", next)
	// Output:
	// lines 1 to 5
	// next 6
}

func ExampleNewCounter_options() {
	// Invoice numbers in a single-table design: the counter item's key is
	// "SEQ#invoices", numbering starts at 1000, and stops at 9999.
	opts := func(o *dynamoseq.CounterOptions) {
		o.KeyPrefix = "SEQ#"
		o.Start = 1000
		o.MaxValue = 9999
	}
	client, table := dynamoseqtest.SharedTable(dynamoseq.CounterTable("App", opts))
	ctx := context.Background()

	invoices, err := dynamoseq.NewCounter(client, table, opts)
	if err != nil {
		log.Fatal(err)
	}
	n, err := invoices.Next(ctx, "invoices")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n)

	_, err = invoices.NextN(ctx, "invoices", 9000)
	fmt.Println(errors.Is(err, dynamoseq.ErrExhausted))
	// Output:
	// 1000
	// true
}

// A table that an earlier framework left behind: one item per data type,
// {NextKey: "user", NextId: 41}. The Counter works on it as it is.
func ExampleNewCounter_existingNextIdTable() {
	opts := func(o *dynamoseq.CounterOptions) {
		o.PartitionKey = "NextKey"
		o.ValueAttribute = "NextId"
	}
	client, table := dynamoseqtest.SharedTable(dynamoseq.CounterTable("NextId", opts))
	ctx := context.Background()
	_, err := client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(table),
		Item: map[string]types.AttributeValue{
			"NextKey": &types.AttributeValueMemberS{Value: "user"},
			"NextId":  &types.AttributeValueMemberN{Value: "41"},
		},
	})
	if err != nil {
		log.Fatal(err)
	}

	ids, err := dynamoseq.NewCounter(client, table, opts)
	if err != nil {
		log.Fatal(err)
	}
	id, err := ids.Next(ctx, "user")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("user", id)
	// Output:
	// user 42
}

func ExampleCounter_AdvanceTo() {
	client, table := dynamoseqtest.SharedTable(dynamoseq.CounterTable("Sequences"))
	ctx := context.Background()

	users, err := dynamoseq.NewCounter(client, table)
	if err != nil {
		log.Fatal(err)
	}
	// Moving from a database whose user ids reached 41207: the next id
	// must be greater. Running the migration twice is harmless, and it
	// never moves the counter back.
	for _, last := range []int64{41207, 100} {
		if _, err := users.AdvanceTo(ctx, "users", last); err != nil {
			log.Fatal(err)
		}
	}
	id, err := users.Next(ctx, "users")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(id)
	// Output:
	// 41208
}
