package main

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testUnasked runs next on gap-free sequences without --write: exit
// status 2, what it would store, and the table unchanged, item for item.
func testUnasked(t *testing.T, run runFunc, client *dynamodb.Client) {
	items, docs := newTable(t, client), newTable(t, client)
	run(t, "create-table", "--kind", "sortkey", "--table", items).ok(t)
	run(t, "create-table", "--kind", "latest", "--table", docs).ok(t)
	run(t, "next", "acme", "-n", "2", "--write", "--table", items, "--period", "year", "--date", "2026").ok(t)
	run(t, "next", "doc1", "--write", "--kind", "latest", "--table", docs).ok(t)

	for _, tc := range []struct {
		table string
		args  []string
		want  string
	}{
		{items, []string{"next", "zz-test", "--period", "year", "--date", "2026"},
			`nothing written: table "` + items + `", sequence "zz-test#2026" is a SortKey sequence, gap-free: next would store an empty item under number 1,`},
		{items, []string{"next", "acme", "-n", "3", "--period", "year", "--date", "2026"},
			`sequence "acme#2026" is a SortKey sequence, gap-free: next would store 3 empty items under numbers 3 to 5,`},
		{items, []string{"next", "fresh", "--kind", "sortkey", "--start", "100"}, "an empty item under number 100,"},
		{docs, []string{"next", "doc1"}, `sequence "doc1" is a Latest document, gap-free: next would store an empty version 2 and make it the 'latest' one,`},
		{docs, []string{"next", "doc1", "--kind", "latest", "--write=false"}, "Pass --write to store"},
	} {
		before := scanAll(t, client, tc.table)
		r := run(t, append(tc.args, "--table", tc.table)...)
		assert.Equal(t, 2, r.code, "dynamoseq %q: exit status; stderr:\n%s", tc.args, r.stderr)
		assert.Empty(t, r.stdout, "dynamoseq %q", tc.args)
		assert.Contains(t, r.stderr, tc.want, "dynamoseq %q", tc.args)
		assert.Contains(t, r.stderr, "a gap-free sequence cannot take a stored number back", "dynamoseq %q", tc.args)
		assert.Equal(t, before, scanAll(t, client, tc.table), "dynamoseq %q changed the table", tc.args)
	}
	assert.Equal(t, "3\n", run(t, "next", "acme", "--write", "--table", items, "--period", "year", "--date", "2026").ok(t))
	assert.Equal(t, "2\n", run(t, "next", "doc1", "--write", "--table", docs).ok(t))

	// A counter is not gap-free: next takes its numbers with or without --write.
	counters := newTable(t, client)
	run(t, "create-table", "--kind", "counter", "--table", counters).ok(t)
	assert.Equal(t, "1\n", run(t, "next", "orders", "--table", counters).ok(t))
	assert.Equal(t, "2\n", run(t, "next", "orders", "--write", "--table", counters).ok(t))
}

// scanAll returns every item of table, in the order of one Scan.
func scanAll(t *testing.T, client *dynamodb.Client, table string) []map[string]types.AttributeValue {
	t.Helper()
	var all []map[string]types.AttributeValue
	p := dynamodb.NewScanPaginator(client, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		require.NoError(t, err, "Scan %s", table)
		all = append(all, out.Items...)
	}
	return all
}
