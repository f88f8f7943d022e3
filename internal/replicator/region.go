package replicator

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// region is one Region's table and stream, as the Replicator's goroutine
// sees them.
type region struct {
	name    string
	db      *dynamodb.Client
	streams *dynamodbstreams.Client
	arn     string
	shards  map[string]*shard // by shard id
	order   []string          // shard ids in the order the stream lists them
	items   map[string]*item  // by fingerprint of the key
	reads   int               // calls of read, to list the shards now and then
	relist  bool              // a shard closed: list the shards on the next read
}

// relistEvery is how many reads go by between two listings of the shards
// when none closed.
const relistEvery = 50

// shard is a stream shard being read. iter is nil once it is closed and
// read to its end.
type shard struct {
	parent string
	iter   *string
	last   string // sequence number of the last record read; "" before the first
	closed bool
}

// streamRecord is one change read from a stream.
type streamRecord struct {
	id    string
	key   map[string]types.AttributeValue
	image map[string]types.AttributeValue // nil for a deletion
}

func (g *region) item(id string) *item {
	it, ok := g.items[id]
	if !ok {
		it = &item{}
		g.items[id] = it
	}
	return it
}

// read returns the records added to the stream since the last read, in
// stream order: parents before children, each shard in sequence.
func (g *region) read(ctx context.Context) ([]streamRecord, error) {
	if g.reads%relistEvery == 0 || g.relist {
		if err := g.refreshShards(ctx); err != nil {
			return nil, err
		}
		g.relist = false
	}
	g.reads++
	var recs []streamRecord
	for _, id := range g.order {
		sh := g.shards[id]
		if sh.closed || !g.parentDone(sh) {
			continue
		}
		out, err := g.getRecords(ctx, id, sh)
		if err != nil {
			return nil, err
		}
		for _, rec := range out.Records {
			r, err := convertRecord(rec)
			if err != nil {
				return nil, fmt.Errorf("replicator: Region %s: %w", g.name, err)
			}
			recs = append(recs, r)
			sh.last = aws.ToString(rec.Dynamodb.SequenceNumber)
		}
		sh.iter = out.NextShardIterator
		sh.closed = sh.iter == nil
		g.relist = g.relist || sh.closed
	}
	return recs, nil
}

// getRecords reads the next records of a shard. DynamoDB Local answers
// TrimmedDataAccessException for an iterator taken while the shard was
// empty once records arrive (aws/aws-sdk-java#2923); then a new iterator is
// taken after the last record read, or at the start when none was.
func (g *region) getRecords(ctx context.Context, id string, sh *shard) (*dynamodbstreams.GetRecordsOutput, error) {
	for attempt := 0; ; attempt++ {
		if sh.iter == nil {
			in := &dynamodbstreams.GetShardIteratorInput{
				StreamArn: aws.String(g.arn), ShardId: aws.String(id), ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon,
			}
			if sh.last != "" {
				in.ShardIteratorType, in.SequenceNumber = stypes.ShardIteratorTypeAfterSequenceNumber, aws.String(sh.last)
			}
			out, err := g.streams.GetShardIterator(ctx, in)
			if err != nil {
				return nil, fmt.Errorf("replicator: Region %s: GetShardIterator: %w", g.name, err)
			}
			sh.iter = out.ShardIterator
		}
		out, err := g.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: sh.iter})
		var trimmed *stypes.TrimmedDataAccessException
		if errors.As(err, &trimmed) && attempt == 0 {
			sh.iter = nil
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("replicator: Region %s: GetRecords: %w", g.name, err)
		}
		return out, nil
	}
}

func (g *region) parentDone(sh *shard) bool {
	p, ok := g.shards[sh.parent]
	return !ok || p.closed
}

// refreshShards lists the stream's shards and adds the new ones.
func (g *region) refreshShards(ctx context.Context) error {
	var start *string
	for {
		out, err := g.streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(g.arn), ExclusiveStartShardId: start})
		if err != nil {
			return fmt.Errorf("replicator: Region %s: DescribeStream: %w", g.name, err)
		}
		for _, s := range out.StreamDescription.Shards {
			id := aws.ToString(s.ShardId)
			if _, ok := g.shards[id]; !ok {
				g.shards[id] = &shard{parent: aws.ToString(s.ParentShardId)}
				g.order = append(g.order, id)
			}
		}
		start = out.StreamDescription.LastEvaluatedShardId
		if start == nil {
			return nil
		}
	}
}

// write applies c, on the condition that the item is still was (nil:
// absent). It reports false when the condition failed.
func (g *region) write(ctx context.Context, table string, c *change, was map[string]types.AttributeValue) (bool, error) {
	cond, names, values := sameAs(c.key, was)
	var err error
	if c.image == nil {
		_, err = g.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName: aws.String(table), Key: c.key,
			ConditionExpression: aws.String(cond), ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		})
	} else {
		_, err = g.db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String(table), Item: c.image,
			ConditionExpression: aws.String(cond), ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		})
	}
	var ccf *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &ccf):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("replicator: Region %s: applying a change: %w", g.name, err)
	}
	return true, nil
}

// sameAs is a condition that holds when the item is was: every attribute
// equal, or, for nil, no item.
func sameAs(key, was map[string]types.AttributeValue) (string, map[string]string, map[string]types.AttributeValue) {
	names := map[string]string{}
	if was == nil {
		for k := range key {
			names["#k"] = k
			break
		}
		return "attribute_not_exists(#k)", names, nil
	}
	values := map[string]types.AttributeValue{}
	var terms []string
	i := 0
	for k, v := range was {
		n, val := "#a"+strconv.Itoa(i), ":a"+strconv.Itoa(i)
		names[n], values[val] = k, v
		terms = append(terms, n+" = "+val)
		i++
	}
	return strings.Join(terms, " AND "), names, values
}
