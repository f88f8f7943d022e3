package dynamoseq_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// naiveAppend is the published recipe that SortKey replaces: a strongly
// consistent Query for the largest sort key, a PutItem at the next number
// with attribute_not_exists, and on a failed condition the same again at
// once.
func naiveAppend(ctx context.Context, client dynamoseq.Client, table, pk string, title string) (int64, error) {
	for {
		out, err := client.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(table),
			KeyConditionExpression:    aws.String("pk = :pk"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}},
			ScanIndexForward:          aws.Bool(false),
			Limit:                     aws.Int32(1),
			ConsistentRead:            aws.Bool(true),
		})
		if err != nil {
			return 0, err
		}
		last := int64(0)
		if len(out.Items) > 0 {
			last, err = strconv.ParseInt(out.Items[0]["sk"].(*types.AttributeValueMemberN).Value, 10, 64)
			if err != nil {
				return 0, err
			}
		}
		_, err = client.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String(table),
			Item: map[string]types.AttributeValue{
				"pk":    &types.AttributeValueMemberS{Value: pk},
				"sk":    &types.AttributeValueMemberN{Value: strconv.FormatInt(last+1, 10)},
				"title": &types.AttributeValueMemberS{Value: title},
			},
			ConditionExpression: aws.String("attribute_not_exists(pk)"),
		})
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			continue
		}
		if err != nil {
			return 0, err
		}
		return last + 1, nil
	}
}

type benchTicket struct {
	Title string `dynamodbav:"title"`
}

// BenchmarkSortKeyAppend compares SortKey.Append with the naive recipe
// (naiveAppend) on one item collection, in the same run against the same
// DynamoDB Local:
//
//   - writers=1: one goroutine appending in a loop;
//   - goroutines=16: sixteen goroutines of one process on one name;
//   - instances=4x4: four SortKeys, each with its own client and four
//     goroutines, on one name. They stand for four processes: each has its
//     own hints and queue, so they race each other through DynamoDB exactly
//     as processes do (separate OS processes are used by
//     TestSortKeyAppendProcesses; in a benchmark their start-up would be
//     timed too). For the baseline the recipe has no state, so it is
//     sixteen goroutines again.
//
// Each reports appends/s and the p99 and maximum latency of one append in
// milliseconds; make bench prints the ratios.
func BenchmarkSortKeyAppend(b *testing.B) {
	client := dbtest.Client(b)
	table := dbtest.SortKeyTable(b, client, types.ScalarAttributeTypeN)
	// Warm DynamoDB Local's JVM, as BenchmarkCounterNext does.
	for i := range 1500 {
		if _, err := naiveAppend(context.Background(), client, table, "warm-up-"+strconv.Itoa(i%16), "warm"); err != nil {
			b.Fatal(err)
		}
	}
	naive := func(name string) func(int) func(context.Context) error {
		return func(int) func(context.Context) error {
			return func(ctx context.Context) error {
				_, err := naiveAppend(ctx, client, table, name, "a ticket")
				return err
			}
		}
	}
	library := func(instances int, name string) func(int) func(context.Context) error {
		sks := make([]*dynamoseq.SortKey, instances)
		for i := range sks {
			c := client
			if i > 0 {
				c = dbtest.Client(b)
			}
			s, err := dynamoseq.NewSortKey(c, table)
			if err != nil {
				b.Fatal(err)
			}
			sks[i] = s
		}
		return func(g int) func(context.Context) error {
			s := sks[g%instances]
			return func(ctx context.Context) error {
				_, err := s.Append(ctx, name, benchTicket{Title: "a ticket"})
				return err
			}
		}
	}
	for _, bc := range []struct {
		name       string
		goroutines int
		instances  int
	}{
		{"writers=1", 1, 1},
		{"goroutines=16", 16, 1},
		{"instances=4x4", 16, 4},
	} {
		b.Run(bc.name+"/baseline", func(b *testing.B) {
			runSortKeyAppends(b, bc.goroutines, naive("raw-"+bc.name))
		})
		b.Run(bc.name+"/dynamoseq", func(b *testing.B) {
			runSortKeyAppends(b, bc.goroutines, library(bc.instances, "lib-"+bc.name))
		})
	}
}

// runSortKeyAppends runs b.N appends in all from the given number of goroutines
// (append(g) gives goroutine g its function) and reports the throughput and
// the latency of the slowest appends.
func runSortKeyAppends(b *testing.B, goroutines int, appendFor func(g int) func(context.Context) error) {
	b.ReportAllocs()
	ctx := context.Background()
	appends := make([]func(context.Context) error, goroutines)
	for g := range appends {
		appends[g] = appendFor(g)
	}
	if err := appends[0](ctx); err != nil { // warm the connection and the hint
		b.Fatal(err)
	}
	all, elapsed := timeCalls(b, goroutines, func(g int) error { return appends[g](ctx) })
	if len(all) == 0 {
		return
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "appends/s")
	b.ReportMetric(ms(all[(len(all)*99)/100]), "p99-ms")
	b.ReportMetric(ms(all[len(all)-1]), "max-ms")
}

// BenchmarkSortKeyAppendInterleaved alternates one warm SortKey.Append and
// one raw PutItem at the next number (attribute_not_exists, the number kept
// in a local variable, as a warm writer does), each on its own name, and
// times each, so that both see the same server state; see
// BenchmarkLatestAppendInterleaved. It reports each one's mean time per
// append and their ratio (dynamoseq/baseline).
func BenchmarkSortKeyAppendInterleaved(b *testing.B) {
	client := dbtest.Client(b)
	table := dbtest.SortKeyTable(b, client, types.ScalarAttributeTypeN)
	s, err := dynamoseq.NewSortKey(client, table)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	item := benchTicket{Title: "a ticket of about forty bytes of text"}
	last := int64(0)
	raw := func() error {
		_, err := client.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String(table),
			Item: map[string]types.AttributeValue{
				"pk":    &types.AttributeValueMemberS{Value: "raw"},
				"sk":    &types.AttributeValueMemberN{Value: strconv.FormatInt(last+1, 10)},
				"title": &types.AttributeValueMemberS{Value: item.Title},
			},
			ConditionExpression: aws.String("attribute_not_exists(pk)"),
		})
		last++
		return err
	}
	interleave(b, 600, raw, func() error { // see BenchmarkLatestAppend for the warm-up
		_, err := s.Append(ctx, "lib", item)
		return err
	})
}
