package dynamoseq

import (
	"maps"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// maxItemBytes is DynamoDB's limit on the size of one item: 400 KB,
// attribute names and values included.
const maxItemBytes = 400 * 1024

// marshalItem turns the item a caller passes to Append into the attributes
// to store: nil (or a nil pointer) means none, a map[string]types.AttributeValue
// is copied as it is, anything else goes through attributevalue.Marshal and
// must come out as a map (a struct or a Go map). An item that sets one of the
// key attributes, or whose size with the keys (keyBytes, computed by the
// caller) would exceed DynamoDB's 400 KB, is refused with ErrInvalidArgument.
//
// It returns a fresh map that the caller may add the keys to, and the size of
// the attributes in DynamoDB's accounting.
func marshalItem(item any, keyBytes int, keyAttrs ...string) (map[string]types.AttributeValue, int, error) {
	var attrs map[string]types.AttributeValue
	switch v := item.(type) {
	case nil:
		attrs = map[string]types.AttributeValue{}
	case map[string]types.AttributeValue:
		attrs = make(map[string]types.AttributeValue, len(v)+len(keyAttrs))
		maps.Copy(attrs, v)
	default:
		av, err := attributevalue.Marshal(item)
		if err != nil {
			return nil, 0, invalidf("item of type %T: %v", item, err)
		}
		switch m := av.(type) {
		case *types.AttributeValueMemberM:
			attrs = m.Value
		case *types.AttributeValueMemberNULL: // a nil pointer or map
			attrs = map[string]types.AttributeValue{}
		default:
			return nil, 0, invalidf("item of type %T is stored as a %s, want a struct or a map", item, typeName(av))
		}
	}
	for _, k := range keyAttrs {
		if _, ok := attrs[k]; ok {
			return nil, 0, invalidf("item sets the key attribute %q, which the library owns", k)
		}
	}
	size := 0
	for name, av := range attrs {
		if av == nil {
			return nil, 0, invalidf("item attribute %q is a nil AttributeValue", name)
		}
		size += len(name) + valueSize(av)
	}
	if size+keyBytes > maxItemBytes {
		return nil, 0, invalidf("item is about %d bytes with its keys, DynamoDB's limit is %d", size+keyBytes, maxItemBytes)
	}
	return attrs, size, nil
}

// valueSize is the size DynamoDB counts for an attribute value, following
// "Item sizes and formats" in the DynamoDB developer guide: strings and
// binaries by their length, numbers by their significant digits, one byte for
// a Boolean or a Null, and three bytes plus one per element for a list or a
// map. It errs on the small side (numbers are the one approximation), so that
// an item it accepts may still be refused by DynamoDB, never the reverse.
func valueSize(av types.AttributeValue) int {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return numberSize(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range v.Value {
			n += numberSize(s)
		}
		return n
	case *types.AttributeValueMemberBS:
		n := 0
		for _, b := range v.Value {
			n += len(b)
		}
		return n
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range v.Value {
			n += 1 + len(k) + valueSize(e)
		}
		return n
	}
	return 0
}

// numberSize is one byte per two significant digits, plus one.
func numberSize(s string) int {
	s = strings.TrimLeft(s, "+-")
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		s = s[:i]
	}
	s = strings.Replace(s, ".", "", 1)
	s = strings.Trim(s, "0")
	return (len(s)+1)/2 + 1
}
