package dynamoseq

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Layout is how a Latest lays out the items of a document; see
// Options.Layout.
type Layout int

const (
	// LayoutSortKey keeps a document in one item collection of a table
	// with a sort key: version n at sort key n, 'latest' at sort key 0.
	LayoutSortKey Layout = iota

	// LayoutPartitionKey is for a table with only a partition key: version
	// n under fmt.Sprintf(Options.VersionKeyFormat, KeyPrefix+name, n) and
	// 'latest' under fmt.Sprintf(Options.LatestKeyFormat, KeyPrefix+name).
	LayoutPartitionKey
)

func (l Layout) String() string {
	switch l {
	case LayoutSortKey:
		return "LayoutSortKey"
	case LayoutPartitionKey:
		return "LayoutPartitionKey"
	}
	return "Layout(" + strconv.Itoa(int(l)) + ")"
}

// checkKeyFormats checks the key formats of LayoutPartitionKey: the version
// format must take a string and a number and give every version its own
// key, and the latest format must take a string and give a key no version
// has.
func checkKeyFormats(version, latest string) error {
	v1, v2 := fmt.Sprintf(version, "doc", 1), fmt.Sprintf(version, "doc", 2)
	if strings.Contains(v1, "%!") || v1 == v2 || !strings.Contains(v1, "doc") {
		return invalidf("VersionKeyFormat %q must hold one %%s and then one %%d, as in %q", version, defaultOptions.VersionKeyFormat)
	}
	l := fmt.Sprintf(latest, "doc")
	if strings.Contains(l, "%!") || !strings.Contains(l, "doc") {
		return invalidf("LatestKeyFormat %q must hold one %%s and no other verb, as in %q", latest, defaultOptions.LatestKeyFormat)
	}
	if n, err := strconv.ParseInt(strings.TrimPrefix(l, strings.TrimSuffix(v1, "1")), 10, 64); err == nil && n > 0 {
		return invalidf("LatestKeyFormat %q gives %q, the key of version %d", latest, l, n)
	}
	return nil
}

// docLayout places the items of a document: the keys of its versions and
// of its 'latest' item. NewLatest picks one from Options.Layout.
type docLayout interface {
	versionKey(base string, v int64) map[string]types.AttributeValue
	latestKey(base string) map[string]types.AttributeValue
	// keyBytes is the longest partition key value of the document base.
	keyBytes(base string) int
	// keyAttrs are the key attributes, which an item may not set.
	keyAttrs() []string
	// extraKeyBytes is the size of the keys apart from the partition key
	// value: the attribute names and the sort key at its longest.
	extraKeyBytes() int
	// maxVersion is the highest version the keys can hold.
	maxVersion() int64
	// schema describes the key schema the layout needs, and names the
	// Layout that fits a table of the other shape, for errors.
	schema() string
}

// newDocLayout returns the layout o describes, refusing a version
// attribute that is also a key attribute.
func newDocLayout(o *Options) (docLayout, error) {
	var d docLayout
	switch o.Layout {
	case LayoutSortKey:
		d = sortKeyLayout{pk: o.PartitionKey, sk: o.SortKey, codec: newNumberCodec(o)}
	case LayoutPartitionKey:
		if err := checkKeyFormats(o.VersionKeyFormat, o.LatestKeyFormat); err != nil {
			return nil, err
		}
		d = partitionKeyLayout{pk: o.PartitionKey, versionFormat: o.VersionKeyFormat, latestFormat: o.LatestKeyFormat}
	default:
		return nil, invalidf("Layout is %v, want LayoutSortKey or LayoutPartitionKey", o.Layout)
	}
	if slices.Contains(d.keyAttrs(), o.VersionAttribute) {
		return nil, invalidf("VersionAttribute %q is also a key attribute", o.VersionAttribute)
	}
	return d, nil
}

// maxNumberBytes is the size of a Number attribute holding an int64, as
// attributeSize counts it.
const maxNumberBytes = 21

// sortKeyLayout is LayoutSortKey: version n at sort key n, 'latest' at 0.
type sortKeyLayout struct {
	pk, sk string
	codec  numberCodec
}

func (d sortKeyLayout) versionKey(base string, v int64) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{d.pk: &types.AttributeValueMemberS{Value: base}, d.sk: d.codec.key(v)}
}

func (d sortKeyLayout) latestKey(base string) map[string]types.AttributeValue {
	return d.versionKey(base, 0)
}

func (d sortKeyLayout) keyBytes(base string) int { return len(base) }
func (d sortKeyLayout) keyAttrs() []string       { return []string{d.pk, d.sk} }
func (d sortKeyLayout) extraKeyBytes() int       { return len(d.pk) + len(d.sk) + maxNumberBytes }
func (d sortKeyLayout) maxVersion() int64        { return d.codec.max() }

func (d sortKeyLayout) schema() string {
	return fmt.Sprintf("partition key %q of type S and sort key %q of type %s; for a table with only a partition key, set o.Layout = dynamoseq.LayoutPartitionKey", d.pk, d.sk, d.codec.typ)
}

// partitionKeyLayout is LayoutPartitionKey: every item under its own
// partition key value.
type partitionKeyLayout struct {
	pk, versionFormat, latestFormat string
}

func (d partitionKeyLayout) versionKey(base string, v int64) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{d.pk: &types.AttributeValueMemberS{Value: fmt.Sprintf(d.versionFormat, base, v)}}
}

func (d partitionKeyLayout) latestKey(base string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{d.pk: &types.AttributeValueMemberS{Value: fmt.Sprintf(d.latestFormat, base)}}
}

func (d partitionKeyLayout) keyBytes(base string) int {
	return max(len(fmt.Sprintf(d.versionFormat, base, int64(math.MaxInt64))), len(fmt.Sprintf(d.latestFormat, base)))
}

func (d partitionKeyLayout) keyAttrs() []string { return []string{d.pk} }
func (d partitionKeyLayout) extraKeyBytes() int { return len(d.pk) }
func (d partitionKeyLayout) maxVersion() int64  { return math.MaxInt64 }

func (d partitionKeyLayout) schema() string {
	return fmt.Sprintf("partition key %q of type S and no sort key; for a table with a sort key, leave o.Layout at dynamoseq.LayoutSortKey", d.pk)
}
