package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The raw SDK calls that bench runs beside the library: the recipes of the
// library's own benchmarks (the *_bench_test.go files), written against the
// table's attribute names. Each returns the function one goroutine calls to
// mint one number.

// rawCounter is UpdateItem ADD 1 with ReturnValues UPDATED_NEW, the
// baseline of Counter and Block.
func (e *env) rawCounter(client *dynamodb.Client, name string) func(context.Context) error {
	key := map[string]types.AttributeValue{or(e.partitionKey, defaultPartitionKey): &types.AttributeValueMemberS{Value: e.keyPrefix + name}}
	if e.counterSortKey != "" {
		key[or(e.sortKey, defaultSortKey)] = &types.AttributeValueMemberS{Value: e.counterSortKey}
	}
	in := &dynamodb.UpdateItemInput{
		TableName:                 aws.String(e.table),
		Key:                       key,
		UpdateExpression:          aws.String("ADD #v :one"),
		ExpressionAttributeNames:  map[string]string{"#v": or(e.valueAttribute, defaultValueAttribute)},
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
		ReturnValues:              types.ReturnValueUpdatedNew,
	}
	return func(ctx context.Context) error {
		_, err := client.UpdateItem(ctx, in)
		return err
	}
}

// rawSortKey is the published recipe SortKey replaces: a strongly
// consistent Query for the largest sort key, a PutItem at the next number
// with attribute_not_exists, and on a failed condition the same again at
// once.
func (e *env) rawSortKey(client *dynamodb.Client, name string) func(context.Context) error {
	pk, sk := or(e.partitionKey, defaultPartitionKey), or(e.sortKey, defaultSortKey)
	pkValue := &types.AttributeValueMemberS{Value: e.keyPrefix + name}
	query := &dynamodb.QueryInput{
		TableName:                 aws.String(e.table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": pk},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": pkValue},
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(1),
		ConsistentRead:            aws.Bool(true),
	}
	return func(ctx context.Context) error {
		for {
			out, err := client.Query(ctx, query)
			if err != nil {
				return err
			}
			last := int64(0)
			if len(out.Items) > 0 {
				if last, err = e.parseSortKey(out.Items[0][sk]); err != nil {
					return err
				}
			}
			_, err = client.PutItem(ctx, &dynamodb.PutItemInput{
				TableName:                aws.String(e.table),
				Item:                     map[string]types.AttributeValue{pk: pkValue, sk: e.sortKeyValue(last + 1)},
				ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
				ExpressionAttributeNames: map[string]string{"#pk": pk},
			})
			var ccf *types.ConditionalCheckFailedException
			if !errors.As(err, &ccf) {
				return err
			}
		}
	}
}

// rawLatest is the transaction loop written by hand: read 'latest'
// (strongly consistent) unless this goroutine knows its version from its
// own last write, then one TransactWriteItems that puts the version item
// (attribute_not_exists) and 'latest' (condition on its version); on a
// cancelled transaction read again and retry at once.
func (e *env) rawLatest(client *dynamodb.Client, name string) func(context.Context) error {
	pk, versionAttr := or(e.partitionKey, defaultPartitionKey), or(e.versionAttribute, defaultVersionAttribute)
	known := int64(-1)
	return func(ctx context.Context) error {
		for {
			if known < 0 {
				out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(e.table), Key: e.latestKey(name), ConsistentRead: aws.Bool(true)})
				if err != nil {
					return err
				}
				known = 0
				if v, ok := out.Item[versionAttr].(*types.AttributeValueMemberN); ok {
					known, _ = strconv.ParseInt(v.Value, 10, 64)
				}
			}
			next := &types.AttributeValueMemberN{Value: strconv.FormatInt(known+1, 10)}
			version := maps.Clone(e.versionKey(name, known+1))
			version[versionAttr] = next
			latest := maps.Clone(e.latestKey(name))
			latest[versionAttr] = next
			latestPut := &types.Put{TableName: aws.String(e.table), Item: latest,
				ConditionExpression:       aws.String("#v = :prev"),
				ExpressionAttributeNames:  map[string]string{"#v": versionAttr},
				ExpressionAttributeValues: map[string]types.AttributeValue{":prev": &types.AttributeValueMemberN{Value: strconv.FormatInt(known, 10)}}}
			if known == 0 {
				latestPut.ConditionExpression, latestPut.ExpressionAttributeValues = aws.String("attribute_not_exists(#v)"), nil
			}
			_, err := client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String(e.table), Item: version, ConditionExpression: aws.String("attribute_not_exists(#pk)"),
					ExpressionAttributeNames: map[string]string{"#pk": pk}}},
				{Put: latestPut},
			}})
			var tce *types.TransactionCanceledException
			switch {
			case errors.As(err, &tce):
				known = -1
				continue
			case err != nil:
				return err
			}
			known++
			return nil
		}
	}
}

// versionKey and latestKey are the keys of Latest's items, in the layout
// of the options.
func (e *env) versionKey(name string, n int64) map[string]types.AttributeValue {
	pk, base := or(e.partitionKey, defaultPartitionKey), e.keyPrefix+name
	if e.partitionKeyLayout() {
		return map[string]types.AttributeValue{pk: &types.AttributeValueMemberS{Value: fmt.Sprintf(or(e.versionKeyFormat, defaultVersionKeyFormat), base, n)}}
	}
	return map[string]types.AttributeValue{pk: &types.AttributeValueMemberS{Value: base}, or(e.sortKey, defaultSortKey): e.sortKeyValue(n)}
}

func (e *env) latestKey(name string) map[string]types.AttributeValue {
	pk, base := or(e.partitionKey, defaultPartitionKey), e.keyPrefix+name
	if e.partitionKeyLayout() {
		return map[string]types.AttributeValue{pk: &types.AttributeValueMemberS{Value: fmt.Sprintf(or(e.latestKeyFormat, defaultLatestKeyFormat), base)}}
	}
	return e.versionKey(name, 0)
}

// sortKeyValue writes n as a sort key of the type the options give:
// zero-padded to the width for a String.
func (e *env) sortKeyValue(n int64) types.AttributeValue {
	if digits := e.sortKeyDigits(); digits > 0 {
		return &types.AttributeValueMemberS{Value: fmt.Sprintf("%0*d", digits, n)}
	}
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

func (e *env) parseSortKey(av types.AttributeValue) (int64, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberN:
		return strconv.ParseInt(v.Value, 10, 64)
	case *types.AttributeValueMemberS:
		return strconv.ParseInt(v.Value, 10, 64)
	}
	return 0, fmt.Errorf("sort key %T is not a number", av)
}
