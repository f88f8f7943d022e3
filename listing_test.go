package dynamoseq_test

import (
	"context"
	"fmt"
	"iter"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// numbers ranges over seq until it ends or yields an error, or until stop
// entries have come (0: no limit), and returns the numbers seen and the
// error.
func numbers[E dynamoseq.Item](seq iter.Seq2[E, error], stop int) ([]int64, error) {
	got := []int64{}
	for e, err := range seq {
		if err != nil {
			return got, err
		}
		n, _ := entryOf(e)
		got = append(got, n)
		if len(got) == stop {
			break
		}
	}
	return got, nil
}

// span returns the numbers from, from±1, ..., to.
func span(from, to int64) []int64 {
	var s []int64
	for n := from; ; {
		s = append(s, n)
		switch {
		case n == to:
			return s
		case from < to:
			n++
		default:
			n--
		}
	}
}

// requireCancelEnds ranges over all(ctx) and cancels ctx when the entry
// numbered at comes: the loop must end with one error, ctx's, from op, and
// no entry after at. It returns the numbers seen.
func requireCancelEnds[E dynamoseq.Item](t *testing.T, all func(context.Context) iter.Seq2[E, error], at int64, op string) []int64 {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []int64
	var errs []error
	for e, err := range all(ctx) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		n, _ := entryOf(e)
		got = append(got, n)
		if n == at {
			cancel()
		}
	}
	require.Len(t, errs, 1, "errors after the cancel")
	assert.ErrorIs(t, errs[0], context.Canceled)
	var e *dynamoseq.Error
	require.ErrorAs(t, errs[0], &e)
	assert.Equal(t, op, e.Op)
	require.NotEmpty(t, got)
	assert.Equal(t, at, got[len(got)-1], "the last entry before the cancel")
	return got
}

// entryOf returns the number and the attributes of an Item.
func entryOf(e any) (int64, map[string]types.AttributeValue) {
	switch e := e.(type) {
	case dynamoseq.Item:
		return e.Number, e.Item
	}
	panic(fmt.Sprintf("entryOf(%T)", e))
}

// TestSortKeyAll ranges over sequences in both orders and checks what each
// loop costs in Queries: pages of 16, then 32, read as the loop reaches
// them, none after a break.
func TestSortKeyAll(t *testing.T) {
	t.Parallel()
	for _, kt := range sortKeyTypes {
		t.Run(kt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			client := dbtest.Client(t)
			calls := &callCounter{Client: client}
			s, err := dynamoseq.NewSortKey(calls, dbtest.SortKeyTable(t, client, kt.typ), kt.opt)
			require.NoError(t, err)
			appendTickets(t, s, "forty", 40)
			appendTickets(t, s, "sixteen", 16)

			tests := []struct {
				name    string
				seq     string
				order   dynamoseq.Order
				stop    int
				want    []int64
				queries int64
			}{
				{"newest first", "forty", dynamoseq.NewestFirst, 0, span(40, 1), 2},
				{"oldest first", "forty", dynamoseq.OldestFirst, 0, span(1, 40), 2},
				{"break in the first page", "forty", dynamoseq.NewestFirst, 3, span(40, 38), 1},
				{"break at the end of the first page", "forty", dynamoseq.OldestFirst, 16, span(1, 16), 1},
				{"break in the second page", "forty", dynamoseq.OldestFirst, 17, span(1, 17), 2},
				{"a full first page, then an empty one", "sixteen", dynamoseq.OldestFirst, 0, span(1, 16), 2},
				{"a full first page down to 1, no page after it", "sixteen", dynamoseq.NewestFirst, 0, span(16, 1), 1},
				{"no item", "none", dynamoseq.NewestFirst, 0, []int64{}, 1},
			}
			for _, tt := range tests {
				calls.reset()
				got, err := numbers(s.All(ctx, tt.seq, tt.order), tt.stop)
				require.NoError(t, err, tt.name)
				assert.Equal(t, tt.want, got, tt.name)
				assert.Equal(t, tt.queries, calls.queries.Load(), "%s: Queries", tt.name)
			}

			calls.reset()
			for _, bad := range []struct {
				name  string
				order dynamoseq.Order
			}{{"", dynamoseq.NewestFirst}, {"forty", dynamoseq.Order(7)}} {
				got, err := numbers(s.All(ctx, bad.name, bad.order), 0)
				assert.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "All(%q, %v)", bad.name, bad.order)
				assert.Empty(t, got, "All(%q, %v)", bad.name, bad.order)
			}
			assert.Zero(t, calls.total(), "requests for bad arguments")
		})
	}
}

// TestSortKeyAllDecoded decodes the items into the caller's type.
func TestSortKeyAllDecoded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := dbtest.Client(t)
	s, err := dynamoseq.NewSortKey(client, dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN))
	require.NoError(t, err)
	appendTickets(t, s, "projectA", 20)

	var titles []string
	for it, err := range s.All(ctx, "projectA", dynamoseq.OldestFirst) {
		require.NoError(t, err)
		var tk ticket
		require.NoError(t, it.Decode(&tk))
		require.Equal(t, fmt.Sprintf("t%d", it.Number), tk.Title, "item %d", it.Number)
		titles = append(titles, tk.Title)
	}
	assert.Len(t, titles, 20)

	for it, err := range s.All(ctx, "projectA", dynamoseq.NewestFirst) {
		require.NoError(t, err)
		var raw map[string]types.AttributeValue
		require.NoError(t, it.Decode(&raw))
		assert.Equal(t, int64(20), it.Number)
		assert.Equal(t, &types.AttributeValueMemberS{Value: "t20"}, raw["title"])
		assert.NotContains(t, raw, "pk", "the keys are left out")
		break
	}

	// An item that does not fit the type is an error.
	type wrong struct {
		Title int `dynamodbav:"title"`
	}
	for it, err := range s.All(ctx, "projectA", dynamoseq.NewestFirst) {
		require.NoError(t, err)
		var w wrong
		assert.ErrorIs(t, it.Decode(&w), dynamoseq.ErrTableMismatch, "Decode of item %d into the wrong type", it.Number)
		break
	}
}

// TestSortKeyAllMeanwhile cancels the context in the middle of a loop, and
// appends while a loop runs: OldestFirst lists the new items, NewestFirst
// does not.
func TestSortKeyAllMeanwhile(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	calls := &callCounter{Client: client}
	s, err := dynamoseq.NewSortKey(calls, dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN))
	require.NoError(t, err)
	appendTickets(t, s, "projectA", 20)

	calls.reset()
	all := func(ctx context.Context) iter.Seq2[dynamoseq.Item, error] {
		return s.All(ctx, "projectA", dynamoseq.OldestFirst)
	}
	assert.Equal(t, span(1, 5), requireCancelEnds(t, all, 5, "SortKey.All"), "items before the cancel")
	assert.Equal(t, int64(1), calls.queries.Load(), "Queries")

	ctx := context.Background()
	last := int64(20)
	appendOne := func() {
		last++
		n, err := s.Append(ctx, "projectA", ticket{Title: "t" + strconv.FormatInt(last, 10)})
		require.NoError(t, err)
		require.Equal(t, last, n)
	}
	var got []int64
	for it, err := range s.All(ctx, "projectA", dynamoseq.OldestFirst) {
		require.NoError(t, err)
		got = append(got, it.Number)
		if it.Number == 3 {
			appendOne() // on the second page of an OldestFirst loop
		}
	}
	assert.Equal(t, span(1, 21), got, "OldestFirst with an append during the first page")

	got = nil
	for it, err := range s.All(ctx, "projectA", dynamoseq.NewestFirst) {
		require.NoError(t, err)
		got = append(got, it.Number)
		if it.Number == 21 {
			appendOne()
		}
	}
	assert.Equal(t, span(21, 1), got, "NewestFirst with an append during the loop")
}

// TestLatestAll ranges over a document's versions in both orders, in each
// layout, with and without transactions, and checks what each loop reads:
// pages of 16, then 32, read as the loop reaches them, none after a break.
func TestLatestAll(t *testing.T) {
	t.Parallel()
	for _, layout := range latestLayouts {
		for _, noTx := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/NoTransactions=%v", layout.name, noTx), func(t *testing.T) {
				t.Parallel()
				var calls *callCounter
				wrap := func(c dynamoseq.Client) dynamoseq.Client { calls = &callCounter{Client: c}; return calls }
				l, _, _ := newLatest(t, layout, wrap, func(o *dynamoseq.LatestOptions) { o.NoTransactions = noTx })
				ctx := context.Background()
				for i := 1; i <= 20; i++ {
					_, err := l.Append(ctx, "doc1", page{ID: strconv.Itoa(i)})
					require.NoError(t, err)
				}

				// Reads per loop: Queries with a sort key; without one a GetItem
				// of 'latest' (first page NewestFirst, every page OldestFirst),
				// and one per version asked for, including the one above
				// 'latest' that single-item writes may have left.
				above := int64(0)
				if noTx {
					above = 1
				}
				tests := []struct {
					name          string
					order         dynamoseq.Order
					stop          int
					want          []int64
					queries, gets int64
				}{
					{"newest first", dynamoseq.NewestFirst, 0, span(20, 1), 2, 1 + 20 + above},
					{"oldest first", dynamoseq.OldestFirst, 0, span(1, 20), 2, 2 + 20 + above},
					{"break in the first page", dynamoseq.NewestFirst, 3, span(20, 18), 1, 1 + 16},
					{"break at the end of the first page", dynamoseq.OldestFirst, 16, span(1, 16), 1, 1 + 16},
				}
				for _, tt := range tests {
					calls.reset()
					got, err := numbers(l.All(ctx, "doc1", tt.order), tt.stop)
					require.NoError(t, err, tt.name)
					assert.Equal(t, tt.want, got, tt.name)
					if layout.name == "partitionkey" {
						assert.Equal(t, tt.gets, calls.gets.Load(), "%s: GetItems", tt.name)
					} else {
						assert.Equal(t, tt.queries, calls.queries.Load(), "%s: Queries", tt.name)
					}
				}

				for v, err := range l.All(ctx, "doc1", dynamoseq.OldestFirst) {
					require.NoError(t, err)
					var p page
					require.NoError(t, v.Decode(&p))
					require.Equal(t, strconv.FormatInt(v.Number, 10), p.ID, "version %d", v.Number)
				}
				got, err := numbers(l.All(ctx, "missing", dynamoseq.NewestFirst), 0)
				require.NoError(t, err)
				assert.Empty(t, got, "a document with no version")
				_, err = numbers(l.All(ctx, "", dynamoseq.NewestFirst), 0)
				assert.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "All with an empty name")
			})
		}
	}
}

// TestLatestAllMeanwhile cancels the context in the middle of a loop, and
// appends while a loop runs: OldestFirst lists the new version, NewestFirst
// does not.
func TestLatestAllMeanwhile(t *testing.T) {
	t.Parallel()
	for _, layout := range []latestLayout{latestLayouts[0], latestLayouts[2]} {
		t.Run(layout.name, func(t *testing.T) {
			t.Parallel()
			l, _, _ := newLatest(t, layout, nil)
			for range 20 {
				_, err := l.Next(context.Background(), "doc1")
				require.NoError(t, err)
			}

			all := func(ctx context.Context) iter.Seq2[dynamoseq.Item, error] {
				return l.All(ctx, "doc1", dynamoseq.NewestFirst)
			}
			assert.Equal(t, span(20, 18), requireCancelEnds(t, all, 18, "Latest.All"), "versions before the cancel")

			ctx := context.Background()
			for _, tt := range []struct {
				order dynamoseq.Order
				at    int64 // the version at which the loop appends one
				want  []int64
			}{
				{dynamoseq.OldestFirst, 2, span(1, 21)},
				{dynamoseq.NewestFirst, 21, span(21, 1)},
			} {
				var got []int64
				for v, err := range l.All(ctx, "doc1", tt.order) {
					require.NoError(t, err)
					got = append(got, v.Number)
					if v.Number == tt.at {
						_, err := l.Next(ctx, "doc1")
						require.NoError(t, err)
					}
				}
				assert.Equal(t, tt.want, got, "%v with an append during the loop", tt.order)
			}
		})
	}
}
