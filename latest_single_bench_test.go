package dynamoseq_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// unitCounter counts the write units DynamoDB charges for the writes made
// through it: 1 per KB of item (rounded up) for a PutItem, applied or
// refused by its condition, and 2 per KB for each item of a
// TransactWriteItems.
type unitCounter struct {
	dynamoseq.Client
	units atomic.Int64
}

func (c *unitCounter) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.units.Add(kilobytes(in.Item))
	return c.Client.PutItem(ctx, in, optFns...)
}

func (c *unitCounter) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	for _, it := range in.TransactItems {
		if it.Put != nil {
			c.units.Add(2 * kilobytes(it.Put.Item))
		}
	}
	return c.Client.TransactWriteItems(ctx, in, optFns...)
}

// kilobytes is an item's size in KB, rounded up, counting the names and the
// values of its String and Number attributes (the items of the benchmark
// hold no other type).
func kilobytes(item map[string]types.AttributeValue) int64 {
	size := 0
	for name, av := range item {
		size += len(name)
		switch v := av.(type) {
		case *types.AttributeValueMemberS:
			size += len(v.Value)
		case *types.AttributeValueMemberN:
			size += len(v.Value)
		}
	}
	return int64(size+1023) / 1024
}

// BenchmarkLatestSingleItem compares the two write paths of Latest.Append
// on one table in the same run: the transactional one (the baseline, one
// TransactWriteItems of the version and 'latest') and the single-item one
// (LatestOptions.NoTransactions, the path of GlobalTableMRSC: two conditional
// PutItems). "sequential" alternates one Append of each, call by call, and
// reports their mean times and ratio; "goroutines=8" alternates bursts of 8
// concurrent Appends to one document (which the transactional path batches)
// and reports appends per second of each. Both report the write units per
// append, counted from the requests.
func BenchmarkLatestSingleItem(b *testing.B) {
	client := dbtest.Client(b)
	table := dbtest.SortKeyTable(b, client, types.ScalarAttributeTypeN)
	tx, single := &unitCounter{Client: client}, &unitCounter{Client: client}
	txLatest, err := dynamoseq.NewLatest(tx, table)
	if err != nil {
		b.Fatal(err)
	}
	singleLatest, err := dynamoseq.NewLatest(single, table, func(o *dynamoseq.LatestOptions) { o.NoTransactions = true })
	if err != nil {
		b.Fatal(err)
	}
	item := page{ID: "a page of about a hundred bytes", Title: "the title of the page, for the size of a small document"}
	appendTo := func(l *dynamoseq.Latest, doc string) func() error {
		return func() error {
			_, err := l.Append(context.Background(), doc, item)
			return err
		}
	}
	report := func(b *testing.B, n int64) {
		b.ReportMetric(float64(tx.units.Load())/float64(n), "tx-WU/append")
		b.ReportMetric(float64(single.units.Load())/float64(n), "single-WU/append")
	}
	b.Run("sequential", func(b *testing.B) {
		tx.units.Store(0)
		single.units.Store(0)
		const warm = 100
		interleave(b, warm, appendTo(txLatest, "seq-tx"), appendTo(singleLatest, "seq-single"))
		report(b, int64(b.N+warm))
	})
	b.Run("goroutines=8", func(b *testing.B) {
		const goroutines = 8
		tx.units.Store(0)
		single.units.Store(0)
		burst := func(call func() error) time.Duration {
			start := time.Now()
			var wg sync.WaitGroup
			for range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := call(); err != nil {
						b.Error(err)
					}
				}()
			}
			wg.Wait()
			return time.Since(start)
		}
		var txTime, singleTime time.Duration
		for i := 0; i < b.N; i++ {
			txTime += burst(appendTo(txLatest, "par-tx"))
			singleTime += burst(appendTo(singleLatest, "par-single"))
		}
		n := float64(b.N * goroutines)
		b.ReportMetric(n/txTime.Seconds(), "tx-appends/s")
		b.ReportMetric(n/singleTime.Seconds(), "single-appends/s")
		report(b, int64(b.N*goroutines))
	})
}
