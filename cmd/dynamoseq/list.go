package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/spf13/pflag"

	"github.com/dynamoseq/dynamoseq"
)

func listCommand() *command {
	return &command{
		name:     "list",
		synopsis: "",
		summary:  "List the sequences of a table, of every kind, and their last numbers",
		doc: "It is one DescribeTable and a paginated Scan of the whole table: it costs\n" +
			"read units for every item, whatever --prefix leaves out, and says so on\n" +
			"stderr. Each line is a sequence, its kind and its last number:\n" +
			"  - counter: an item with a Number value attribute (at the sort key\n" +
			"    --counter-sort-key-value on a table with a sort key), and its value;\n" +
			"  - sortkey: the numbered items of a name on a table with a sort key, and\n" +
			"    the highest number;\n" +
			"  - latest: a name with a 'latest' item (at sort key 0, or NAME#latest on a\n" +
			"    table without a sort key), and the version it holds.\n" +
			"A Block keeps its numbers in a counter whose value is the end of the ranges\n" +
			"it leased, not the numbers it handed out: nothing in the table tells it from\n" +
			"a Counter's, so --kind block lists the counters as Blocks' ('leased up to\n" +
			"1000'). With --kind, only that kind. With --period, only the sequences an\n" +
			"IDMinter keeps for that period (names ending in #20261122 with --period day).\n",
		minArgs: 0, maxArgs: 0,
		define: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
			prefix := fs.String("prefix", "", "only the sequences whose name starts with this")
			var kind kindFlag // list reads no kind from the table: it lists them all
			choiceVar(fs, &kind.given, "kind", "", "only the sequences of this kind (default: every kind; block: the counters, as Blocks')", kindCounter, kindBlock, kindSortKey, kindLatest)
			period := definePeriod(fs)
			return func(ctx context.Context, e *env, _ []string) error {
				suffix, err := period.suffix(time.Now())
				if err != nil {
					return err
				}
				if kind.given != "" {
					if err := e.refuseUnread(kind.given, ""); err != nil {
						return err
					}
				}
				all, scanned, err := e.survey(ctx)
				if de := (*dynamoseq.Error)(nil); err != nil && !errors.As(err, &de) {
					return e.fail("list", *prefix, err) // a Scan's, which names no table
				}
				if err != nil {
					return err
				}
				found := chosen(all, *prefix, suffix, kind.given)
				if len(found) == 0 {
					e.note("%s", e.noSequences(*prefix, suffix, kind.given, scanned, all))
				}
				if kind.given == "" && slices.ContainsFunc(found, func(l listed) bool { return l.Kind == kindCounter }) {
					e.note("a counter's value is the last number it handed out, or the end of the ranges a Block leased: --kind block lists counters as Blocks'")
				}
				return e.print(listText(found), found)
			}
		},
	}
}

// listText is list's text output: a line per sequence, its name, its kind
// and its last number, or the range leased for a Block's.
func listText(found []listed) string {
	var b strings.Builder
	for _, l := range found {
		if l.Kind == kindBlock {
			fmt.Fprintf(&b, "%s\t%s\tleased up to %d\n", l.Sequence, l.Kind, l.Value)
			continue
		}
		fmt.Fprintf(&b, "%s\t%s\t%d\n", l.Sequence, l.Kind, l.Value)
	}
	return b.String()
}

// survey reads every item of the table with a paginated Scan of its keys,
// its value attribute and its version attribute, and returns its
// sequences, sorted by name and kind, and how many items it read.
func (e *env) survey(ctx context.Context) ([]listed, int, error) {
	client, err := e.client(ctx)
	if err != nil {
		return nil, 0, err
	}
	desc, err := e.describe(ctx, "")
	if err != nil {
		return nil, 0, err
	}
	s := e.newSurveyor(desc)
	pages, scanned := 0, 0
	for p := dynamodb.NewScanPaginator(client, s.scan(e.table)); p.HasMorePages(); {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, 0, err
		}
		pages++
		scanned += int(out.ScannedCount)
		for _, item := range out.Items {
			s.add(item)
		}
	}
	e.note("list read the whole table %q with a paginated Scan: %s in %s", e.table, plural(scanned, "item"), plural(pages, "page"))
	return s.sequences(), scanned, nil
}

// chosen returns the sequences of all whose name starts with prefix and
// ends with suffix, of kind ("" for every kind); with --kind block, the
// counters, as Blocks'.
func chosen(all []listed, prefix, suffix, kind string) []listed {
	found := []listed{}
	for _, l := range all {
		if !strings.HasPrefix(l.Sequence, prefix) || !strings.HasSuffix(l.Sequence, suffix) || !kindListed(l.Kind, kind) {
			continue
		}
		if kind == kindBlock {
			l.Kind = kindBlock
		}
		found = append(found, l)
	}
	return found
}

// kindListed reports whether list --kind want (or "" for every kind) lists
// a sequence of kind: a counter is listed as a Block's with --kind block.
func kindListed(kind, want string) bool {
	return want == "" || kind == want || want == kindBlock && kind == kindCounter
}

// noSequences says that list found none of the sequences asked for among
// the scanned items, and what the table holds instead (all).
func (e *env) noSequences(prefix, suffix, kind string, scanned int, all []listed) string {
	what := "sequences"
	if kind != "" {
		what = kindNoun(kind)
	}
	var where []string
	if prefix != "" {
		where = append(where, fmt.Sprintf("starts with %q", prefix))
	}
	if suffix != "" {
		where = append(where, fmt.Sprintf("ends with %q", suffix))
	}
	msg := fmt.Sprintf("no %s in table %q", what, e.table)
	switch {
	case scanned == 0:
		return fmt.Sprintf("no %s: table %q is empty", what, e.table)
	case len(where) > 0:
		msg += " whose name " + strings.Join(where, " and ")
	case len(all) == 0:
		return fmt.Sprintf("%s: none of its %s is a counter, a SortKey item or a Latest 'latest' item with these flags (--value-attribute, --version-attribute, --key-prefix, ...)", msg, plural(scanned, "item"))
	}
	if len(all) == 0 {
		return msg
	}
	count := map[string]int{}
	for _, l := range all {
		count[l.Kind]++
	}
	var holds []string
	for _, k := range []string{kindCounter, kindSortKey, kindLatest} {
		if count[k] > 0 {
			noun := kindNoun(k)
			if count[k] == 1 {
				noun = strings.TrimSuffix(noun, "s")
			}
			holds = append(holds, fmt.Sprintf("%d %s", count[k], noun))
		}
	}
	return fmt.Sprintf("%s; it holds %s", msg, strings.Join(holds, ", "))
}

// scan is a Scan of every item's keys, value attribute and version
// attribute.
func (s *surveyor) scan(table string) *dynamodb.ScanInput {
	names := map[string]string{"#pk": s.pk, "#v": s.value, "#ver": s.version}
	projection := "#pk, #v, #ver"
	if s.sk != "" {
		names["#sk"] = s.sk
		projection += ", #sk"
	}
	return &dynamodb.ScanInput{TableName: aws.String(table), ProjectionExpression: aws.String(projection), ExpressionAttributeNames: names}
}

// keyNames returns the partition key and the sort key ("" for none) of the
// table's description.
func keyNames(desc *types.TableDescription) (pk, sk string) {
	for _, k := range desc.KeySchema {
		switch k.KeyType {
		case types.KeyTypeHash:
			pk = aws.ToString(k.AttributeName)
		case types.KeyTypeRange:
			sk = aws.ToString(k.AttributeName)
		}
	}
	return pk, sk
}

// newSurveyor returns the surveyor of the table desc describes, with the
// flags of e.
func (e *env) newSurveyor(desc *types.TableDescription) *surveyor {
	pk, sk := keyNames(desc)
	return &surveyor{
		pk: pk, sk: sk,
		value:          or(e.valueAttribute, defaultValueAttribute),
		version:        or(e.versionAttribute, defaultVersionAttribute),
		keyPrefix:      e.keyPrefix,
		counterSortKey: e.counterSortKey,
		latestFormat:   or(e.latestKeyFormat, defaultLatestKeyFormat),
		seqs:           map[string]*listed{},
	}
}

// or returns s, or def when s is empty.
func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// plural writes "1 item" or "2 items".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
