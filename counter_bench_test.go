package dynamoseq_test

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// BenchmarkCounterNext compares Counter.Next with the UpdateItem call a
// developer would write by hand: ADD 1, ReturnValues UPDATED_NEW, parse the
// number. Same table, same client, same run; `make bench` prints the ratio.
func BenchmarkCounterNext(b *testing.B) {
	client := dbtest.Client(b)
	table := dbtest.CounterTable(b, client)
	c, err := dynamoseq.NewCounter(client, table)
	if err != nil {
		b.Fatal(err)
	}
	raw := rawCounterNext(client, table)
	// DynamoDB Local runs on the JVM, which needs a few thousand requests to
	// compile its hot paths; without this the first sub-benchmark is slowed.
	for i := range 3000 {
		if _, err := raw(context.Background(), "warm-up-"+strconv.Itoa(i%16)); err != nil {
			b.Fatal(err)
		}
	}
	for _, goroutines := range []int{1, 16} {
		name := "goroutines=" + strconv.Itoa(goroutines)
		b.Run(name+"/baseline", func(b *testing.B) { runNext(b, goroutines, "raw-"+name, raw) })
		b.Run(name+"/dynamoseq", func(b *testing.B) { runNext(b, goroutines, "lib-"+name, c.Next) })
	}
}

// rawCounterNext is the call a developer would write by hand: UpdateItem ADD
// 1 with ReturnValues UPDATED_NEW, and the number parsed from the answer.
func rawCounterNext(client dynamoseq.Client, table string) func(context.Context, string) (int64, error) {
	return func(ctx context.Context, name string) (int64, error) {
		out, err := client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                 aws.String(table),
			Key:                       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: name}},
			UpdateExpression:          aws.String("ADD #v :one"),
			ExpressionAttributeNames:  map[string]string{"#v": "value"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
			ReturnValues:              types.ReturnValueUpdatedNew,
		})
		if err != nil {
			return 0, err
		}
		return strconv.ParseInt(out.Attributes["value"].(*types.AttributeValueMemberN).Value, 10, 64)
	}
}

// runNext calls next b.N times in all from the given number of goroutines.
func runNext(b *testing.B, goroutines int, name string, next func(context.Context, string) (int64, error)) {
	b.ReportAllocs()
	ctx := context.Background()
	if _, err := next(ctx, name); err != nil { // warm the connection
		b.Fatal(err)
	}
	b.ResetTimer()
	var wg sync.WaitGroup
	for g := range goroutines {
		n := shareOf(b.N, goroutines, g)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				if _, err := next(ctx, name); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkCounterNextInterleaved alternates one raw UpdateItem ADD and one
// Counter.Next in every iteration and times each, so that both see the same
// server state (JIT, table size, other load on the machine) and the ratio
// is not skewed by drift between two sequential sub-benchmarks. It reports
// each one's mean time per call and their ratio (dynamoseq/baseline).
func BenchmarkCounterNextInterleaved(b *testing.B) {
	client := dbtest.Client(b)
	table := dbtest.CounterTable(b, client)
	c, err := dynamoseq.NewCounter(client, table)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	raw := rawCounterNext(client, table)
	for i := range 3000 { // see BenchmarkCounterNext
		if _, err := raw(ctx, "warm-up-"+strconv.Itoa(i%16)); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Next(ctx, "warm-up-lib-"+strconv.Itoa(i%16)); err != nil {
			b.Fatal(err)
		}
	}
	interleave(b, 0, func() error {
		_, err := raw(ctx, "raw")
		return err
	}, func() error {
		_, err := c.Next(ctx, "lib")
		return err
	})
}
