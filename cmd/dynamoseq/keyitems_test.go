package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// TestListLeavesKeyItemsOut: the key items of AppendOnce and NextOnce
// (docs/idempotency.md) are no sequences: list shows the sequences only,
// and a name's hints never offer a key item.
func TestListLeavesKeyItemsOut(t *testing.T) {
	srv := dynamoseqtest.Start(t)
	client := srv.Client()
	run := func(t *testing.T, args ...string) result {
		t.Helper()
		t.Setenv("AWS_ACCESS_KEY_ID", "dynamoseq")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "dynamoseq")
		t.Setenv("AWS_REGION", "us-east-1")
		t.Setenv("AWS_ENDPOINT_URL", srv.Endpoint())
		t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, &stdout, &stderr)
		return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
	}
	ctx := context.Background()

	items, counters := newTable(t, client), newTable(t, client)
	run(t, "create-table", "--kind", "sortkey", "--table", items).ok(t)
	run(t, "create-table", "--kind", "counter", "--table", counters).ok(t)
	s, err := dynamoseq.NewSortKey(client, items)
	require.NoError(t, err)
	l, err := dynamoseq.NewLatest(client, items)
	require.NoError(t, err)
	c, err := dynamoseq.NewCounter(client, counters)
	require.NoError(t, err)
	for _, key := range []string{"req-1", "req-2", "req-1"} {
		_, _, err := s.AppendOnce(ctx, "tickets", key, nil)
		require.NoError(t, err)
		_, _, err = l.AppendOnce(ctx, "doc1", key, nil)
		require.NoError(t, err)
		_, _, err = c.NextOnce(ctx, "orders", key)
		require.NoError(t, err)
	}

	assert.Equal(t, "doc1\tlatest\t2\ntickets\tsortkey\t2\n", run(t, "list", "--table", items).ok(t))
	assert.Equal(t, "orders\tcounter\t3\n", run(t, "list", "--table", counters).ok(t))
	r := run(t, "current", "ticket", "--kind", "sortkey", "--table", items)
	assert.Equal(t, 1, r.code, "a misspelt name; stderr:\n%s", r.stderr)
	assert.Contains(t, r.stderr, "the closest of the table's 2 names: tickets\n", "the hint counts doc1 and tickets, no key item")
	assert.False(t, strings.Contains(r.stderr, "\x1f") || strings.Contains(r.stderr, "req-"), "a hint offers a key item:\n%s", r.stderr)
}
