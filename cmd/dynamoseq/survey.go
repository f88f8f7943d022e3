package main

import (
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// listed is one sequence in list's JSON answer: its name (without the key
// prefix), its kind, and its last number: a counter's value (for a
// Block's, the end of the ranges leased), a SortKey sequence's highest
// number, or the version a Latest document's 'latest' item holds.
type listed struct {
	Sequence string `json:"sequence"`
	Kind     string `json:"kind"`
	Value    int64  `json:"value"`
}

// surveyor tells the sequences of a table from its items, as list reads
// them: the attribute names, and the sequences found so far by partition
// key and kind. It is pure logic, fed one item at a time.
type surveyor struct {
	pk, sk         string // the table's key; sk is "" without a sort key
	value, version string // the counter's and the Latest's attributes
	keyPrefix      string
	counterSortKey string // --counter-sort-key-value
	latestFormat   string // --latest-key-format, for a table without a sort key

	seqs map[string]*listed // by kind and name: "sortkey\x00acme#2026"
}

// add reads one item of the Scan.
func (s *surveyor) add(item map[string]types.AttributeValue) {
	pk, _ := item[s.pk].(*types.AttributeValueMemberS)
	if pk == nil || !strings.HasPrefix(pk.Value, s.keyPrefix) || isKeyItem(pk.Value) {
		return
	}
	name := strings.TrimPrefix(pk.Value, s.keyPrefix)
	value, isValue := number(item[s.value])
	version, isVersion := number(item[s.version])
	if s.sk == "" {
		switch {
		case isValue:
			s.found(kindCounter, name, value)
		case isVersion:
			if doc, ok := latestKeyName(s.latestFormat, name); ok {
				s.found(kindLatest, doc, version)
			}
		}
		return
	}
	if sk, ok := item[s.sk].(*types.AttributeValueMemberS); ok && s.counterSortKey != "" && sk.Value == s.counterSortKey {
		if isValue {
			s.found(kindCounter, name, value)
		}
		return
	}
	n, ok := number(item[s.sk])
	switch {
	case !ok:
		return // an item of a single-table design that no strategy wrote
	case n == 0 && isVersion: // Latest's 'latest' item
		s.found(kindLatest, name, version)
	case n > 0:
		s.found(kindSortKey, name, n)
	}
}

// found records the number n of the sequence name of kind, keeping the
// highest: a SortKey sequence's items come in no order.
func (s *surveyor) found(kind, name string, n int64) {
	key := kind + "\x00" + name
	if l, ok := s.seqs[key]; ok {
		l.Value = max(l.Value, n)
		return
	}
	s.seqs[key] = &listed{Sequence: name, Kind: kind, Value: n}
}

// sequences returns the sequences found, by name, and by kind for a name:
// the version items of a Latest document, numbered as a SortKey
// sequence's are, are left out beside its 'latest' item.
func (s *surveyor) sequences() []listed {
	out := []listed{}
	for _, l := range s.seqs {
		if l.Kind == kindSortKey && s.seqs[kindLatest+"\x00"+l.Sequence] != nil {
			continue
		}
		out = append(out, *l)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Sequence != out[j].Sequence {
			return out[i].Sequence < out[j].Sequence
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}

// keySeparator is the byte that the library puts between a sequence's
// name and an idempotency key in the partition key of a key item
// (AppendOnce, NextOnce; docs/idempotency.md), and that no sequence name
// holds.
const keySeparator = "\x1f"

// isKeyItem reports whether a partition key value is a key item's, which
// list and the hints leave out: it names no sequence.
func isKeyItem(pk string) bool { return strings.Contains(pk, keySeparator) }

// number reads a whole number from a Number attribute, or from a String
// of digits (a String sort key, zero-padded).
func number(av types.AttributeValue) (int64, bool) {
	var s string
	switch v := av.(type) {
	case *types.AttributeValueMemberN:
		s = v.Value
	case *types.AttributeValueMemberS:
		if v.Value == "" || strings.Trim(v.Value, "0123456789") != "" {
			return 0, false
		}
		s = v.Value
	default:
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// latestKeyName is the document name of a 'latest' item's partition key
// (without the key prefix) in the partitionkey layout, written with
// format ("%s#latest").
func latestKeyName(format, key string) (string, bool) {
	before, after, ok := strings.Cut(format, "%s")
	if !ok || !strings.HasPrefix(key, before) || !strings.HasSuffix(key, after) || len(key) <= len(before)+len(after) {
		return "", false
	}
	return key[len(before) : len(key)-len(after)], true
}
