package dynamoseq

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Layout is how a Latest lays out the items of a document:
// LayoutSortKey or LayoutPartitionKey, the only two.
type Layout interface {
	// docLayout checks the layout's fields and returns the layout of a
	// table whose partition key is partitionKey.
	docLayout(partitionKey string) (docLayout, error)
}

// LayoutSortKey keeps a document in one item collection of a table with a
// sort key: version n at sort key n, 'latest' at sort key 0. It is the
// default layout.
type LayoutSortKey struct {
	// SortKey is the name of the table's sort key attribute. Default
	// "sk".
	SortKey string

	// SortKeyDigits is 0 (the default) for a sort key of type Number, or 1
	// to 19 for a sort key of type String that holds the versions
	// zero-padded to that many digits.
	SortKeyDigits int
}

// LayoutPartitionKey is for a table with only a partition key: every item
// of a document under its own partition key value.
type LayoutPartitionKey struct {
	// VersionKeyFormat forms the partition key value of version n with
	// fmt.Sprintf(VersionKeyFormat, KeyPrefix+name, n); it must hold one %s
	// and then one %d. Default "%s#v%d" (as in
	// "doc1#v3").
	VersionKeyFormat string

	// LatestKeyFormat forms the partition key value of the 'latest' item
	// with fmt.Sprintf(LatestKeyFormat, KeyPrefix+name); it must hold one %s
	// and no other verb, and give a key no version has. Default
	// "%s#latest".
	LatestKeyFormat string
}

func (l LayoutSortKey) docLayout(pk string) (docLayout, error) {
	setDefault(&l.SortKey, defaultSortKey)
	if l.SortKey == pk {
		return nil, optionErrorf("Layout.SortKey", l.SortKey, "the partition key's name too").with("PartitionKey", pk)
	}
	if err := checkDigits("Layout.SortKeyDigits", l.SortKeyDigits); err != nil {
		return nil, err
	}
	return sortKeyLayout{pk: pk, sk: l.SortKey, codec: newNumberCodec(l.SortKey, l.SortKeyDigits)}, nil
}

func (l LayoutPartitionKey) docLayout(pk string) (docLayout, error) {
	setDefault(&l.VersionKeyFormat, defaultVersionKeyFormat)
	setDefault(&l.LatestKeyFormat, defaultLatestKeyFormat)
	if err := checkKeyFormats(l.VersionKeyFormat, l.LatestKeyFormat); err != nil {
		return nil, err
	}
	return partitionKeyLayout{pk: pk, versionFormat: l.VersionKeyFormat, latestFormat: l.LatestKeyFormat}, nil
}

// layoutValue returns l with its default, nil, made LayoutSortKey{} and a
// pointer to a layout made the layout it points to.
func layoutValue(l Layout) Layout {
	switch p := l.(type) {
	case nil:
		return LayoutSortKey{}
	case *LayoutSortKey:
		if p == nil {
			return LayoutSortKey{}
		}
		return *p
	case *LayoutPartitionKey:
		if p == nil {
			return LayoutPartitionKey{}
		}
		return *p
	}
	return l
}

// checkKeyFormats checks the key formats of LayoutPartitionKey: the version
// format must take a string and a number and give every version its own
// key, and the latest format must take a string and give a key no version
// has.
func checkKeyFormats(version, latest string) error {
	v1, v2 := fmt.Sprintf(version, "doc", 1), fmt.Sprintf(version, "doc", 2)
	if strings.Contains(v1, "%!") || v1 == v2 || !strings.Contains(v1, "doc") {
		return optionErrorf("Layout.VersionKeyFormat", version, "want one %%s and then one %%d, as in %q", defaultVersionKeyFormat)
	}
	l := fmt.Sprintf(latest, "doc")
	if strings.Contains(l, "%!") || !strings.Contains(l, "doc") {
		return optionErrorf("Layout.LatestKeyFormat", latest, "want one %%s and no other verb, as in %q", defaultLatestKeyFormat)
	}
	if n, err := strconv.ParseInt(strings.TrimPrefix(l, strings.TrimSuffix(v1, "1")), 10, 64); err == nil && n > 0 {
		return optionErrorf("Layout.LatestKeyFormat", latest, "gives %q, the key of version %d", l, n).with("Layout.VersionKeyFormat", version)
	}
	return nil
}

// docLayout places the items of a document: the keys of its versions and
// of its 'latest' item. NewLatest makes one from LatestOptions.Layout.
type docLayout interface {
	versionKey(base string, v int64) map[string]types.AttributeValue
	latestKey(base string) map[string]types.AttributeValue
	// keyBytes is the longest partition key value of the document base.
	keyBytes(base string) int
	// keyAttrs are the key attributes, which an item may not set.
	keyAttrs() []string
	// keyField returns the option that names the key attribute attr, if
	// one does.
	keyField(attr string) (string, bool)
	// extraKeyBytes is the size of the keys apart from the partition key
	// value: the attribute names and the sort key at its longest.
	extraKeyBytes() int
	// maxVersion is the highest version the keys can hold.
	maxVersion() int64
	// schema describes the key schema the layout needs, and names the
	// Layout that fits a table of the other shape, for errors.
	schema() string
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

func (d sortKeyLayout) keyField(attr string) (string, bool) {
	switch attr {
	case d.pk:
		return "PartitionKey", true
	case d.sk:
		return "Layout.SortKey", true
	}
	return "", false
}

func (d sortKeyLayout) schema() string {
	return fmt.Sprintf("partition key %q of type S and sort key %q of type %s; a table with only a partition key needs LayoutPartitionKey", d.pk, d.sk, d.codec.typ)
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

func (d partitionKeyLayout) keyField(attr string) (string, bool) {
	return "PartitionKey", attr == d.pk
}

func (d partitionKeyLayout) schema() string {
	return fmt.Sprintf("partition key %q of type S and no sort key; a table with a sort key needs LayoutSortKey", d.pk)
}
