package dynamoseq_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/dbtest"
)

// In a service the client comes from the AWS configuration:
//
//	cfg, err := config.LoadDefaultConfig(ctx)
//	client := dynamodb.NewFromConfig(cfg)
//
// The examples use a table in DynamoDB Local, with partition key "pk" (String).
func ExampleCounter_Next() {
	client, table := dbtest.ExampleTable("")
	ctx := context.Background()

	orders, err := dynamoseq.NewCounter(client, table)
	if err != nil {
		panic(err)
	}
	for range 3 {
		n, err := orders.Next(ctx, "orders")
		if err != nil {
			panic(err)
		}
		fmt.Printf("ORD-%06d\n", n)
	}
	// Output:
	// ORD-000001
	// ORD-000002
	// ORD-000003
}

func ExampleCounter_NextN() {
	client, table := dbtest.ExampleTable("")
	ctx := context.Background()

	lines, err := dynamoseq.NewCounter(client, table)
	if err != nil {
		panic(err)
	}
	// Reserve numbers for the five lines of an order in one round trip.
	first, err := lines.NextN(ctx, "order-lines", 5)
	if err != nil {
		panic(err)
	}
	fmt.Println("lines", first, "to", first+4)
	next, _ := lines.Next(ctx, "order-lines")
	fmt.Println("next", next)
	// Output:
	// lines 1 to 5
	// next 6
}

func ExampleNewCounter_options() {
	client, table := dbtest.ExampleTable("")
	ctx := context.Background()

	// Invoice numbers in a single-table design: the counter item's key is
	// "SEQ#invoices", numbering starts at 1000, and stops at 9999.
	invoices, err := dynamoseq.NewCounter(client, table, func(o *dynamoseq.CounterOptions) {
		o.KeyPrefix = "SEQ#"
		o.Start = 1000
		o.MaxValue = 9999
	})
	if err != nil {
		panic(err)
	}
	n, _ := invoices.Next(ctx, "invoices")
	fmt.Println(n)

	_, err = invoices.NextN(ctx, "invoices", 9000)
	fmt.Println(errors.Is(err, dynamoseq.ErrExhausted))
	// Output:
	// 1000
	// true
}

// A table that an earlier framework left behind: one item per data type,
// {NextKey: "user", NextId: 0}. The Counter works on it as it is.
func ExampleNewCounter_existingNextIdTable() {
	client, table := nextIDTable()
	ctx := context.Background()

	ids, err := dynamoseq.NewCounter(client, table, func(o *dynamoseq.CounterOptions) {
		o.PartitionKey = "NextKey"
		o.ValueAttribute = "NextId"
	})
	if err != nil {
		panic(err)
	}
	id, _ := ids.Next(ctx, "user")
	fmt.Println("user", id)
	// Output:
	// user 1
}

func ExampleCounter_AdvanceTo() {
	client, table := dbtest.ExampleTable("")
	ctx := context.Background()

	users, err := dynamoseq.NewCounter(client, table)
	if err != nil {
		panic(err)
	}
	// Moving from a database whose user ids reached 41207: the next id
	// must be greater. Running the migration twice is harmless, and it
	// never moves the counter back.
	for _, last := range []int64{41207, 100} {
		if _, err := users.AdvanceTo(ctx, "users", last); err != nil {
			panic(err)
		}
	}
	id, err := users.Next(ctx, "users")
	if err != nil {
		panic(err)
	}
	fmt.Println(id)
	// Output:
	// 41208
}

func nextIDTable() (*dynamodb.Client, string) {
	client, unique := dbtest.ExampleTable("")
	table := unique + "_NextId"
	_, err := client.CreateTable(context.Background(), dynamoseq.CounterTable(table, func(o *dynamoseq.CounterOptions) { o.PartitionKey = "NextKey" }))
	if err != nil {
		panic(err)
	}
	_, err = client.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String(table),
		Item: map[string]types.AttributeValue{
			"NextKey": &types.AttributeValueMemberS{Value: "user"},
			"NextId":  &types.AttributeValueMemberN{Value: "0"},
		},
	})
	if err != nil {
		panic(err)
	}
	return client, table
}

// EnsureTable makes the table a strategy needs, under the same options, and
// is safe to call at every start: a table that is ready is left as it is.
func ExampleEnsureTable() {
	client, unique := dbtest.ExampleTable("")
	ctx := context.Background()
	table := unique + "_Tickets"

	opts := func(o *dynamoseq.SortKeyOptions) { o.KeyPrefix = "PROJECT#" }
	for range 2 {
		if err := dynamoseq.EnsureTable(ctx, client, dynamoseq.SortKeyTable(table, opts), ""); err != nil {
			panic(err)
		}
	}
	tickets, err := dynamoseq.NewSortKey(client, table, opts)
	if err != nil {
		panic(err)
	}
	n, err := tickets.Next(ctx, "projectA")
	if err != nil {
		panic(err)
	}
	fmt.Println("projectA", n)

	// A Counter's table has no sort key: EnsureTable refuses to take this
	// one for it.
	err = dynamoseq.EnsureTable(ctx, client, dynamoseq.CounterTable(table), "")
	fmt.Println(errors.Is(err, dynamoseq.ErrTableMismatch))
	// Output:
	// projectA 1
	// true
}
