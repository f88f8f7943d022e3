package main

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq"
)

// hinted is an error followed by advice for the operator, which message
// prints a line each after it.
type hinted struct {
	err   error
	hints []string
}

func (h *hinted) Error() string { return h.err.Error() }
func (h *hinted) Unwrap() error { return h.err }

// layoutHint adds to err, when a Latest found a table of another shape than
// its layout needs, the flag that gives the other layout. It reads the
// command's own --layout, not the library's message.
func (e *env) layoutHint(err error) error {
	var de *dynamoseq.Error
	if !errors.Is(err, dynamoseq.ErrTableMismatch) || !errors.As(err, &de) || !strings.HasPrefix(de.Op, "Latest.") {
		return err
	}
	hint := "for a table with only a partition key, pass --layout partitionkey"
	if e.partitionKeyLayout() {
		hint = "for a table with a sort key, leave out --layout partitionkey"
	}
	return &hinted{err: err, hints: []string{hint}}
}

// maxHintItems bounds the Scan that looks for names close to a missing
// one: one page of at most this many items (and at most 1 MB), whatever
// the table holds.
const maxHintItems = 1000

// maxHintNames is how many close names a hint shows.
const maxHintNames = 5

// notFound adds hints to err when it says that the sequence name of kind
// was not found: the names closest to it, and the period form (--period)
// when name looks like a period's counter or has them. typed is NAME as
// the command line wrote it, before --period. It costs one Scan of at most
// maxHintItems items.
func (e *env) notFound(ctx context.Context, kind, typed, name string, err error) error {
	if !errors.Is(err, dynamoseq.ErrNotFound) {
		return err
	}
	names, more, serr := e.sampleNames(ctx, kind)
	if serr != nil {
		return &hinted{err: err, hints: []string{fmt.Sprintf("no names to compare with: Scan: %v", serr)}}
	}
	var hints []string
	if typed == name {
		hints = append(hints, periodHints(name, names)...)
	}
	where := fmt.Sprintf("the table's %s", plural(len(names), "name"))
	if more {
		where = fmt.Sprintf("%s among its first %d items", plural(len(names), "name"), maxHintItems)
	}
	close := closest(name, names, maxHintNames)
	if typed != name { // --period wrote name: hint the NAMEs it takes
		close = periodClosest(typed, strings.TrimPrefix(name, typed), names)
		where += fmt.Sprintf(", as NAME with --period %s", periodFlagOf(name))
	}
	switch {
	case len(close) > 0:
		hints = append(hints, fmt.Sprintf("the closest of %s: %s", where, strings.Join(close, ", ")))
	case len(names) == 0 && !more:
		hints = append(hints, fmt.Sprintf("table %q holds no %s", e.table, kindNoun(kind)))
	case len(hints) == 0:
		hints = append(hints, fmt.Sprintf("none of %s is close to %q", where, name))
	}
	return &hinted{err: err, hints: hints}
}

// kindNoun is what a strategy kind keeps, in messages.
func kindNoun(kind string) string {
	switch kind {
	case kindSortKey:
		return "SortKey sequences"
	case kindLatest:
		return "Latest documents"
	}
	return "counters"
}

// periodName matches the name of a counter an IDMinter keeps for a calendar
// period: the name, "#", and the day, the month or the year.
var periodName = regexp.MustCompile(`^(.+)#(\d{8}|\d{6}|\d{4})$`)

// periodFlag is the --period of a period counter's date part, by its
// length; and how --date writes it.
func periodFlag(date string) (period, dateFlag string) {
	switch len(date) {
	case 8:
		return "day", date[:4] + "-" + date[4:6] + "-" + date[6:]
	case 6:
		return "month", date[:4] + "-" + date[4:]
	}
	return "year", date
}

// periodClosest returns at most maxHintNames NAMEs, as --period takes
// them, whose counters among names are close to typed in the period of
// suffix ("#2026"): "acme"; then those of other periods of the same
// length, with the --date that names them: "acme --date 2025".
func periodClosest(typed, suffix string, names []string) []string {
	var same, other []string
	dates := map[string][]string{} // the dates of each NAME of another period
	for _, n := range names {
		m := periodName.FindStringSubmatch(n)
		if m == nil || len(m[2]) != len(suffix)-1 {
			continue
		}
		if "#"+m[2] == suffix {
			same = append(same, m[1])
			continue
		}
		if !slices.Contains(other, m[1]) {
			other = append(other, m[1])
		}
		dates[m[1]] = append(dates[m[1]], m[2])
	}
	found := closest(typed, same, maxHintNames)
	other = slices.DeleteFunc(other, func(b string) bool { return slices.Contains(found, b) })
	bases := closest(typed, other, maxHintNames-len(found))
	if slices.Contains(other, typed) { // NAME itself, in other periods
		bases = append([]string{typed}, bases[:min(len(bases), maxHintNames-len(found)-1)]...)
	}
	for _, base := range bases {
		ds := dates[base]
		slices.Sort(ds)
		_, date := periodFlag(ds[len(ds)-1]) // the newest
		found = append(found, base+" --date "+date)
	}
	return found
}

// periodFlagOf is the --period of the period counter name, such as "year"
// for "acme#2026".
func periodFlagOf(name string) string {
	m := periodName.FindStringSubmatch(name)
	if m == nil {
		return ""
	}
	period, _ := periodFlag(m[2])
	return period
}

// periodHints says how --period writes name, when it looks like a period's
// counter, and that name has period counters among names, when it does.
func periodHints(name string, names []string) []string {
	var hints []string
	if m := periodName.FindStringSubmatch(name); m != nil {
		period, date := periodFlag(m[2])
		hints = append(hints, fmt.Sprintf("%q is how an IDMinter names the counter of %q for the %s %s: --period %s --date %s writes it", name, m[1], period, date, period, date))
	}
	var own []string
	for _, n := range names {
		if m := periodName.FindStringSubmatch(n); m != nil && m[1] == name {
			own = append(own, n)
		}
	}
	if len(own) == 0 {
		return hints
	}
	slices.Sort(own)
	slices.Reverse(own) // the newest first
	period, _ := periodFlag(periodName.FindStringSubmatch(own[0])[2])
	shown := own[:min(len(own), maxHintNames)]
	return append(hints, fmt.Sprintf("%q is counted per period (%s): pass --period %s, and --date for another %s than the current one",
		name, strings.Join(shown, ", "), period, period))
}

// sampleNames returns the distinct sequence names (document names for
// latest) of the kind in one Scan page of at most maxHintItems items, and
// whether the table holds more items.
func (e *env) sampleNames(ctx context.Context, kind string) (names []string, more bool, err error) {
	client, err := e.client(ctx)
	if err != nil {
		return nil, false, err
	}
	in := e.counterScan("")
	if kind != kindCounter {
		in = e.nameScan()
	}
	in.Limit = aws.Int32(maxHintItems)
	out, err := client.Scan(ctx, in)
	if err != nil {
		return nil, false, err
	}
	pkName := or(e.partitionKey, defaultPartitionKey)
	for _, item := range out.Items {
		pk, _ := item[pkName].(*types.AttributeValueMemberS)
		if pk == nil || !strings.HasPrefix(pk.Value, e.keyPrefix) || isKeyItem(pk.Value) {
			continue
		}
		name, ok := e.nameOf(kind, strings.TrimPrefix(pk.Value, e.keyPrefix))
		if ok && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names, out.LastEvaluatedKey != nil, nil
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

// nameScan is a Scan of the partition keys that start with the key prefix.
func (e *env) nameScan() *dynamodb.ScanInput {
	in := &dynamodb.ScanInput{
		TableName:                aws.String(e.table),
		ProjectionExpression:     aws.String("#pk"),
		ExpressionAttributeNames: map[string]string{"#pk": or(e.partitionKey, defaultPartitionKey)},
	}
	if e.keyPrefix != "" {
		in.FilterExpression = aws.String("begins_with(#pk, :p)")
		in.ExpressionAttributeValues = map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: e.keyPrefix}}
	}
	return in
}

// nameOf is the sequence name that a partition key (without the key
// prefix) holds: itself, but with Latest's partitionkey layout, where only
// the 'latest' items (written with --latest-key-format) name documents.
func (e *env) nameOf(kind, key string) (string, bool) {
	if kind != kindLatest || e.layout != "partitionkey" {
		return key, true
	}
	return latestKeyName(or(e.latestKeyFormat, defaultLatestKeyFormat), key)
}

// closest returns at most n of names that are close to name, the closest
// first: at most a third of its letters away (and at least 2), letter case
// aside.
func closest(name string, names []string, n int) []string {
	limit := max(2, len([]rune(name))/3)
	type scored struct {
		name string
		d    int
	}
	var found []scored
	for _, c := range names {
		if c == name {
			continue
		}
		if d := distance(strings.ToLower(name), strings.ToLower(c)); d <= limit {
			found = append(found, scored{c, d})
		}
	}
	slices.SortFunc(found, func(a, b scored) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.name, b.name)
	})
	out := make([]string, 0, n)
	for _, f := range found[:min(n, len(found))] {
		out = append(out, f.name)
	}
	return out
}

// distance is the optimal string alignment distance between a and b: the
// fewest letters to insert, delete or replace, or pairs of neighbours to
// swap, to turn one into the other ("nxet" is one swap from "next").
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
