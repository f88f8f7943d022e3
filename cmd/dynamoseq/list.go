package main

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/spf13/pflag"
)

// listed is one counter in list's JSON answer.
type listed struct {
	Sequence string `json:"sequence"`
	Value    int64  `json:"value"`
}

func listCommand() *command {
	return &command{
		name:     "list",
		synopsis: "",
		summary:  "List the counters of a table and their values",
		doc: "It is a paginated Scan of the whole table: it costs read units for every\n" +
			"item, whatever --prefix leaves out, and says so on stderr. Items whose value\n" +
			"attribute is not a Number are not counters and are left out. With --period,\n" +
			"only the counters an IDMinter keeps for that period (names ending in\n" +
			"#20261122 with --period day).\n",
		minArgs: 0, maxArgs: 0, only: kindCounter,
		define: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
			prefix := fs.String("prefix", "", "only the sequences whose name starts with this")
			period := definePeriod(fs)
			return func(ctx context.Context, e *env, _ []string) error {
				suffix, err := period.suffix(time.Now())
				if err != nil {
					return err
				}
				found, scanned, err := e.scanCounters(ctx, *prefix)
				if err != nil {
					return e.fail("list", *prefix, err)
				}
				found = slices.DeleteFunc(found, func(l listed) bool { return !strings.HasSuffix(l.Sequence, suffix) })
				if len(found) == 0 {
					e.note("%s", e.noCounters(ctx, *prefix, suffix, scanned))
				}
				var text strings.Builder
				for _, l := range found {
					fmt.Fprintf(&text, "%s\t%d\n", l.Sequence, l.Value)
				}
				return e.print(text.String(), found)
			}
		},
	}
}

// scanCounters reads every item of the table whose partition key starts
// with the key prefix and prefix, and returns those that hold a Number
// value attribute, sorted by name, and how many items it read.
func (e *env) scanCounters(ctx context.Context, prefix string) ([]listed, int, error) {
	client, err := e.client(ctx)
	if err != nil {
		return nil, 0, err
	}
	found := []listed{}
	pages, scanned := 0, 0
	for p := dynamodb.NewScanPaginator(client, e.counterScan(prefix)); p.HasMorePages(); {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, 0, err
		}
		pages++
		scanned += int(out.ScannedCount)
		for _, item := range out.Items {
			if l, ok := e.counterOf(item); ok {
				found = append(found, l)
			}
		}
	}
	e.note("list read the whole table %q with a paginated Scan: %s in %s", e.table, plural(scanned, "item"), plural(pages, "page"))
	sort.Slice(found, func(i, j int) bool { return found[i].Sequence < found[j].Sequence })
	return found, scanned, nil
}

// counterScan is a Scan of the counters whose name starts with prefix: the
// items whose partition key starts with the key prefix and prefix and whose
// value attribute is a Number (at the counter sort key value, when there is
// one), projected to those two attributes.
func (e *env) counterScan(prefix string) *dynamodb.ScanInput {
	in := &dynamodb.ScanInput{
		TableName:                aws.String(e.table),
		ProjectionExpression:     aws.String("#pk, #v"),
		ExpressionAttributeNames: map[string]string{"#pk": or(e.partitionKey, defaultPartitionKey), "#v": or(e.valueAttribute, defaultValueAttribute)},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":n": &types.AttributeValueMemberS{Value: "N"},
		},
	}
	filters := []string{"attribute_type(#v, :n)"}
	if start := e.keyPrefix + prefix; start != "" { // begins_with needs a non-empty string
		filters = append(filters, "begins_with(#pk, :p)")
		in.ExpressionAttributeValues[":p"] = &types.AttributeValueMemberS{Value: start}
	}
	if e.counterSortKey != "" { // counters beside other items of a single-table design
		filters = append(filters, "#sk = :sk")
		in.ExpressionAttributeNames["#sk"] = or(e.sortKey, defaultSortKey)
		in.ExpressionAttributeValues[":sk"] = &types.AttributeValueMemberS{Value: e.counterSortKey}
	}
	in.FilterExpression = aws.String(strings.Join(filters, " AND "))
	return in
}

// counterOf reads an item of counterScan's answer.
func (e *env) counterOf(item map[string]types.AttributeValue) (listed, bool) {
	pk, _ := item[or(e.partitionKey, defaultPartitionKey)].(*types.AttributeValueMemberS)
	v, _ := item[or(e.valueAttribute, defaultValueAttribute)].(*types.AttributeValueMemberN)
	if pk == nil || v == nil {
		return listed{}, false
	}
	n, err := strconv.ParseInt(v.Value, 10, 64)
	if err != nil {
		return listed{}, false // not a counter the library wrote
	}
	return listed{Sequence: strings.TrimPrefix(pk.Value, e.keyPrefix), Value: n}, true
}

// noCounters says that list found no counters among the scanned items,
// and what the table seems to hold instead, from its key schema (one
// DescribeTable; without it, the remark names no key).
func (e *env) noCounters(ctx context.Context, prefix, suffix string, scanned int) string {
	valueName := or(e.valueAttribute, defaultValueAttribute)
	switch {
	case scanned == 0:
		return fmt.Sprintf("no counters: table %q is empty", e.table)
	case prefix != "" && suffix != "":
		return fmt.Sprintf("no counters in table %q whose name starts with %q and ends with %q", e.table, prefix, suffix)
	case prefix != "":
		return fmt.Sprintf("no counters in table %q whose name starts with %q", e.table, prefix)
	case suffix != "":
		return fmt.Sprintf("no counters in table %q whose name ends with %q", e.table, suffix)
	}
	msg := fmt.Sprintf("no counters in table %q: none of its %s has a Number attribute %q", e.table, plural(scanned, "item"), valueName)
	client, err := e.client(ctx)
	if err != nil {
		return msg
	}
	out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(e.table)})
	if err != nil {
		return msg
	}
	key := describeKey(out.Table.KeySchema, out.Table.AttributeDefinitions)
	if len(out.Table.KeySchema) > 1 && e.counterSortKey == "" {
		return fmt.Sprintf("%s; its key, %s, is that of a SortKey or Latest table, whose items 'dynamoseq versions NAME --kind sortkey|latest' lists", msg, key)
	}
	return fmt.Sprintf("%s; its key is %s: if its counters keep their value in another attribute, name it with --value-attribute", msg, key)
}

// plural writes "1 item" or "2 items".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// or returns s, or def when s is empty.
func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
