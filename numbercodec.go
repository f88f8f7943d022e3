package dynamoseq

import (
	"fmt"
	"math"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

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
