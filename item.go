package dynamoseq

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// An item as a write carries it: the caller's attributes (marshalItem) and
// their size, its partition key (partitionValue), its number as a sort key
// (numberCodec), and the call that waits for it to be written (appendReq).

// maxItemBytes is DynamoDB's limit on the size of one item: 400 KB.
const maxItemBytes = 400 * 1024

// marshalItem turns the item a caller passes to an Append into attributes:
// nil means none, a map[string]types.AttributeValue is taken as it is (a
// shallow copy, so the caller may reuse the map once the call returns), and
// anything else goes through attributevalue.MarshalMap. reserved are the
// attributes the library writes itself (the keys, a version number); an
// item that sets one of them is refused, as is an item that does not fit in
// maxItemBytes - overhead, where overhead is the size of what the library
// adds. It returns the attributes and their estimated size in bytes.
func marshalItem(item any, overhead int, reserved ...string) (map[string]types.AttributeValue, int, error) {
	var attrs map[string]types.AttributeValue
	switch it := item.(type) {
	case nil:
		return map[string]types.AttributeValue{}, 0, nil
	case map[string]types.AttributeValue:
		attrs = maps.Clone(it)
	default:
		v := reflect.ValueOf(item)
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return map[string]types.AttributeValue{}, 0, nil
			}
			v = v.Elem()
		}
		if k := v.Kind(); k != reflect.Struct && k != reflect.Map {
			return nil, 0, invalidf("item is a %T, want a struct, a map or a map[string]types.AttributeValue", item)
		}
		m, err := attributevalue.MarshalMap(item)
		if err != nil {
			return nil, 0, invalidf("item of type %T: %v", item, err)
		}
		attrs = m
	}
	if attrs == nil {
		attrs = map[string]types.AttributeValue{}
	}
	for _, name := range reserved {
		if _, ok := attrs[name]; ok {
			return nil, 0, invalidf("item sets attribute %q, which the library writes itself (a key or the version number)", name)
		}
	}
	for name := range attrs {
		if strings.HasPrefix(name, keyAttrPrefix) {
			return nil, 0, invalidf("item sets attribute %.64q: the prefix %q is reserved for the library's key items", name, keyAttrPrefix)
		}
	}
	size := 0
	for name, av := range attrs {
		if name == "" {
			return nil, 0, invalidf("item has an attribute with an empty name")
		}
		if av == nil {
			return nil, 0, invalidf("item attribute %q is a nil AttributeValue", name)
		}
		size += len(name) + attributeSize(av)
	}
	if size+overhead > maxItemBytes {
		return nil, 0, invalidf("item is about %d bytes with its keys, DynamoDB's limit for an item is %d", size+overhead, maxItemBytes)
	}
	return attrs, size, nil
}

// withoutAttributes returns a copy of a stored item without the attributes
// the library wrote itself (owned): what the caller gave to Append.
func withoutAttributes(item map[string]types.AttributeValue, owned []string) map[string]types.AttributeValue {
	m := maps.Clone(item)
	for _, k := range owned {
		delete(m, k)
	}
	return m
}

// attributeSize estimates the bytes DynamoDB counts for a value, following
// "Item sizes" in the DynamoDB developer guide. Numbers are counted as their
// text length, which is at least their stored size, so the estimate errs on
// the side of refusing an item that DynamoDB would refuse.
func attributeSize(av types.AttributeValue) int {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return len(v.Value) + 1
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
			n += len(s) + 1
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
			n += 1 + attributeSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for name, e := range v.Value {
			n += 1 + len(name) + attributeSize(e)
		}
		return n
	}
	// An unknown member: DynamoDB will judge it.
	return len(fmt.Sprint(av))
}

// decodeAttributes stores attrs, an item's attributes without those the
// library wrote, in out: nothing for nil, the map itself for a
// *map[string]types.AttributeValue, else attributevalue.UnmarshalMap.
func decodeAttributes(attrs map[string]types.AttributeValue, out any) error {
	switch o := out.(type) {
	case nil:
		return nil
	case *map[string]types.AttributeValue:
		if o == nil {
			return invalidf("out is a nil *map[string]types.AttributeValue")
		}
		*o = attrs
		return nil
	}
	if v := reflect.ValueOf(out); v.Kind() != reflect.Pointer || v.IsNil() {
		return invalidf("out is a %T, want a non-nil pointer", out)
	}
	if err := attributevalue.UnmarshalMap(attrs, out); err != nil {
		return fmt.Errorf("%w: the stored item does not fit a %T: %w", ErrTableMismatch, out, err)
	}
	return nil
}

// maxKeyBytes is DynamoDB's limit on a partition key value: 2048 bytes.
const maxKeyBytes = 2048

// maxSortKeyBytes is DynamoDB's limit on a sort key value: 1024 bytes.
const maxSortKeyBytes = 1024

// partitionValue returns KeyPrefix+name, the partition key value of a
// sequence, after checking that DynamoDB will accept it.
func partitionValue(prefix, name string) (string, error) {
	switch {
	case name == "":
		return "", invalidf("empty name")
	case !utf8.ValidString(name):
		return "", invalidf("name is not valid UTF-8")
	case strings.Contains(name, keySeparator):
		return "", invalidf("name holds the byte 0x1f, which the library reserves for idempotency keys")
	case len(prefix)+len(name) > maxKeyBytes:
		return "", invalidf("key prefix and name are %d bytes, DynamoDB's limit for a partition key is %d", len(prefix)+len(name), maxKeyBytes)
	}
	return prefix + name, nil
}

// appendReq is one call to Append, of a SortKey or a Latest, waiting for its
// number.
type appendReq struct {
	attrs map[string]types.AttributeValue // the item without its keys; the run adds them
	size  int                             // the item's size in bytes, keys included
	races int                             // races lost so far (see engine.RaceLost)
	key   *idemKey                        // the caller's idempotency key (AppendOnce); nil for none
	// waitingSince is when DynamoDB first refused the call's write for
	// want of capacity or for a conflict (see waitForCapacity); zero if
	// it never did.
	waitingSince time.Time
}

func (r *appendReq) refusedSince() *time.Time { return &r.waitingSince }

// Bytes is the item's size in bytes, keys included (engine.Batched).
func (r *appendReq) Bytes() int { return r.size }

// Races is the count of races lost so far (engine.Batched).
func (r *appendReq) Races() int { return r.races }

// Key is the partition key value of the call's key item, "" for none
// (engine.Batched).
func (r *appendReq) Key() string {
	if r.key == nil {
		return ""
	}
	return r.key.pk
}

func (r *appendReq) Lose() int {
	r.races++
	return r.races
}

// Numbers as attribute values: the sort keys of SortKey and Latest
// (numberCodec), a Number attribute (number), and the name of the type an
// attribute holds instead, for messages (typeName).

// numberCodec writes numbers as sort key values and reads them back: a
// Number, or a String of width digits, zero-padded so that the string order
// is the numeric order. SortKey's numbers and Latest's versions use it.
type numberCodec struct {
	attr  string // the sort key attribute, for error messages
	typ   types.ScalarAttributeType
	width int
}

// newNumberCodec returns the codec of the sort key attr with digits, the
// SortKeyDigits option: 0 for a Number.
func newNumberCodec(attr string, digits int) numberCodec {
	if digits == 0 {
		return numberCodec{attr: attr, typ: types.ScalarAttributeTypeN}
	}
	return numberCodec{attr: attr, typ: types.ScalarAttributeTypeS, width: digits}
}

// max is the largest number the sort key holds.
func (c numberCodec) max() int64 {
	if c.typ == types.ScalarAttributeTypeS && c.width < 19 {
		return int64(math.Pow10(c.width)) - 1
	}
	return math.MaxInt64
}

// key is the sort key value of n.
func (c numberCodec) key(n int64) types.AttributeValue {
	if c.typ == types.ScalarAttributeTypeS {
		return &types.AttributeValueMemberS{Value: fmt.Sprintf("%0*d", c.width, n)}
	}
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// parse reads a number of at least 1 out of a sort key value.
func (c numberCodec) parse(av types.AttributeValue) (int64, error) {
	var text string
	switch v := av.(type) {
	case *types.AttributeValueMemberN:
		text = v.Value
	case *types.AttributeValueMemberS:
		text = v.Value
	default:
		return 0, fmt.Errorf("%w: sort key %q is missing or not a %s", ErrTableMismatch, c.attr, c.typ)
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%w: sort key %q holds %q, want a whole number from 1", ErrTableMismatch, c.attr, text)
	}
	return n, nil
}

// number is v as a Number attribute value.
func number(v int64) *types.AttributeValueMemberN {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

// typeName names the DynamoDB type of an attribute value for messages.
func typeName(av types.AttributeValue) string {
	switch av.(type) {
	case *types.AttributeValueMemberS:
		return "String"
	case *types.AttributeValueMemberN:
		return "Number"
	case *types.AttributeValueMemberB:
		return "Binary"
	case *types.AttributeValueMemberBOOL:
		return "Boolean"
	case *types.AttributeValueMemberNULL:
		return "Null"
	case *types.AttributeValueMemberM:
		return "Map"
	case *types.AttributeValueMemberL:
		return "List"
	case *types.AttributeValueMemberSS:
		return "String Set"
	case *types.AttributeValueMemberNS:
		return "Number Set"
	case *types.AttributeValueMemberBS:
		return "Binary Set"
	}
	return fmt.Sprintf("%T", av)
}
