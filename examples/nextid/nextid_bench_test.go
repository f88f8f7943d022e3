package nextid_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/examples/nextid"
)

// oldNextID is the teams' "before save" loop: read the NextId item, write
// value+1 back on the condition that nobody changed it in between, and start
// over when somebody did. It returns the id and how many times it started
// over.
func oldNextID(ctx context.Context, client *dynamodb.Client, table, key string) (id int64, retries int, err error) {
	k := &types.AttributeValueMemberS{Value: key}
	for ; retries < 10000; retries++ {
		out, err := client.GetItem(ctx, &dynamodb.GetItemInput{
			TableName:      aws.String(table),
			Key:            map[string]types.AttributeValue{"NextKey": k},
			ConsistentRead: aws.Bool(true),
		})
		if err != nil {
			return 0, retries, err
		}
		var cur int64
		cond := "attribute_not_exists(NextKey)"
		var vals map[string]types.AttributeValue
		if n, ok := out.Item["NextId"].(*types.AttributeValueMemberN); ok {
			if cur, err = strconv.ParseInt(n.Value, 10, 64); err != nil {
				return 0, retries, err
			}
			cond = "NextId = :cur"
			vals = map[string]types.AttributeValue{":cur": n}
		}
		_, err = client.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String(table),
			Item: map[string]types.AttributeValue{
				"NextKey": k,
				"NextId":  &types.AttributeValueMemberN{Value: strconv.FormatInt(cur+1, 10)},
			},
			ConditionExpression:       aws.String(cond),
			ExpressionAttributeValues: vals,
		})
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			continue // another writer took cur+1: start over
		}
		if err != nil {
			return 0, retries, err
		}
		return cur + 1, retries, nil
	}
	return 0, retries, fmt.Errorf("old loop: %d attempts lost the race", retries)
}

// BenchmarkNextID compares the old loop (GetItem, then a conditional PutItem
// of value+1, retried on a lost race) with Counter.Next (one UpdateItem
// ADD), from 1 and from 8 goroutines taking ids of the same data type. The
// extra figures are round trips per id (2 per attempt for the old loop, so
// anything above 2 is retries) and the 99th percentile latency of one id.
func BenchmarkNextID(b *testing.B) {
	client := testClient(b)
	table := nextIDTable(b, client, nil)
	ids, err := nextid.NewIDs(client, table)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	run := 0
	for _, goroutines := range []int{1, 8} {
		b.Run(fmt.Sprintf("goroutines=%d/baseline", goroutines), func(b *testing.B) {
			run++
			key := fmt.Sprintf("user-%d", run) // a fresh item for each run
			benchConcurrent(b, goroutines, func() (int, error) {
				_, retries, err := oldNextID(ctx, client, table, key)
				return 2 * (retries + 1), err
			})
		})
		b.Run(fmt.Sprintf("goroutines=%d/dynamoseq", goroutines), func(b *testing.B) {
			run++
			key := fmt.Sprintf("user-%d", run)
			benchConcurrent(b, goroutines, func() (int, error) {
				_, err := ids.Next(ctx, key)
				return 1, err
			})
		})
	}
}

// benchConcurrent runs b.N calls of take, split over goroutines, and
// reports round trips per call and the p99 latency. take returns the round
// trips it made.
func benchConcurrent(b *testing.B, goroutines int, take func() (roundTrips int, err error)) {
	b.ReportAllocs()
	lat := make([][]time.Duration, goroutines)
	trips := make([]int, goroutines)
	for g := range lat {
		lat[g] = make([]time.Duration, 0, b.N/goroutines+1)
	}
	var wg sync.WaitGroup
	b.ResetTimer()
	for g := range goroutines {
		n := b.N / goroutines
		if g < b.N%goroutines {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				start := time.Now()
				rt, err := take()
				if err != nil {
					b.Error(err)
					return
				}
				lat[g] = append(lat[g], time.Since(start))
				trips[g] += rt
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	all := slices.Concat(lat...)
	slices.Sort(all)
	total := 0
	for _, t := range trips {
		total += t
	}
	b.ReportMetric(float64(total)/float64(b.N), "round-trips/op")
	if len(all) > 0 {
		p99 := all[min(len(all)-1, len(all)*99/100)]
		b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
	}
}
