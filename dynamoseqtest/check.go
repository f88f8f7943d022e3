package dynamoseqtest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq"
)

// maxProblems is how many problems CheckSequence reports one by one; the
// rest are counted in one last message.
const maxProblems = 20

// CheckSequence fails tb unless the sequence name of seq holds what its
// callers were told. told maps each caller that was told a number to that
// number; its key is the caller's body: the value of the attribute body of
// the item the caller sent, such as a request ID (for a Counter or a Block,
// any label of the caller). Callers told an error are left out. It checks:
//   - no number was told to two callers;
//   - SortKey, Latest: the numbers stored run from 1 (the default Start) to
//     the largest with none missing; no body is stored under two numbers
//     (body "": no two items with attributes are equal); each told number
//     is stored, with its caller's body; Latest: GetLatest returns the last
//     version, holding that version's item;
//   - Counter: no told number is above Current. Block: uniqueness only.
//
// Each problem (up to 20, then their count) is one tb.Errorf that says what
// broke, such as "number 7 is missing: the sequence has 1..6 and 8..10"; a
// failed read is a tb.Fatalf. Call it once the callers have returned: it
// reads with All, GetLatest or Current, strongly consistent. For an
// IDMinter, pass the strategy under it, the name SequenceAt gives and the
// numbers of the IDs (IDMinter.Parse).
func CheckSequence(tb testing.TB, seq dynamoseq.Sequencer, name, body string, told map[string]int64) {
	tb.Helper()
	ctx := context.Background()
	problems := toldTwice(told)
	switch s := seq.(type) {
	case *dynamoseq.SortKey:
		items := readAll(tb, s.All(ctx, name, dynamoseq.OldestFirst), func(it dynamoseq.Item) stored { return stored{it.Number, it.Item} })
		problems = append(problems, checkStored(tb, items, body, told)...)
	case *dynamoseq.Latest:
		versions := readAll(tb, s.All(ctx, name, dynamoseq.OldestFirst), func(v dynamoseq.Item) stored { return stored{v.Number, v.Item} })
		problems = append(problems, checkStored(tb, versions, body, told)...)
		problems = append(problems, checkLatest(tb, s, name, body, versions)...)
	case *dynamoseq.Counter:
		problems = append(problems, checkCounter(tb, s, name, told)...)
	case *dynamoseq.Block:
	default:
		tb.Fatalf("dynamoseqtest.CheckSequence: a %T is not a SortKey, Latest, Counter or Block", seq)
	}
	for i, p := range problems {
		if i == maxProblems {
			tb.Errorf("sequence %q: %d more problems", name, len(problems)-i)
			break
		}
		tb.Errorf("sequence %q: %s", name, p)
	}
}

// stored is one numbered item of a sequence as its listing returns it.
type stored struct {
	n    int64
	item map[string]types.AttributeValue
}

// readAll collects a listing, oldest first; a failed read fails tb.
func readAll[E any](tb testing.TB, all iter.Seq2[E, error], conv func(E) stored) []stored {
	tb.Helper()
	var items []stored
	for e, err := range all {
		if err != nil {
			tb.Fatalf("dynamoseqtest.CheckSequence: listing the sequence: %v", err)
		}
		items = append(items, conv(e))
	}
	return items
}

// toldTwice reports each number told to more than one caller.
func toldTwice(told map[string]int64) []string {
	callers := map[int64][]string{}
	for b, n := range told {
		callers[n] = append(callers[n], b)
	}
	var problems []string
	for _, n := range slices.Sorted(maps.Keys(callers)) {
		if bs := callers[n]; len(bs) > 1 {
			slices.Sort(bs)
			problems = append(problems, fmt.Sprintf("number %d was told to %d callers: %s", n, len(bs), and(bs)))
		}
	}
	return problems
}

// checkStored checks a SortKey's or Latest's items, oldest first: no
// number missing from 1, no body stored twice, each told number stored
// with its caller's body.
func checkStored(tb testing.TB, items []stored, body string, told map[string]int64) []string {
	tb.Helper()
	problems := gaps(items)
	bodyAt := map[int64]string{}
	under := map[string][]int64{}
	var bodies []string // in the order first stored
	for _, it := range items {
		b, ok := bodyOf(tb, it.item, body)
		switch {
		case !ok && body != "":
			problems = append(problems, fmt.Sprintf("item %d holds no attribute %s", it.n, body))
		case ok:
			bodyAt[it.n] = b
			if len(under[b]) == 0 {
				bodies = append(bodies, b)
			}
			under[b] = append(under[b], it.n)
		}
	}
	for _, b := range bodies {
		if ns := under[b]; len(ns) > 1 {
			problems = append(problems, fmt.Sprintf("body %s is stored %s, under %s", short(b), times(len(ns)), and(numbers(ns))))
		}
	}
	have := map[int64]bool{}
	for _, it := range items {
		have[it.n] = true
	}
	for _, c := range byNumber(told) {
		b, hasBody := bodyAt[c.n]
		switch {
		case !have[c.n]:
			problems = append(problems, fmt.Sprintf("the caller of %s was told %d, but no item %d is stored", short(c.body), c.n, c.n))
		case body != "" && hasBody && b != c.body:
			problems = append(problems, fmt.Sprintf("the caller of %s was told %d, but item %d holds body %s", short(c.body), c.n, c.n, short(b)))
		}
	}
	return problems
}

// gaps reports the numbers missing between 1 and the largest stored.
func gaps(items []stored) []string {
	var problems []string
	next := int64(1)
	for _, it := range items {
		switch {
		case it.n == next:
		case it.n == next+1:
			problems = append(problems, fmt.Sprintf("number %d is missing", next))
		case it.n > next:
			problems = append(problems, fmt.Sprintf("numbers %d..%d are missing", next, it.n-1))
		}
		next = max(next, it.n+1)
	}
	if len(problems) == 0 {
		return nil
	}
	has := ": the sequence has " + ranges(items)
	for i := range problems {
		problems[i] += has
	}
	return problems
}

// checkLatest checks that GetLatest returns the last version stored, with
// its body.
func checkLatest(tb testing.TB, l *dynamoseq.Latest, name, body string, versions []stored) []string {
	tb.Helper()
	var item map[string]types.AttributeValue
	v, err := l.GetLatest(context.Background(), name, &item)
	switch {
	case errors.Is(err, dynamoseq.ErrNotFound) && len(versions) == 0:
		return nil
	case errors.Is(err, dynamoseq.ErrNotFound):
		return []string{fmt.Sprintf("'latest' is missing, but versions up to %d are stored", versions[len(versions)-1].n)}
	case err != nil:
		tb.Fatalf("dynamoseqtest.CheckSequence: GetLatest: %v", err)
	}
	if len(versions) == 0 {
		return []string{fmt.Sprintf("'latest' is at version %d, but no version is stored", v)}
	}
	last := versions[len(versions)-1]
	if v != last.n {
		return []string{fmt.Sprintf("'latest' is at version %d, but the last version stored is %d", v, last.n)}
	}
	got, _ := bodyOf(tb, item, body)
	if want, _ := bodyOf(tb, last.item, body); got != want {
		return []string{fmt.Sprintf("'latest' holds body %s, but version %d holds body %s", short(got), v, short(want))}
	}
	return nil
}

// checkCounter checks that no told number is above the counter's value.
func checkCounter(tb testing.TB, c *dynamoseq.Counter, name string, told map[string]int64) []string {
	tb.Helper()
	if len(told) == 0 {
		return nil
	}
	cur, err := c.Current(context.Background(), name)
	if err != nil && !errors.Is(err, dynamoseq.ErrNotFound) {
		tb.Fatalf("dynamoseqtest.CheckSequence: Current: %v", err)
	}
	var problems []string
	for _, t := range byNumber(told) {
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("the caller of %s was told %d, but the counter was never used", short(t.body), t.n))
		case t.n > cur:
			problems = append(problems, fmt.Sprintf("the caller of %s was told %d, but the counter stands at %d", short(t.body), t.n, cur))
		}
	}
	return problems
}

// bodyOf returns what identifies item: the value of its attribute attr,
// or with attr "" the whole item, written out with its attributes in
// name order. ok is false when the item has no such attribute, or (attr
// "") no attribute at all.
func bodyOf(tb testing.TB, item map[string]types.AttributeValue, attr string) (_ string, ok bool) {
	tb.Helper()
	if attr != "" {
		switch v := item[attr].(type) {
		case nil:
			return "", false
		case *types.AttributeValueMemberS:
			return v.Value, true
		case *types.AttributeValueMemberN:
			return v.Value, true
		}
		item = map[string]types.AttributeValue{attr: item[attr]}
	}
	if len(item) == 0 {
		return "", false
	}
	var m map[string]any
	if err := attributevalue.UnmarshalMapWithOptions(item, &m, func(o *attributevalue.DecoderOptions) { o.UseNumber = true }); err != nil {
		tb.Fatalf("dynamoseqtest.CheckSequence: reading an item: %v", err)
	}
	if attr != "" {
		return fmt.Sprint(m[attr]), true
	}
	return fmt.Sprint(m), true
}

// toldCall is one caller: the body it sent and the number it was told.
type toldCall struct {
	body string
	n    int64
}

// byNumber returns told's callers in the order of their numbers.
func byNumber(told map[string]int64) []toldCall {
	calls := make([]toldCall, 0, len(told))
	for b, n := range told {
		calls = append(calls, toldCall{b, n})
	}
	slices.SortFunc(calls, func(a, b toldCall) int {
		return cmp.Or(cmp.Compare(a.n, b.n), strings.Compare(a.body, b.body))
	})
	return calls
}

// ranges writes the numbers of items, ascending, as runs: "1..6 and
// 8..10"; past 8 runs it says how many more there are.
func ranges(items []stored) string {
	var runs []string
	for i := 0; i < len(items); {
		j := i
		for j+1 < len(items) && items[j+1].n == items[j].n+1 {
			j++
		}
		run := strconv.FormatInt(items[i].n, 10)
		if j > i {
			run += ".." + strconv.FormatInt(items[j].n, 10)
		}
		runs = append(runs, run)
		i = j + 1
	}
	if len(runs) > 8 {
		runs = append(runs[:8], fmt.Sprintf("%d more runs", len(runs)-8))
	}
	return and(runs)
}

// and joins words as a list: "a", "a and b", "a, b and c".
func and(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// numbers writes ns as words.
func numbers(ns []int64) []string {
	words := make([]string, len(ns))
	for i, n := range ns {
		words[i] = strconv.FormatInt(n, 10)
	}
	return words
}

// times says how many times: "twice", "3 times".
func times(k int) string {
	if k == 2 {
		return "twice"
	}
	return strconv.Itoa(k) + " times"
}

// short cuts a long body for a message.
func short(b string) string {
	if len(b) > 60 {
		return b[:57] + "..."
	}
	return b
}
