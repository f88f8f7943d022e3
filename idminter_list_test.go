package dynamoseq_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// invoice is the item of the listing tests: its created_at is the instant
// given to AppendAt.
type invoice struct {
	Customer  string    `dynamodbav:"customer"`
	CreatedAt time.Time `dynamodbav:"created_at"`
}

// listIDs ranges over m.All and returns the IDs listed, checking that each
// item decodes to the invoice stored under its ID.
func listIDs(t *testing.T, m *dynamoseq.SortKeyIDMinter, since time.Time, after string, order dynamoseq.Order, stored map[string]invoice) []string {
	t.Helper()
	ids := []string{}
	for it, err := range m.All(context.Background(), "acme", since, after, order) {
		require.NoError(t, err, "All(since %v, after %q, %v)", since, after, order)
		var inv invoice
		require.NoError(t, it.Decode(&inv), "Decode of %s", it.ID)
		assert.Equal(t, stored[it.ID], inv, "the invoice listed as %s (number %d)", it.ID, it.Number)
		ids = append(ids, it.ID)
	}
	return ids
}

// TestSortKeyIDMinterAllAcrossYears lists invoices of 2024, an empty 2025,
// 2026 and 2027 (the last of 2026 and the first of 2027 minted by the
// clock across New Year's Eve), newest and oldest first, from cursors that
// land on the years' boundaries, and page by page.
func TestSortKeyIDMinterAllAcrossYears(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := dbtest.Client(t)
	table := dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN)
	clock := newTestClock(time.Date(2026, 12, 31, 23, 59, 59, 800_000_000, time.UTC))
	m := newSortKeyMinter(t, client, table, clock.Now)

	stored := map[string]invoice{}
	appendAt := func(at time.Time, customer string) string {
		t.Helper()
		inv := invoice{Customer: customer, CreatedAt: at.UTC()}
		id, err := m.AppendAt(ctx, "acme", at, inv)
		require.NoError(t, err, "AppendAt(%v)", at)
		stored[id] = inv
		return id
	}
	var want []string // newest last
	for _, at := range []time.Time{
		time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 12, 31, 23, 0, 0, 0, time.UTC),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC),
	} {
		want = append(want, appendAt(at, "c"+at.Format("20060102")))
	}
	// New Year's Eve: the instant the clock gives is the one AppendAt dates.
	for _, customer := range []string{"eve", "midnight", "after"} {
		at := clock.Now()
		want = append(want, appendAt(at, customer))
		clock.Set(at.Add(300 * time.Millisecond))
	}
	require.Equal(t, []string{"ORD-2024-000001", "ORD-2024-000002", "ORD-2026-000001", "ORD-2026-000002",
		"ORD-2026-000003", "ORD-2027-000001", "ORD-2027-000002"}, want, "IDs minted")
	newest := make([]string, len(want))
	for i, id := range want {
		newest[len(want)-1-i] = id
	}

	since := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	assert.Equal(t, newest, listIDs(t, m, since, "", dynamoseq.NewestFirst, stored), "newest first")
	assert.Equal(t, want, listIDs(t, m, since, "", dynamoseq.OldestFirst, stored), "oldest first")
	for _, tt := range []struct {
		after string
		order dynamoseq.Order
		want  []string
	}{
		{"ORD-2027-000001", dynamoseq.NewestFirst, newest[2:]}, // on the boundary: 2026 next
		{"ORD-2026-000001", dynamoseq.NewestFirst, newest[5:]}, // across the empty 2025
		{"ORD-2024-000001", dynamoseq.NewestFirst, []string{}},
		{"ORD-2026-000003", dynamoseq.OldestFirst, want[5:]}, // on the boundary: 2027 next
		{"ORD-2024-000002", dynamoseq.OldestFirst, want[2:]}, // across the empty 2025
		{"ORD-2025-000009", dynamoseq.OldestFirst, want[2:]}, // a cursor in the empty year
		{"ORD-2027-000002", dynamoseq.OldestFirst, []string{}},
	} {
		assert.Equal(t, tt.want, listIDs(t, m, since, tt.after, tt.order, stored), "after %s, %v", tt.after, tt.order)
	}
	assert.Equal(t, newest[:5], listIDs(t, m, time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), "", dynamoseq.NewestFirst, stored),
		"newest first since mid-2025: 2024 is not walked")

	// Pages of 3, each cursor the last ID of the page before, as a web
	// handler's ?after= would carry it.
	for _, order := range []dynamoseq.Order{dynamoseq.NewestFirst, dynamoseq.OldestFirst} {
		var got []string
		for after, pages := "", 0; pages < 10; pages++ {
			page := []string{}
			for it, err := range m.All(ctx, "acme", since, after, order) {
				require.NoError(t, err)
				if page = append(page, it.ID); len(page) == 3 {
					break
				}
			}
			if len(page) == 0 {
				break
			}
			got, after = append(got, page...), page[len(page)-1]
		}
		wantAll := want
		if order == dynamoseq.NewestFirst {
			wantAll = newest
		}
		assert.Equal(t, wantAll, got, "pages of 3, %v", order)
	}

	// The cost: one Query per period walked, 2027 to 2024 (the empty 2025
	// too), and a first page of three reads 2027 and 2026 only.
	calls := &callCounter{Client: client}
	counted := newSortKeyMinter(t, calls, table, clock.Now)
	assert.Equal(t, newest, listIDs(t, counted, since, "", dynamoseq.NewestFirst, stored), "newest first, counted")
	assert.Equal(t, int64(4), calls.queries.Load(), "Queries to list four years")
	calls.reset()
	n := 0
	for _, err := range counted.All(ctx, "acme", since, "", dynamoseq.NewestFirst) {
		require.NoError(t, err)
		if n++; n == 3 {
			break
		}
	}
	assert.Equal(t, int64(2), calls.queries.Load(), "Queries for a first page of three (2027's two, 2026's first)")
	assert.Equal(t, int64(0), calls.total()-calls.queries.Load(), "calls other than Query")
}

// TestSortKeyIDMinterReadBack checks Get and All's refusals, and that
// AppendAt dates the ID with its instant.
func TestSortKeyIDMinterReadBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := dbtest.Client(t)
	table := dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN)
	clock := newTestClock(time.Date(2027, 1, 1, 0, 0, 0, 100, time.UTC))
	m := newSortKeyMinter(t, client, table, clock.Now)

	eve := time.Date(2026, 12, 31, 23, 59, 59, 999_999_999, time.UTC)
	id, err := m.AppendAt(ctx, "acme", eve, invoice{Customer: "eve", CreatedAt: eve})
	require.NoError(t, err)
	require.Equal(t, "ORD-2026-000001", id, "AppendAt on New Year's Eve after the clock's midnight")
	var inv invoice
	require.NoError(t, m.Get(ctx, "acme", id, &inv))
	assert.Equal(t, invoice{Customer: "eve", CreatedAt: eve}, inv, "Get(%s)", id)

	err = m.Get(ctx, "acme", "ORD-2026-000002", &inv)
	assert.ErrorIs(t, err, dynamoseq.ErrNotFound, "Get of a well-formed ID not stored")
	for _, bad := range []string{"ORD-2026-00000x", "INV-2026-000001", "ORD-26-000001", "ORD-2026-0000001"} {
		err := m.Get(ctx, "acme", bad, &inv)
		require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "Get(%q)", bad)
		assert.Contains(t, err.Error(), bad, "Get(%q)'s message names the ID", bad)
	}

	s, err := dynamoseq.NewSortKey(client, table)
	require.NoError(t, err)
	daily := dynamoseq.Format{Prefix: "ORD", DateLayout: "20060102", Separator: "-", Width: 6}
	_, err = dynamoseq.NewSortKeyIDMinter(s, daily, dynamoseq.Yearly)
	assert.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "a day's date in a yearly period: a listed ID would not read as the one Append returned")

	_, err = m.AppendAt(ctx, "acme", time.Time{}, nil)
	assert.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "AppendAt at the zero instant")
	for _, tt := range []struct {
		name  string
		since time.Time
		after string
		order dynamoseq.Order
	}{
		{"zero since without a TTL", time.Time{}, "", dynamoseq.NewestFirst},
		{"unreadable cursor", eve, "ORD-2026", dynamoseq.NewestFirst},
		{"bad order", eve, "", dynamoseq.Order(7)},
	} {
		n := 0
		for _, err := range m.All(ctx, "acme", tt.since, tt.after, tt.order) {
			n++
			assert.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, tt.name)
		}
		assert.Equal(t, 1, n, "%s: iterations, want the error alone", tt.name)
	}

	// With a TTL, an instant whose period's items may be gone is refused,
	// and a zero since lists the periods the TTL keeps.
	ttl, err := dynamoseq.NewSortKeyIDMinter(s, yearly, dynamoseq.Yearly, func(o *dynamoseq.IDMinterOptions) {
		o.Now = clock.Now
		o.TTLAttribute = "expires"
		o.TTLRetention = 24 * time.Hour
	})
	require.NoError(t, err)
	_, err = ttl.AppendAt(ctx, "acme", time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), nil)
	assert.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "AppendAt in a period that ended beyond the retention")
	var listed []string
	for it, err := range ttl.All(ctx, "acme", time.Time{}, "", dynamoseq.NewestFirst) {
		require.NoError(t, err)
		listed = append(listed, it.ID)
	}
	assert.Equal(t, []string{"ORD-2026-000001"}, listed, "a zero since with a TTL of a day lists 2027 and 2026")
}
