package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
)

// invoiceFormat is how the invoicing service of issue 27 writes its IDs.
var invoiceFormat = dynamoseq.Format{Prefix: "INV", DateLayout: "2006", Separator: "-", Width: 6}

// invoiceFlags are the flags that give the command invoiceFormat.
var invoiceFlags = []string{"--id-prefix", "INV", "--id-separator", "-", "--id-date-layout", "2006", "--id-width", "6"}

// seedInvoices creates a SortKey table and appends, with a SortKeyIDMinter over
// a SortKey of yearly periods in 2026, three invoices for acme and one for
// globex, as the service of issue 27 does.
func seedInvoices(t *testing.T, run runFunc, client *dynamodb.Client) string {
	t.Helper()
	table := newTable(t, client)
	run(t, "create-table", "--kind", "sortkey", "--table", table).ok(t)
	s, err := dynamoseq.NewSortKey(client, table)
	require.NoError(t, err)
	m, err := dynamoseq.NewSortKeyIDMinter(s, invoiceFormat, dynamoseq.Yearly, func(o *dynamoseq.IDMinterOptions) {
		o.Now = func() time.Time { return time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC) }
	})
	require.NoError(t, err)
	for i, tenant := range []string{"acme", "acme", "globex", "acme"} {
		_, err := m.Append(context.Background(), tenant, map[string]any{"total": 100 * (i + 1)})
		require.NoError(t, err)
	}
	return table
}

// testInvoices reads the invoices of issue 27 back as an operator writes
// them: by readable ID, by tenant with --period, and from hints pasted
// back as they are printed.
func testInvoices(t *testing.T, run runFunc, client *dynamodb.Client) {
	table := seedInvoices(t, run, client)
	year := []string{"--table", table, "--period", "year"}
	with := func(args ...string) []string { return append(append(args, year...), invoiceFlags...) }

	// A readable ID without the Format: the flags that read it, pasted back.
	r := run(t, append([]string{"get", "acme", "INV-2026-000002"}, year...)...)
	assert.Equal(t, 2, r.code, "stderr:\n%s", r.stderr)
	want := `VERSION is "INV-2026-000002", want a positive whole number; to read it as a readable ID, give the IDMinter's Format: ` +
		"--id-prefix INV --id-separator - --id-date-layout 2006 --id-width 6\n"
	assert.Contains(t, r.stderr, want)
	assert.Equal(t, "INV-2026-000002\t{\"total\":200}\n", run(t, with("get", "acme", "INV-2026-000002")...).ok(t))
	doc := jsonOf[document](t, run(t, with("get", "globex", "INV-2026-000001", "--output", "json")...))
	assert.Equal(t, document{Version: 1, ID: "INV-2026-000001", Item: map[string]any{"total": "300"}}, roundNumbers(doc))
	r = run(t, with("get", "acme", "INV-2026-000009")...)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `sequence "acme#2026": not found`)
	r = run(t, with("get", "acme", "INV-2026-000002", "--date", "2025")...)
	assert.Equal(t, 2, r.code, "--date beside an ID; stderr:\n%s", r.stderr)
	assert.Contains(t, r.stderr, "--date is not read with a readable ID: its date names the period")
	r = run(t, with("get", "acme", "ORD-2026-000002")...)
	assert.Equal(t, 2, r.code, "an ID of another prefix; stderr:\n%s", r.stderr)
	assert.Contains(t, r.stderr, `does not start with "INV-"`)

	// A base name with --period, IDs beside numbers.
	assert.Equal(t, "INV-2026-000003\t{\"total\":400}\nINV-2026-000002\t{\"total\":200}\nINV-2026-000001\t{\"total\":100}\n",
		run(t, with("versions", "acme", "--date", "2026")...).ok(t))
	assert.Equal(t, "3\tINV-2026-000003\n", run(t, with("current", "acme", "--date", "2026-06-30")...).ok(t))

	// A misspelt tenant: the hint names the tenant as --period takes it.
	r = run(t, append([]string{"current", "acmee", "--date", "2026"}, year...)...)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "the closest of the table's 2 names, as NAME with --period year: acme\n")
	assert.Equal(t, "3\n", run(t, append([]string{"current", "acme", "--date", "2026"}, year...)...).ok(t), "the hint pasted back")
	r = run(t, append([]string{"current", "acme", "--date", "2027"}, year...)...)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "as NAME with --period year: acme --date 2026\n")
}

// roundNumbers writes the JSON numbers of doc's item as strings, to compare.
func roundNumbers(doc document) document {
	for k, v := range doc.Item {
		doc.Item[k] = fmt.Sprint(v)
	}
	return doc
}

// testListKinds lists the sequences of every kind: the invoices of issue
// 27 (SortKey, yearly), Latest documents in both layouts, and a Block's
// counter as the range it leased.
func testListKinds(t *testing.T, run runFunc, client *dynamodb.Client) {
	invoices := seedInvoices(t, run, client)
	r := run(t, "list", "--period", "year", "--date", "2026", "--table", invoices)
	assert.Equal(t, "acme#2026\tsortkey\t3\nglobex#2026\tsortkey\t1\n", r.ok(t))
	r = run(t, "list", "--period", "day", "--date", "2026-03-01", "--table", invoices)
	assert.Empty(t, r.ok(t))
	assert.Contains(t, r.stderr, `no sequences in table "`+invoices+`" whose name ends with "#20260301"; it holds 2 SortKey sequences`)

	docs, pkDocs := newTable(t, client), newTable(t, client)
	run(t, "create-table", "--kind", "latest", "--table", docs).ok(t)
	run(t, "create-table", "--kind", "latest", "--layout", "partitionkey", "--table", pkDocs).ok(t)
	run(t, "next", "doc1", "-n", "3", "--write", "--kind", "latest", "--table", docs).ok(t)
	run(t, "next", "tickets", "-n", "2", "--write", "--kind", "sortkey", "--table", docs).ok(t)
	assert.Equal(t, "doc1\tlatest\t3\ntickets\tsortkey\t2\n", run(t, "list", "--table", docs).ok(t))
	assert.Equal(t, "doc1\tlatest\t3\n", run(t, "list", "--table", docs, "--kind", "latest").ok(t))
	run(t, "next", "doc2", "-n", "2", "--write", "--kind", "latest", "--layout", "partitionkey", "--table", pkDocs).ok(t)
	run(t, "next", "orders", "--kind", "counter", "--table", pkDocs).ok(t)
	r = run(t, "list", "--table", pkDocs)
	assert.Equal(t, "doc2\tlatest\t2\norders\tcounter\t1\n", r.ok(t))
	assert.Contains(t, r.stderr, "a counter's value is the last number it handed out, or the end of the ranges a Block leased: --kind block lists counters as Blocks'")

	// A Block leases a range: its counter holds the range's end.
	ctx := context.Background()
	counter, err := dynamoseq.NewCounter(client, pkDocs)
	require.NoError(t, err)
	block, err := dynamoseq.NewBlock(counter, 1000)
	require.NoError(t, err)
	n, err := block.Next(ctx, "audit")
	require.NoError(t, err)
	assert.Equal(t, int64(1), n)
	assert.Equal(t, "audit\tblock\tleased up to 1000\norders\tblock\tleased up to 1\n", run(t, "list", "--table", pkDocs, "--kind", "block").ok(t),
		"while the Block runs")
	got := jsonOf[[]listed](t, run(t, "list", "--table", pkDocs, "--kind", "block", "--prefix", "au", "--output", "json"))
	assert.Equal(t, []listed{{Sequence: "audit", Kind: "block", Value: 1000}}, got)
	require.NoError(t, block.Close()) // hands the unused numbers back
	assert.Equal(t, "audit\tblock\tleased up to 1\n", run(t, "list", "--table", pkDocs, "--kind", "block", "--prefix", "au").ok(t))
}
