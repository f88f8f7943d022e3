package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// keyFix returns the flags that make the options fit the key of table t
// for the strategy kind, or, when no flags can (a SortKey on a table
// without a sort key), the kinds that fit it with their flags: "--kind
// counter (or --kind latest --layout partitionkey)". Every fix is checked:
// the table definition of the fixed options has t's key. It is "" when
// nothing fits.
func (s *settings) keyFix(t *types.TableDescription, kind string) string {
	var fixes []string
	for i, k := range []string{kind, kindCounter, kindSortKey, kindLatest} {
		if i > 0 && (k == kind || k == kindCounter && kind == kindBlock) {
			continue // tried first
		}
		flags, ok := s.fitKey(t, k)
		if !ok {
			continue
		}
		if k != kind {
			flags = append([]string{"--kind " + k}, flags...)
		} else if len(flags) == 0 {
			return "" // it fits already
		}
		fix := strings.Join(flags, " ")
		if !slices.Contains(fixes, fix) {
			fixes = append(fixes, fix)
		}
		if k == kind || len(fixes) == 2 {
			break
		}
	}
	switch len(fixes) {
	case 0:
		return ""
	case 1:
		return fixes[0]
	}
	return fmt.Sprintf("%s (or %s)", fixes[0], fixes[1])
}

// fitKey returns the flags that make the table definition of kind under
// these options have t's key, and whether there are such flags.
func (s *settings) fitKey(t *types.TableDescription, kind string) ([]string, bool) {
	fixed := *s
	shape := kind
	if kind == kindBlock {
		shape = kindCounter // a Block's counters are a Counter's
	}
	var flags []string
	set := func(p *string, def, want, flag string) {
		if or(*p, def) != want {
			*p = want
			flags = append(flags, flag+" "+quoted(want))
		}
	}
	pk, _ := keyAttribute(t, types.KeyTypeHash)
	sk, skType := keyAttribute(t, types.KeyTypeRange)
	set(&fixed.partitionKey, defaultPartitionKey, pk, "--partition-key")
	switch {
	case sk == "" && shape == kindLatest:
		set(&fixed.layout, "sortkey", "partitionkey", "--layout")
	case sk == "" && shape == kindCounter:
		set(&fixed.counterSortKey, "", "", "--counter-sort-key-value")
	case sk != "" && shape == kindCounter:
		set(&fixed.sortKey, defaultSortKey, sk, "--sort-key")
		if fixed.counterSortKey == "" {
			fixed.counterSortKey = "VALUE"
			flags = append(flags, "--counter-sort-key-value VALUE")
		}
	case sk != "":
		set(&fixed.layout, "sortkey", "sortkey", "--layout")
		set(&fixed.sortKey, defaultSortKey, sk, "--sort-key")
		set(&fixed.sortKeyType, "N", skType, "--sort-key-type")
	}
	want := fixed.tableDefinition(kind)
	ok := describeKey(want.KeySchema, want.AttributeDefinitions) == describeKey(t.KeySchema, t.AttributeDefinitions)
	return flags, ok
}

// keyAttribute returns the name and type of t's key attribute of the role,
// or "" for none.
func keyAttribute(t *types.TableDescription, role types.KeyType) (name, typ string) {
	for _, k := range t.KeySchema {
		if k.KeyType != role {
			continue
		}
		name = aws.ToString(k.AttributeName)
		for _, d := range t.AttributeDefinitions {
			if aws.ToString(d.AttributeName) == name {
				typ = string(d.AttributeType)
			}
		}
	}
	return name, typ
}

// quoted writes a flag's value as a shell reads it back: "" for empty.
func quoted(v string) string {
	if v == "" {
		return `""`
	}
	if strings.ContainsAny(v, " \t'\"$`\\#*?&;|<>()") {
		return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
	}
	return v
}
