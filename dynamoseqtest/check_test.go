package dynamoseqtest_test

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// recorder is a testing.TB that records what CheckSequence reports
// instead of failing the test. Fatalf ends the goroutine, as testing's does.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
	fatal  string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.fatal = fmt.Sprintf(format, args...)
	r.mu.Unlock()
	runtime.Goexit()
}

// record runs CheckSequence with a recorder and returns what it reported.
func record(t *testing.T, seq dynamoseq.Sequencer, name, body string, told map[string]int64) *recorder {
	t.Helper()
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		dynamoseqtest.CheckSequence(r, seq, name, body, told)
	}()
	<-done
	return r
}

// check returns the errors CheckSequence reported; it fails t if
// CheckSequence could not read the sequence.
func check(t *testing.T, seq dynamoseq.Sequencer, name, body string, told map[string]int64) []string {
	t.Helper()
	r := record(t, seq, name, body, told)
	require.Empty(t, r.fatal, "CheckSequence's Fatalf")
	return r.errors
}

// bodies appends one item per body to name, and returns who was told what.
func bodies(t *testing.T, appendFn func(context.Context, string, any) (int64, error), name string, bs ...string) map[string]int64 {
	t.Helper()
	told := map[string]int64{}
	for _, b := range bs {
		var item any
		if b != "" {
			item = map[string]string{"body": b}
		}
		n, err := appendFn(context.Background(), name, item)
		require.NoError(t, err)
		told[b] = n
	}
	return told
}

// putItem writes an item under number n of the collection pk, bypassing the
// library, with body b (none for "").
func putItem(t *testing.T, client *dynamodb.Client, table, pk string, n int64, b string) {
	t.Helper()
	item := map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk},
		"sk": &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)},
	}
	if b != "" {
		item["body"] = &types.AttributeValueMemberS{Value: b}
	}
	_, err := client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
	require.NoError(t, err)
}

// newSortKey returns a SortKey over a table of its own, and the table.
func newSortKey(t *testing.T) (*dynamoseq.SortKey, *dynamodb.Client, string) {
	t.Helper()
	srv := dynamoseqtest.Start(t)
	table := srv.NewTable(t, dynamoseq.SortKeyTable("check"))
	s, err := dynamoseq.NewSortKey(srv.Client(), table)
	require.NoError(t, err)
	return s, srv.Client(), table
}

func TestCheckSequenceSortKey(t *testing.T) {
	t.Parallel()
	s, client, table := newSortKey(t)
	ten := []string{"b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9", "b10"}

	told := bodies(t, s.Append, "fine", ten...)
	assert.Empty(t, check(t, s, "fine", "body", told), "a sequence that holds what its callers were told")
	assert.Empty(t, check(t, s, "fine", "", told), "compared whole")

	told = bodies(t, s.Append, "gap", ten...)
	_, err := client.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "gap"}, "sk": &types.AttributeValueMemberN{Value: "7"},
	}})
	require.NoError(t, err)
	delete(told, "b7")
	assert.Equal(t, []string{`sequence "gap": number 7 is missing: the sequence has 1..6 and 8..10`}, check(t, s, "gap", "body", told))

	putItem(t, client, table, "start", 3, "b3")
	putItem(t, client, table, "start", 4, "b4")
	assert.Equal(t, []string{`sequence "start": numbers 1..2 are missing: the sequence has 3..4`}, check(t, s, "start", "body", map[string]int64{"b4": 4}))

	told = bodies(t, s.Append, "twice", "order-1", "order-2", "order-42", "order-4", "order-5", "order-6", "order-7", "order-8")
	putItem(t, client, table, "twice", 9, "order-42")
	assert.Equal(t, []string{`sequence "twice": body order-42 is stored twice, under 3 and 9`}, check(t, s, "twice", "body", told))

	bodies(t, s.Append, "wrong", "order-3", "order-17")
	assert.Equal(t, []string{
		`sequence "wrong": the caller of order-17 was told 1, but item 1 holds body order-3`,
		`sequence "wrong": the caller of order-3 was told 5, but no item 5 is stored`,
	}, check(t, s, "wrong", "body", map[string]int64{"order-17": 1, "order-3": 5}))

	told = bodies(t, s.Append, "nobody", "a", "")
	assert.Equal(t, []string{`sequence "nobody": item 2 holds no attribute body`}, check(t, s, "nobody", "body", map[string]int64{"a": 1, "b": 2}),
		"one message for item 2")
	assert.Empty(t, check(t, s, "nobody", "", told), "compared whole, an item without attributes is no body")

	many := map[string]int64{}
	for n := range 25 {
		many["x"+strconv.Itoa(n)] = int64(11 + n)
	}
	errs := check(t, s, "fine", "body", many)
	require.Len(t, errs, 21, "20 problems, then how many more")
	assert.Equal(t, `sequence "fine": the caller of x0 was told 11, but no item 11 is stored`, errs[0])
	assert.Equal(t, `sequence "fine": 5 more problems`, errs[20])

	assert.Equal(t, []string{`sequence "fine": number 3 was told to 2 callers: a and b`},
		check(t, s, "fine", "", map[string]int64{"a": 3, "b": 3}))
}

func TestCheckSequenceLatest(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t)
	table := srv.NewTable(t, dynamoseq.LatestTable("check"))
	l, err := dynamoseq.NewLatest(srv.Client(), table)
	require.NoError(t, err)

	told := bodies(t, l.Append, "doc", "v1", "v2", "v3")
	assert.Empty(t, check(t, l, "doc", "body", told))
	assert.Empty(t, check(t, l, "doc", "", told), "compared whole")
	assert.Empty(t, check(t, l, "empty", "body", nil), "a document without versions")

	// A version written past the library: 'latest' stays at 3.
	_, err = srv.Client().PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "doc"}, "sk": &types.AttributeValueMemberN{Value: "4"},
		"version": &types.AttributeValueMemberN{Value: "4"}, "body": &types.AttributeValueMemberS{Value: "v4"},
	}})
	require.NoError(t, err)
	told["v4"] = 4
	assert.Equal(t, []string{`sequence "doc": 'latest' is at version 3, but the last version stored is 4`}, check(t, l, "doc", "body", told))

	// 'latest' at the last version, with another body.
	writeLatest(t, srv.Client(), table, "doc", 4, "v3")
	assert.Equal(t, []string{`sequence "doc": 'latest' holds body v3, but version 4 holds body v4`}, check(t, l, "doc", "body", told))

	// 'latest' gone, or there without versions.
	_, err = srv.Client().DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "doc"}, "sk": &types.AttributeValueMemberN{Value: "0"},
	}})
	require.NoError(t, err)
	assert.Equal(t, []string{`sequence "doc": 'latest' is missing, but versions up to 4 are stored`}, check(t, l, "doc", "body", told))
	writeLatest(t, srv.Client(), table, "ghost", 2, "v2")
	assert.Equal(t, []string{`sequence "ghost": 'latest' is at version 2, but no version is stored`}, check(t, l, "ghost", "body", nil))
}

// writeLatest writes the 'latest' item of name (LayoutSortKey) past the
// library, at version v with body b.
func writeLatest(t *testing.T, client *dynamodb.Client, table, name string, v int64, b string) {
	t.Helper()
	_, err := client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: name}, "sk": &types.AttributeValueMemberN{Value: "0"},
		"version": &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}, "body": &types.AttributeValueMemberS{Value: b},
	}})
	require.NoError(t, err)
}

func TestCheckSequenceCounters(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t)
	table := srv.NewTable(t, dynamoseq.CounterTable("check"))
	c, err := dynamoseq.NewCounter(srv.Client(), table)
	require.NoError(t, err)
	b, err := dynamoseq.NewBlock(c, 10)
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	ctx := context.Background()
	told := map[string]int64{}
	for i := range 10 {
		n, err := c.Next(ctx, "c")
		require.NoError(t, err)
		told["c"+strconv.Itoa(i)] = n
	}
	assert.Empty(t, check(t, c, "c", "", told))
	told["late"] = 12
	told["again"] = 2
	assert.Equal(t, []string{
		`sequence "c": number 2 was told to 2 callers: again and c1`,
		`sequence "c": the caller of late was told 12, but the counter stands at 10`,
	}, check(t, c, "c", "", told))
	assert.Equal(t, []string{`sequence "unused": the caller of a was told 1, but the counter was never used`},
		check(t, c, "unused", "", map[string]int64{"a": 1}))

	n, err := b.Next(ctx, "b")
	require.NoError(t, err)
	assert.Empty(t, check(t, b, "b", "", map[string]int64{"first": n}))
	assert.Equal(t, []string{fmt.Sprintf(`sequence "b": number %d was told to 2 callers: a and b`, n)},
		check(t, b, "b", "", map[string]int64{"a": n, "b": n}))
}

// idSeq is a Sequencer CheckSequence does not know.
type idSeq struct{}

func (idSeq) Next(context.Context, string) (int64, error) { return 1, nil }

func TestCheckSequenceFatal(t *testing.T) {
	t.Parallel()
	r := record(t, idSeq{}, "x", "", nil)
	assert.Equal(t, "dynamoseqtest.CheckSequence: a dynamoseqtest_test.idSeq is not a SortKey, Latest, Counter or Block", r.fatal)

	s, _, _ := newSortKey(t)
	r = record(t, s, "", "body", nil)
	assert.Contains(t, r.fatal, "dynamoseqtest.CheckSequence: listing the sequence: ", "a bad name: the read fails")
	assert.Empty(t, r.errors)
}
