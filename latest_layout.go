package dynamoseq

import (
	"fmt"
	"strconv"
	"strings"
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
