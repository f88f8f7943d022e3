package dynamoseq_test

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// rawLatest is the recipe written by hand: read 'latest' (strongly
// consistent) unless this writer knows its version from its own last write,
// then one TransactWriteItems that puts the version item (attribute_not_exists)
// and 'latest' (condition on its version); on a cancelled transaction read
// again and retry at once, without limit, as the usual code does.
type rawLatest struct {
	client dynamoseq.Client
	table  string
}

func (r rawLatest) append(ctx context.Context, name string, known *int64, attrs map[string]types.AttributeValue) (int64, error) {
	for {
		if *known < 0 {
			out, err := r.client.GetItem(ctx, &dynamodb.GetItemInput{
				TableName:      aws.String(r.table),
				Key:            map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: name}, "sk": &types.AttributeValueMemberN{Value: "0"}},
				ConsistentRead: aws.Bool(true),
			})
			if err != nil {
				return 0, err
			}
			*known = 0
			if v, ok := out.Item["version"].(*types.AttributeValueMemberN); ok {
				*known, _ = strconv.ParseInt(v.Value, 10, 64)
			}
		}
		prev := *known
		next := strconv.FormatInt(prev+1, 10)
		item := func(sk string) map[string]types.AttributeValue {
			m := map[string]types.AttributeValue{
				"pk":      &types.AttributeValueMemberS{Value: name},
				"sk":      &types.AttributeValueMemberN{Value: sk},
				"version": &types.AttributeValueMemberN{Value: next},
			}
			for k, v := range attrs {
				m[k] = v
			}
			return m
		}
		latest := &types.Put{TableName: aws.String(r.table), Item: item("0")}
		if prev == 0 {
			latest.ConditionExpression = aws.String("attribute_not_exists(pk)")
		} else {
			latest.ConditionExpression = aws.String("version = :prev")
			latest.ExpressionAttributeValues = map[string]types.AttributeValue{":prev": &types.AttributeValueMemberN{Value: strconv.FormatInt(prev, 10)}}
		}
		_, err := r.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(r.table), Item: item(next), ConditionExpression: aws.String("attribute_not_exists(pk)")}},
			{Put: latest},
		}})
		var tce *types.TransactionCanceledException
		switch {
		case errors.As(err, &tce):
			*known = -1
			continue
		case err != nil:
			return 0, err
		}
		*known = prev + 1
		return prev + 1, nil
	}
}

// BenchmarkLatestAppend compares Latest.Append with the hand-written
// transaction loop, one writer and 16 goroutines on one document, in the
// same table and run. It reports appends/s and the 99th percentile latency.
func BenchmarkLatestAppend(b *testing.B) {
	client := dbtest.Client(b)
	table := dbtest.SortKeyTable(b, client, types.ScalarAttributeTypeN)
	l, err := dynamoseq.NewLatest(client, table)
	if err != nil {
		b.Fatal(err)
	}
	raw := rawLatest{client: client, table: table}
	attrs := map[string]types.AttributeValue{"title": &types.AttributeValueMemberS{Value: "a page of about forty bytes of text"}}
	// Let the JVM of DynamoDB Local compile the paths of both kinds of
	// request first (the library's use expression attribute names and
	// ReturnValuesOnConditionCheckFailure); otherwise whichever runs second
	// is measured partly interpreted.
	for i := range 600 {
		known := int64(-1)
		if _, err := raw.append(context.Background(), "warm-up-raw-"+strconv.Itoa(i%8), &known, attrs); err != nil {
			b.Fatal(err)
		}
		if _, err := l.Append(context.Background(), "warm-up-lib-"+strconv.Itoa(i%8), attrs); err != nil {
			b.Fatal(err)
		}
	}
	for _, goroutines := range []int{1, 16} {
		name := "goroutines=" + strconv.Itoa(goroutines)
		b.Run(name+"/baseline", func(b *testing.B) {
			runAppends(b, goroutines, func() func(context.Context, string) error {
				known := int64(-1) // each goroutine remembers its own last write
				return func(ctx context.Context, doc string) error {
					_, err := raw.append(ctx, doc, &known, attrs)
					return err
				}
			})
		})
		b.Run(name+"/dynamoseq", func(b *testing.B) {
			runAppends(b, goroutines, func() func(context.Context, string) error {
				return func(ctx context.Context, doc string) error {
					_, err := l.Append(ctx, doc, attrs)
					return err
				}
			})
		})
	}
}

var benchDoc int

// runAppends makes b.N appends to a new document from the given number of
// goroutines, each with the append function newAppend returns, after one
// untimed append that warms the writer.
func runAppends(b *testing.B, goroutines int, newAppend func() func(context.Context, string) error) {
	b.ReportAllocs()
	ctx := context.Background()
	benchDoc++
	doc := "doc-" + strconv.Itoa(benchDoc)
	appends := make([]func(context.Context, string) error, goroutines)
	for g := range appends {
		appends[g] = newAppend()
	}
	if err := appends[0](ctx, doc); err != nil {
		b.Fatal(err)
	}
	all, elapsed := timeCalls(b, goroutines, func(g int) error { return appends[g](ctx, doc) })
	if len(all) > 0 {
		p99 := all[min(len(all)-1, len(all)*99/100)]
		b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "p50-ms")
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "appends/s")
}

// BenchmarkLatestAppendInterleaved alternates one append of the
// hand-written transaction loop and one Latest.Append, each warm on its own
// document, and times each, so that both see the same server state; see
// BenchmarkCounterNextInterleaved. It reports each one's mean time per
// append and their ratio (dynamoseq/baseline).
func BenchmarkLatestAppendInterleaved(b *testing.B) {
	client := dbtest.Client(b)
	table := dbtest.SortKeyTable(b, client, types.ScalarAttributeTypeN)
	l, err := dynamoseq.NewLatest(client, table)
	if err != nil {
		b.Fatal(err)
	}
	raw := rawLatest{client: client, table: table}
	attrs := map[string]types.AttributeValue{"title": &types.AttributeValueMemberS{Value: "a page of about forty bytes of text"}}
	ctx := context.Background()
	known := int64(-1)
	interleave(b, 600, func() error { // see BenchmarkLatestAppend for the warm-up
		_, err := raw.append(ctx, "raw", &known, attrs)
		return err
	}, func() error {
		_, err := l.Append(ctx, "lib", attrs)
		return err
	})
}
