// Package dailyids is the order numbering of a small order service: orders
// are stored under numbers such as "ORD-261122-000042", the 42nd order of 22
// November 2026, which restart at 1 every day in the shop's time zone and
// are short enough to spell over the phone.
//
// It keeps everything in one table with a String partition key "pk" (a
// single-table design): the order items under "ORDER#<number>" and one
// counter item per day under "SEQ#orders#<yyyymmdd>". The counters carry a
// "ttl" attribute, so that DynamoDB deletes each day's counter a week after
// the day, once Time to Live is enabled on the table for "ttl" (EnsureTable,
// or see docs/readable-ids.md). Order items have no "ttl" and stay.
//
// A service copies this package and changes the names.
package dailyids

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq"
)

// numberFormat writes the order numbers: ORD-yymmdd-nnnnnn.
var numberFormat = dynamoseq.Format{Prefix: "ORD", DateLayout: "060102", Separator: "-", Width: 6}

// Order is a placed order.
type Order struct {
	Number     string    // "ORD-261122-000042"
	Customer   string    // who placed it
	TotalCents int64     // what it costs
	PlacedAt   time.Time // when its number was minted
}

// Config configures Orders.
type Config struct {
	Table    string         // the table of orders and counters
	Location *time.Location // the shop's time zone, in which days start; default UTC
	Now      func() time.Time
}

// Orders places orders under daily order numbers. It is safe for
// concurrent use.
type Orders struct {
	client  dynamoseq.Client
	table   string
	counter *dynamoseq.Counter
	numbers *dynamoseq.IDMinter
	now     func() time.Time
}

// New returns Orders over cfg.Table. It makes no call to DynamoDB.
func New(client dynamoseq.Client, cfg Config) (*Orders, error) {
	counter, err := dynamoseq.NewCounter(client, cfg.Table, func(o *dynamoseq.CounterOptions) {
		o.KeyPrefix = "SEQ#"
	})
	if err != nil {
		return nil, err
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	numbers, err := dynamoseq.NewIDMinter(counter, numberFormat, dynamoseq.Daily, func(o *dynamoseq.IDMinterOptions) {
		o.Location = cfg.Location
		o.Now = now
		o.TTLAttribute = "ttl"
		o.TTLRetention = 7 * 24 * time.Hour
	})
	if err != nil {
		return nil, err
	}
	return &Orders{client: client, table: cfg.Table, counter: counter, numbers: numbers, now: now}, nil
}

// Place mints the next order number and stores the order under it: two
// round trips, the counter's UpdateItem and the order's PutItem. The
// PutItem's condition that no order has that number yet turns a numbering
// mistake (such as two shops sharing a table with different time zones)
// into an error instead of an overwritten order.
//
// A failure after the number was minted leaves a gap in the day's numbers;
// order numbers are unique, not gap-free.
func (o *Orders) Place(ctx context.Context, customer string, totalCents int64) (Order, error) {
	number, err := o.numbers.Next(ctx, "orders")
	if err != nil {
		return Order{}, fmt.Errorf("placing an order: %w", err)
	}
	order := Order{Number: number, Customer: customer, TotalCents: totalCents, PlacedAt: o.now()}
	_, err = o.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(o.table),
		Item: map[string]types.AttributeValue{
			"pk":          &types.AttributeValueMemberS{Value: "ORDER#" + number},
			"customer":    &types.AttributeValueMemberS{Value: customer},
			"total_cents": &types.AttributeValueMemberN{Value: strconv.FormatInt(totalCents, 10)},
			"placed_at":   &types.AttributeValueMemberS{Value: order.PlacedAt.UTC().Format(time.RFC3339Nano)},
		},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return Order{}, fmt.Errorf("placing an order: order number %s is already taken", number)
	}
	if err != nil {
		return Order{}, fmt.Errorf("placing order %s: %w", number, err)
	}
	return order, nil
}

// Get returns the order with the given number. It rejects a malformed
// number without asking DynamoDB.
func (o *Orders) Get(ctx context.Context, number string) (Order, error) {
	if _, _, err := numberFormat.Parse(number, time.UTC); err != nil {
		return Order{}, err
	}
	out, err := o.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(o.table),
		Key:            map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "ORDER#" + number}},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return Order{}, fmt.Errorf("reading order %s: %w", number, err)
	}
	if out.Item == nil {
		return Order{}, fmt.Errorf("order %s: %w", number, dynamoseq.ErrNotFound)
	}
	order := Order{Number: number}
	customer, _ := out.Item["customer"].(*types.AttributeValueMemberS)
	total, _ := out.Item["total_cents"].(*types.AttributeValueMemberN)
	placed, _ := out.Item["placed_at"].(*types.AttributeValueMemberS)
	if customer == nil || total == nil || placed == nil {
		return Order{}, fmt.Errorf("order %s: item %v lacks an attribute", number, out.Item)
	}
	order.Customer = customer.Value
	if order.TotalCents, err = strconv.ParseInt(total.Value, 10, 64); err != nil {
		return Order{}, fmt.Errorf("order %s: total_cents: %w", number, err)
	}
	if order.PlacedAt, err = time.Parse(time.RFC3339Nano, placed.Value); err != nil {
		return Order{}, fmt.Errorf("order %s: placed_at: %w", number, err)
	}
	return order, nil
}

// CountOn returns how many order numbers were minted on the day that holds
// t, in the shop's time zone: that day's counter, with one GetItem.
func (o *Orders) CountOn(ctx context.Context, t time.Time) (int64, error) {
	seq, err := o.numbers.SequenceAt("orders", t)
	if err != nil {
		return 0, err
	}
	n, err := o.counter.Current(ctx, seq)
	if errors.Is(err, dynamoseq.ErrNotFound) {
		return 0, nil // no order that day
	}
	return n, err
}

// EnsureTable makes the orders' table ready: it creates it if missing (a
// String partition key "pk", on-demand) and enables Time to Live on the
// counters' "ttl" attribute unless it already is. It changes nothing on a
// table that is ready, so a service may call it at every start;
// infrastructure code (CloudFormation, Terraform) usually does this instead,
// see docs/readable-ids.md.
func EnsureTable(ctx context.Context, client *dynamodb.Client, table string) error {
	return dynamoseq.EnsureTable(ctx, client, dynamoseq.CounterTable(table), "ttl")
}
