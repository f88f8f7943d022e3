package replicator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// convertRecord turns a stream record into the change it describes.
func convertRecord(rec stypes.Record) (streamRecord, error) {
	if rec.Dynamodb == nil {
		return streamRecord{}, fmt.Errorf("replicator: a stream record without its change")
	}
	key, err := convertMap(rec.Dynamodb.Keys)
	if err != nil {
		return streamRecord{}, err
	}
	r := streamRecord{id: fingerprint(key), key: key}
	if rec.EventName != stypes.OperationTypeRemove {
		if r.image, err = convertMap(rec.Dynamodb.NewImage); err != nil {
			return streamRecord{}, err
		}
		if r.image == nil {
			return streamRecord{}, fmt.Errorf("replicator: a %s record without its new image", rec.EventName)
		}
	}
	return r, nil
}

// convertMap converts the attribute values of DynamoDB Streams to those of
// DynamoDB, which are distinct Go types with the same meaning.
func convertMap(m map[string]stypes.AttributeValue) (map[string]types.AttributeValue, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]types.AttributeValue, len(m))
	for k, v := range m {
		c, err := convert(v)
		if err != nil {
			return nil, err
		}
		out[k] = c
	}
	return out, nil
}

func convert(v stypes.AttributeValue) (types.AttributeValue, error) {
	switch v := v.(type) {
	case *stypes.AttributeValueMemberS:
		return &types.AttributeValueMemberS{Value: v.Value}, nil
	case *stypes.AttributeValueMemberN:
		return &types.AttributeValueMemberN{Value: v.Value}, nil
	case *stypes.AttributeValueMemberB:
		return &types.AttributeValueMemberB{Value: v.Value}, nil
	case *stypes.AttributeValueMemberBOOL:
		return &types.AttributeValueMemberBOOL{Value: v.Value}, nil
	case *stypes.AttributeValueMemberNULL:
		return &types.AttributeValueMemberNULL{Value: v.Value}, nil
	case *stypes.AttributeValueMemberSS:
		return &types.AttributeValueMemberSS{Value: v.Value}, nil
	case *stypes.AttributeValueMemberNS:
		return &types.AttributeValueMemberNS{Value: v.Value}, nil
	case *stypes.AttributeValueMemberBS:
		return &types.AttributeValueMemberBS{Value: v.Value}, nil
	case *stypes.AttributeValueMemberM:
		m, err := convertMap(v.Value)
		return &types.AttributeValueMemberM{Value: m}, err
	case *stypes.AttributeValueMemberL:
		l := make([]types.AttributeValue, len(v.Value))
		for i, e := range v.Value {
			c, err := convert(e)
			if err != nil {
				return nil, err
			}
			l[i] = c
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	}
	return nil, fmt.Errorf("replicator: unknown stream attribute value %T", v)
}

// fingerprint writes an item (or a key) as a string that is equal for equal
// items: attributes sorted by name, each value with its type. nil gives "-".
func fingerprint(m map[string]types.AttributeValue) string {
	if m == nil {
		return "-"
	}
	var b strings.Builder
	writeMap(&b, m)
	return b.String()
}

func writeMap(b *strings.Builder, m map[string]types.AttributeValue) {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	b.WriteByte('{')
	for _, k := range names {
		fmt.Fprintf(b, "%q:", k)
		writeValue(b, m[k])
		b.WriteByte(',')
	}
	b.WriteByte('}')
}

func writeValue(b *strings.Builder, v types.AttributeValue) {
	switch v := v.(type) {
	case *types.AttributeValueMemberM:
		b.WriteString("M")
		writeMap(b, v.Value)
	case *types.AttributeValueMemberL:
		b.WriteString("L[")
		for _, e := range v.Value {
			writeValue(b, e)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case *types.AttributeValueMemberSS:
		fmt.Fprintf(b, "SS%q", sorted(v.Value))
	case *types.AttributeValueMemberNS:
		fmt.Fprintf(b, "NS%q", sorted(v.Value))
	default: // S, N, B, BS, BOOL, NULL: the type and the value say it all
		fmt.Fprintf(b, "%T%v", v, v)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
