package main

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
)

// TestSurveyor feeds items of each table shape to the surveyor: the
// sequences list shows for them.
func TestSurveyor(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	type item = map[string]types.AttributeValue
	for _, tc := range []struct {
		name  string
		sv    surveyor
		items []item
		want  []listed
	}{
		{"counters and partitionkey documents", surveyor{pk: "pk"}, []item{
			{"pk": s("orders"), "value": n("7")},
			{"pk": s("doc#latest"), "version": n("2")},
			{"pk": s("doc#v1"), "version": n("1")},
			{"pk": s("doc#v2"), "version": n("2")},
			{"pk": s("other"), "value": s("not a number")},
		}, []listed{{"doc", kindLatest, 2}, {"orders", kindCounter, 7}}},
		{"SortKey items out of order, a Latest document beside", surveyor{pk: "pk", sk: "sk"}, []item{
			{"pk": s("acme#2026"), "sk": n("2")},
			{"pk": s("acme#2026"), "sk": n("3")},
			{"pk": s("acme#2026"), "sk": n("1")},
			{"pk": s("doc"), "sk": n("1")},
			{"pk": s("doc"), "sk": n("0"), "version": n("1")},
		}, []listed{{"acme#2026", kindSortKey, 3}, {"doc", kindLatest, 1}}},
		{"a String sort key, a single-table design", surveyor{pk: "pk", sk: "sk", keyPrefix: "SEQ#", counterSortKey: "COUNTER"}, []item{
			{"pk": s("SEQ#orders"), "sk": s("COUNTER"), "value": n("4")},
			{"pk": s("SEQ#orders"), "sk": s("0000000012")},
			{"pk": s("SEQ#orders"), "sk": s("PROFILE")},
			{"pk": s("USER#1"), "sk": s("0000000001")},
		}, []listed{{"orders", kindCounter, 4}, {"orders", kindSortKey, 12}}},
		{"idempotency key items are no sequences", surveyor{pk: "pk", sk: "sk"}, []item{
			{"pk": s("inv"), "sk": n("1")},
			{"pk": s("inv\x1freq-1"), "sk": n("0"), "dynamoseq_n": n("1"), "expires": n("1800000000")},
			{"pk": s("inv\x1freq-2"), "sk": n("3"), "version": n("3"), "value": n("3")}, // even one that looks like a sequence's
		}, []listed{{"inv", kindSortKey, 1}}},
		{"a counter's key items", surveyor{pk: "pk"}, []item{
			{"pk": s("orders"), "value": n("7")},
			{"pk": s("orders\x1freq-1"), "value": n("7"), "version": n("1")},
		}, []listed{{"orders", kindCounter, 7}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sv := tc.sv
			sv.value, sv.version, sv.latestFormat, sv.seqs = "value", "version", "%s#latest", map[string]*listed{}
			for _, it := range tc.items {
				sv.add(it)
			}
			assert.Equal(t, tc.want, sv.sequences())
		})
	}
	assert.Equal(t, []listed{{"audit", kindBlock, 1000}}, chosen([]listed{{"audit", kindCounter, 1000}, {"doc", kindLatest, 2}}, "", "", kindBlock))
	assert.Equal(t, []listed{{"acme#2026", kindSortKey, 3}}, chosen([]listed{{"acme#2026", kindSortKey, 3}, {"acme#2025", kindSortKey, 9}}, "ac", "#2026", ""))
}
