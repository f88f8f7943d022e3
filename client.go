package dynamoseq

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamoseq/dynamoseq/internal/engine"
)

// Client is the part of *dynamodb.Client that the package uses. Its methods
// have the SDK's exact signatures, so *dynamodb.Client satisfies it and a
// test or an application can wrap the real client to add tracing, metrics or
// injected faults. A wrapper must pass optFns on to the SDK client: the
// library installs in them the marker that tells whether a write was sent
// (see docs/sortkey.md, "Never twice, never lost").
type Client interface {
	GetItem(ctx context.Context, params *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, params *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, params *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	Query(ctx context.Context, params *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	TransactWriteItems(ctx context.Context, params *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

var _ Client = (*dynamodb.Client)(nil)

// countingClient passes every request on to Client with the library's
// own handling of throttles and conflicts (engine.OwnBackpressure: the
// SDK returns them at once, and the strategy waits them out), and counts
// it in n, by operation, for the strategies' RoundTrips figures, and by
// the refusal DynamoDB answered (see stats.go). Its errors name the
// operation and DynamoDB's answer once (see sdkError).
type countingClient struct {
	Client
	n *requestCounts
}

func (c countingClient) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.n.get.Add(1)
	out, err := c.Client.GetItem(ctx, in, own(optFns)...)
	c.n.refused(err)
	return out, briefSDK("GetItem", err)
}

func (c countingClient) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.n.put.Add(1)
	out, err := c.Client.PutItem(ctx, in, own(optFns)...)
	c.n.refused(err)
	return out, briefSDK("PutItem", err)
}

func (c countingClient) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.n.update.Add(1)
	out, err := c.Client.UpdateItem(ctx, in, own(optFns)...)
	c.n.refused(err)
	return out, briefSDK("UpdateItem", err)
}

func (c countingClient) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.n.query.Add(1)
	out, err := c.Client.Query(ctx, in, own(optFns)...)
	c.n.refused(err)
	return out, briefSDK("Query", err)
}

func (c countingClient) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c.n.transact.Add(1)
	out, err := c.Client.TransactWriteItems(ctx, in, own(optFns)...)
	c.n.refused(err)
	return out, briefSDK("TransactWriteItems", err)
}

// own returns optFns with engine.OwnBackpressure added, in a slice of its
// own.
func own(optFns []func(*dynamodb.Options)) []func(*dynamodb.Options) {
	return append([]func(*dynamodb.Options){engine.OwnBackpressure}, optFns...)
}
