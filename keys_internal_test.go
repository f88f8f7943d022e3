package dynamoseq

import (
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestContentHash: the hash of an item's attributes is the same whatever
// the order of a map's attributes or of a set's members, and differs for
// any other content, including a value of another type.
func TestContentHash(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	type item = map[string]types.AttributeValue
	base := item{"a": s("x"), "b": n("1"), "tags": &types.AttributeValueMemberSS{Value: []string{"p", "q"}},
		"m": &types.AttributeValueMemberM{Value: item{"k": s("v"), "l": &types.AttributeValueMemberL{Value: []types.AttributeValue{n("1"), s("2")}}}}}
	same := item{"tags": &types.AttributeValueMemberSS{Value: []string{"q", "p"}}, "b": n("1"),
		"m": &types.AttributeValueMemberM{Value: item{"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{n("1"), s("2")}}, "k": s("v")}}, "a": s("x")}
	if contentHash(base) != contentHash(same) {
		t.Errorf("contentHash differs for the same attributes in another order")
	}
	others := map[string]item{
		"a value":          {"a": s("y"), "b": n("1")},
		"a type":           {"a": s("x"), "b": s("1")},
		"an attribute":     {"a": s("x")},
		"a list's order":   {"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("2"), n("1")}}},
		"a name and value": {"ab": s(""), "b": n("1")},
	}
	seen := map[string]string{contentHash(base): "base", contentHash(nil): "nil"}
	for name, it := range others {
		h := contentHash(it)
		if prev, ok := seen[h]; ok {
			t.Errorf("contentHash of %s = that of %s", name, prev)
		}
		seen[h] = name
	}
	if contentHash(nil) != contentHash(item{}) {
		t.Errorf("contentHash(nil) != contentHash of an empty item")
	}
}

// TestOnceKindMismatch: a key item stored by another kind of caller is
// refused with ErrTableMismatch, never read as a replay.
func TestOnceKindMismatch(t *testing.T) {
	tbl := &Table{KeyWindow: time.Hour, KeyTTLAttribute: "ttl"}
	latest, err := newIdemKey(tbl, "orders", keyKindLatest, "orders", "K", nil)
	if err != nil {
		t.Fatal(err)
	}
	counter, err := newIdemKey(tbl, "orders", keyKindCounter, "orders", "K", nil)
	if err != nil {
		t.Fatal(err)
	}
	if latest.pk == counter.pk {
		t.Fatalf("a Latest's and a Counter's key items share the partition key %q", latest.pk)
	}
	item := latest.put("t", "pk", map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: latest.pk}}, 1, "tok").Item
	if _, err := latest.settle(item, ""); err != nil {
		t.Errorf("the Latest's own key item: want a replay, got %v", err)
	}
	if rec, err := counter.settle(item, ""); !errors.Is(err, ErrTableMismatch) {
		t.Errorf("a Counter reading a Latest's key item: want ErrTableMismatch, got %+v, %v", rec, err)
	}
}
