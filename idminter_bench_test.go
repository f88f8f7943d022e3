package dynamoseq_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// BenchmarkIDMinterNext compares minting a daily order number with the
// naive recipe, one UpdateItem ADD on a counter keyed by the day plus
// fmt.Sprintf (baseline), against IDMinter.Next with the TTL attribute set
// in the same UpdateItem (dynamoseq).
func BenchmarkIDMinterNext(b *testing.B) {
	client := dbtest.Client(b)
	table := dbtest.CounterTable(b, client)
	ctx := context.Background()

	b.Run("baseline", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			now := time.Now().UTC()
			day := now.Format("060102")
			out, err := client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName:                 aws.String(table),
				Key:                       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "baseline#" + day}},
				UpdateExpression:          aws.String("ADD #v :one"),
				ExpressionAttributeNames:  map[string]string{"#v": "value"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
				ReturnValues:              types.ReturnValueUpdatedNew,
			})
			if err != nil {
				b.Fatal(err)
			}
			n, err := strconv.ParseInt(out.Attributes["value"].(*types.AttributeValueMemberN).Value, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			_ = fmt.Sprintf("ORD-%s-%06d", day, n)
		}
	})

	b.Run("dynamoseq", func(b *testing.B) {
		c, err := dynamoseq.NewCounter(client, table)
		if err != nil {
			b.Fatal(err)
		}
		m, err := dynamoseq.NewIDMinter(c, orderFormat, dynamoseq.Daily, func(o *dynamoseq.IDMinterOptions) { o.TTLAttribute = "ttl" })
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := m.Next(ctx, "orders"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFormatID compares writing an ID with fmt.Sprintf (baseline)
// against Format.ID (dynamoseq).
func BenchmarkFormatID(b *testing.B) {
	at := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	b.Run("baseline", func(b *testing.B) {
		b.ReportAllocs()
		var n int64
		for b.Loop() {
			n++
			_ = fmt.Sprintf("ORD-%s-%06d", at.Format("060102"), n)
		}
	})
	b.Run("dynamoseq", func(b *testing.B) {
		b.ReportAllocs()
		var n int64
		for b.Loop() {
			n++
			_ = orderFormat.ID(at, n)
		}
	})
}

// BenchmarkNewIDMinter measures the check of the next ten years' periods
// that NewIDMinter makes (docs/readable-ids.md quotes it).
func BenchmarkNewIDMinter(b *testing.B) {
	c, err := dynamoseq.NewCounter(dbtest.Client(b), "Sequences") // makes no call
	if err != nil {
		b.Fatal(err)
	}
	for name, period := range map[string]dynamoseq.CalendarPeriod{"Daily": dynamoseq.Daily, "Monthly": dynamoseq.Monthly} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := dynamoseq.NewIDMinter(c, orderFormat, period); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
