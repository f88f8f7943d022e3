package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

func TestMain(m *testing.M) {
	dynamoseqtest.Main(m)
}

// TestCommand builds the command once and runs it, as an operator would,
// against DynamoDB Local.
func TestCommand(t *testing.T) {
	bin := build(t)
	srv := dynamoseqtest.Start(t)
	endpoint, client := srv.Endpoint(), srv.Client()
	run := func(t *testing.T, args ...string) result {
		t.Helper()
		return runBinary(t, bin, endpoint, nil, args...)
	}
	t.Run("usage", func(t *testing.T) {
		// The exit statuses of the process; TestUsage checks the messages.
		assert.Equal(t, 2, run(t, "next", "orders", "--table", "Seq", "--bogus").code)
		assert.Contains(t, run(t, "next", "--help").ok(t), "usage: dynamoseq next NAME")
	})
	t.Run("counter", func(t *testing.T) { testCounter(t, run, client) })
	t.Run("check", func(t *testing.T) { testCheck(t, run, client) })
	t.Run("single-table", func(t *testing.T) { testSingleTable(t, run, client) })
	t.Run("latest", func(t *testing.T) { testLatest(t, run, client) })
	t.Run("sortkey", func(t *testing.T) { testSortKey(t, run, client) })
	t.Run("kind", func(t *testing.T) { testKindRule(t, run, client) })
	t.Run("period", func(t *testing.T) { testPeriod(t, run, client) })
	t.Run("typos", func(t *testing.T) { testTypos(t, run, client) })
	t.Run("bench", func(t *testing.T) { testBench(t, run, client) })
	t.Run("profile", func(t *testing.T) { testProfile(t, bin, endpoint, client) })
	t.Run("environment", func(t *testing.T) { testEnvironment(t, bin, endpoint, client) })
	t.Run("kind flags", func(t *testing.T) { testKindFlags(t, run, bin, endpoint, client) })
	t.Run("unasked", func(t *testing.T) { testUnasked(t, run, client) })
	t.Run("invoices", func(t *testing.T) { testInvoices(t, run, client) })
	t.Run("list kinds", func(t *testing.T) { testListKinds(t, run, client) })
}

// result is what one run of the command printed and its exit status.
type result struct {
	stdout, stderr string
	code           int
}

type runFunc func(t *testing.T, args ...string) result

// build compiles the command into a temporary directory. It is built
// without the race detector, which makes each run start several times
// slower; TestUsage and TestBenchInProcess run the same code in the test
// binary, under the race detector when the tests run with it.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "dynamoseq")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// runBinary runs the built command with credentials and Region for
// DynamoDB Local in its environment and no shared AWS files, so that the
// machine's own AWS settings play no part; env overrides these. --endpoint-url
// is added after the arguments, as a user may write it, unless endpoint is "".
func runBinary(t *testing.T, bin, endpoint string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if endpoint != "" {
		args = append(args, "--endpoint-url", endpoint)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(),
		"AWS_ACCESS_KEY_ID=dynamoseq", "AWS_SECRET_ACCESS_KEY=dynamoseq", "AWS_REGION=us-east-1",
		"AWS_CONFIG_FILE="+filepath.Join(t.TempDir(), "none"), "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(t.TempDir(), "none"),
		"AWS_EC2_METADATA_DISABLED=true", "AWS_PROFILE=", "AWS_DEFAULT_PROFILE=")
	cmd.Env = append(cmd.Env, env...) // os/exec keeps the last value of a variable
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("dynamoseq %s: %v", strings.Join(args, " "), err)
	}
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// runInProcess runs a command line in the test's process, with the
// credentials and Region of DynamoDB Local, and without --endpoint-url an
// endpoint on loopback where nothing listens: a command line that should
// not reach DynamoDB never reaches AWS.
func runInProcess(t *testing.T, args ...string) result {
	t.Helper()
	t.Setenv("AWS_ACCESS_KEY_ID", "dynamoseq")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "dynamoseq")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// ok fails the test unless the run succeeded, and returns its stdout.
func (r result) ok(t *testing.T) string {
	t.Helper()
	require.Equal(t, 0, r.code, "exit status; stderr:\n%s", r.stderr)
	return r.stdout
}

// jsonOf decodes a run's JSON output into a value of type T.
func jsonOf[T any](t *testing.T, r result) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal([]byte(r.ok(t)), &v), "stdout:\n%s", r.stdout)
	return v
}

// newTable returns a table name for the test and deletes the table, if the
// command created it, when the test ends.
func newTable(t *testing.T, client *dynamodb.Client) string {
	t.Helper()
	name := dbtest.TableName(t)
	t.Cleanup(func() {
		_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return name
}

// TestUsage runs command lines with mistakes in this process: none of them
// reaches DynamoDB.
func TestUsage(t *testing.T) {
	run := func(t *testing.T, args ...string) result { return runInProcess(t, args...) }
	for _, args := range [][]string{
		{},
		{"nosuch", "--table", "Seq"},
		{"next", "--table", "Seq"},           // no NAME
		{"next", "a", "b", "--table", "Seq"}, // two NAMEs
		{"next", "orders"},                   // no --table
		{"next", "orders", "--table", "Seq", "--bogus"},     // unknown flag
		{"next", "orders", "--table", "Seq", "-n", "0"},     // count below 1
		{"next", "orders", "--table", "Seq", "-n", "many"},  // not a number
		{"next", "orders", "--table", "Seq", "--kind", "x"}, // unknown kind
		{"next", "orders", "--table", "Seq", "--output", "yaml"},
		{"advance", "orders", "ten", "--table", "Seq"},
		{"create-table", "--table", "Seq"}, // no --kind
		{"create-table", "--table", "Seq", "--kind", "counter", "--print", "terraform"},
		{"next", "orders", "--table", "Seq", "--kind", "counter", "--start", "-3"}, // the library refuses the option
	} {
		r := run(t, args...)
		assert.Equal(t, 2, r.code, "dynamoseq %q: exit status; stderr:\n%s", args, r.stderr)
		assert.Contains(t, r.stderr, "usage", "dynamoseq %q", args)
		assert.Empty(t, r.stdout, "dynamoseq %q", args)
	}
	for _, c := range commands() {
		out := run(t, c.name, "--help").ok(t)
		assert.Contains(t, out, "usage: dynamoseq "+c.name, "%s --help", c.name)
		assert.Contains(t, out, "--table", "%s --help", c.name)
	}
	assert.Contains(t, run(t, "--help").ok(t), "bench")
	assert.Contains(t, run(t, "help", "get").ok(t), "usage: dynamoseq get NAME [VERSION]")
}

// TestMessages checks what the help and the errors of the command line
// say: flags written as an operator types them, never Go options.
func TestMessages(t *testing.T) {
	run := func(t *testing.T, args ...string) result { return runInProcess(t, args...) }
	for _, c := range commands() {
		out := run(t, c.name, "--help").ok(t)
		for _, line := range strings.Split(out, "\n") {
			assert.False(t, strings.HasSuffix(line, " "), "%s --help: trailing space in %q", c.name, line)
			assert.LessOrEqual(t, strings.Count(line, "(default"), 1, "%s --help: %q", c.name, line)
			if strings.HasPrefix(line, "  -") {
				assert.False(t, strings.HasSuffix(line, " value"), "%s --help: a flag without its type: %q", c.name, line)
			}
		}
		assert.Contains(t, out, "--output text|json")
	}
	bench := run(t, "bench", "--help").ok(t)
	assert.Contains(t, bench, "  --kind counter|block|sortkey|latest\n")
	assert.Contains(t, bench, "  --baseline[=false]\n")
	assert.Contains(t, bench, "how long an adaptive range should last (default 10s)\n")
	assert.Contains(t, run(t, "--help").ok(t), "Print a version of a Latest document, or a SortKey item")

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"next", "orders", "--table", "Seq", "--bogus"}, "unknown flag: --bogus\n"},
		{[]string{"next", "orders", "--table", "Seq", "--kind", "x"}, `invalid argument "x" for "--kind" flag: want counter, sortkey, latest`},
		{[]string{"next", "orders", "--table", "Seq", "--output", "yaml"}, `invalid argument "yaml" for "--output" flag: want text, json`},
		{[]string{"next", "orders", "--table", "Seq", "--kind", "counter", "--start", "-3"}, "invalid argument: --start is -3, want at least 1"},
		{[]string{"next", "orders", "--table", "Seq", "--kind", "counter", "--start", "9", "--max-value", "5"}, "invalid argument: --max-value is 5, below the first value (--start is 9)"},
		{[]string{"bench", "--table", "Seq", "--kind", "block", "--min-block-size", "2000"}, "--min-block-size is 2000"},
		{[]string{"next", "orders", "--table", "Seq", "--kind", "counter", "--regions", "a,b"}, "invalid argument: --regions is a,b, read only on a multi-Region eventually consistent table (--global-table is none)"},
	} {
		r := run(t, tc.args...)
		assert.Equal(t, 2, r.code, "dynamoseq %q", tc.args)
		assert.Contains(t, r.stderr, tc.want, "dynamoseq %q", tc.args)
	}
	assert.Equal(t, 0, run(t, "next", "--help", "--global-table", "MREC").code, "choices in any letter case")
	assert.Equal(t, "SequenceTable", logicalID("_-."))
	assert.Equal(t, "OrdersProd2", logicalID("orders-prod.2"))
}

func testCounter(t *testing.T, run runFunc, client *dynamodb.Client) {
	table := newTable(t, client)
	assert.Equal(t, "table "+table+" created: pk (S, HASH)\n", run(t, "create-table", "--table", table, "--kind", "counter").ok(t))
	assert.Equal(t, "table "+table+" exists: pk (S, HASH); nothing changed\n", run(t, "create-table", "--table", table, "--kind", "counter").ok(t))
	// TTL on the existing table: said, once.
	assert.Equal(t, "table "+table+` exists: pk (S, HASH); changed: Time to Live enabled on "expires" (it was DISABLED)`+"\n",
		run(t, "create-table", "--table", table, "--kind", "counter", "--ttl", "expires").ok(t))
	got := jsonOf[created](t, run(t, "create-table", "--table", table, "--kind", "counter", "--ttl", "expires", "--output", "json"))
	assert.Equal(t, created{Table: table, Key: "pk (S, HASH)", Changes: []string{}}, got)
	r := run(t, "create-table", "--table", table, "--kind", "sortkey")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "does not match")

	// Flags before and after the positional arguments.
	assert.Equal(t, "1\n", run(t, "--table", table, "next", "orders").ok(t))
	assert.Equal(t, "2\n3\n4\n", run(t, "next", "orders", "-n", "3", "--table", table).ok(t))
	gotNumbers := jsonOf[numbers](t, run(t, "next", "--table", table, "orders", "--output", "json"))
	assert.Equal(t, numbers{Table: table, Sequence: "orders", Numbers: []int64{5}}, gotNumbers)
	assert.Equal(t, "5\n", run(t, "current", "orders", "--table", table).ok(t))

	assert.Equal(t, "1000\n", run(t, "advance", "orders", "1000", "--table", table).ok(t))
	assert.Equal(t, "1001\n", run(t, "next", "orders", "--table", table).ok(t))
	r = run(t, "advance", "orders", "10", "--table", table, "--output", "json")
	assert.Equal(t, value{Table: table, Sequence: "orders", Value: 1001, AlreadyPast: true}, jsonOf[value](t, r))
	assert.Contains(t, r.stderr, "already at 1001, past 10: not moved")

	run(t, "next", "invoices", "--table", table).ok(t)
	run(t, "next", "other", "--table", table, "--key-prefix", "SEQ#").ok(t)
	r = run(t, "list", "--table", table)
	assert.Equal(t, "SEQ#other\tcounter\t1\ninvoices\tcounter\t1\norders\tcounter\t1001\n", r.ok(t))
	assert.Contains(t, r.stderr, "paginated Scan")
	assert.Equal(t, "orders\tcounter\t1001\n", run(t, "list", "--table", table, "--prefix", "ord").ok(t))
	listedJSON := jsonOf[[]listed](t, run(t, "list", "--table", table, "--key-prefix", "SEQ#", "--output", "json"))
	assert.Equal(t, []listed{{Sequence: "other", Kind: "counter", Value: 1}}, listedJSON)

	// An MREC global table: this Region (the second of two) hands out every
	// other number, from its own slice.
	mrec := []string{"--table", table, "--global-table", "mrec", "--regions", "us-east-1,eu-west-1", "--region", "eu-west-1"}
	assert.Equal(t, "2\n4\n6\n", run(t, append([]string{"next", "sliced", "-n", "3"}, mrec...)...).ok(t))
	assert.Equal(t, "8\n", run(t, append([]string{"next", "sliced"}, mrec...)...).ok(t))
	r = run(t, "next", "sliced", "--table", table, "--global-table", "mrec", "--region", "eu-west-1")
	assert.Equal(t, 2, r.code, "--global-table mrec without --regions")
	assert.Contains(t, r.stderr, `invalid argument: --regions is "", want the ordered list of the table's Regions`)

	// Errors name the table and the sequence and exit with status 1.
	r = run(t, "current", "never-used", "--table", table)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `table "`+table+`", sequence "never-used": not found`)
	r = run(t, "next", "orders", "--table", "no_such_table")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `table "no_such_table", sequence "orders"`)

	// The versions of a document in the sortkey layout on a counter table:
	// the advice names flags.
	r = run(t, "versions", "orders", "--table", table, "--kind", "latest")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "pass --layout partitionkey")
	assert.Contains(t, r.stderr, "'dynamoseq check --table "+table+"', with the same flags, says which flags (or which --kind) fit the table")
	assert.NotContains(t, r.stderr, "o.Layout")
}

// testSingleTable keeps counters beside other items of a table with a
// String sort key, at the sort key value COUNTER.
func testSingleTable(t *testing.T, run runFunc, client *dynamodb.Client) {
	table := newTable(t, client)
	single := []string{"--table", table, "--counter-sort-key-value", "COUNTER", "--key-prefix", "SEQ#"}
	assert.Equal(t, "table "+table+" created: pk (S, HASH), sk (S, RANGE)\n", run(t, append([]string{"create-table", "--kind", "counter"}, single...)...).ok(t))
	assert.Contains(t, run(t, append([]string{"check"}, single...)...).ok(t), "as counter expects")
	assert.Equal(t, "1\n", run(t, append([]string{"next", "orders"}, single...)...).ok(t))
	// An item of the same partition that is not the counter.
	run(t, "next", "orders", "--write", "--kind", "sortkey", "--sort-key-type", "S", "--table", table, "--key-prefix", "SEQ#").ok(t)
	assert.Equal(t, "orders\tcounter\t1\norders\tsortkey\t1\n", run(t, append([]string{"list"}, single...)...).ok(t), "the counter and the SortKey items of one partition")
	assert.Equal(t, "2\n", run(t, append([]string{"next", "orders"}, single...)...).ok(t))
}

func testCheck(t *testing.T, run runFunc, client *dynamodb.Client) {
	counters, docs := newTable(t, client), newTable(t, client)
	run(t, "create-table", "--kind", "counter", "--table", counters).ok(t)
	assert.Equal(t, "table "+docs+` created: pk (S, HASH), sk (N, RANGE); Time to Live enabled on "expires"`+"\n",
		run(t, "create-table", "--kind", "latest", "--table", docs, "--ttl", "expires").ok(t))

	out := run(t, "check", "--table", counters).ok(t)
	assert.Contains(t, out, "ok       key schema: pk (S, HASH), as counter expects")
	assert.Contains(t, out, "ok       global table: no: a single-Region table")
	rep := jsonOf[report](t, run(t, "check", "--table", docs, "--kind", "latest", "--ttl", "expires", "--output", "json"))
	assert.True(t, rep.OK, "%+v", rep)

	// Each problem with the flags that fix it.
	r := run(t, "check", "--table", counters, "--kind", "sortkey")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "problem  key schema: pk (S, HASH), but sortkey with these options needs pk (S, HASH), sk (N, RANGE)\n"+
		"         fix: --kind counter (or --kind latest --layout partitionkey)\n")
	r = run(t, "check", "--table", docs, "--kind", "latest", "--sort-key-type", "S", "--ttl", "gone")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "sk (S, RANGE)\n         fix: --sort-key-type N\n")
	assert.Contains(t, r.stdout, `problem  ttl: ENABLED on "expires", but --ttl is "gone": old periods would never expire`+"\n         fix: --ttl expires\n")
	r = run(t, "check", "--table", counters, "--ttl", "expires")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "fix: dynamoseq create-table --kind counter --ttl expires with the same flags (it enables TTL)\n")
	run(t, "create-table", "--table", counters, "--kind", "counter", "--ttl", "expires").ok(t)
	run(t, "check", "--table", counters, "--ttl", "expires").ok(t)
	r = run(t, "check", "--table", "no_such_table")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "does not exist")
	assert.Contains(t, r.stdout, "fix: dynamoseq create-table --kind counter|block|sortkey|latest with the same flags\n")

	// A table of other key names and types: check reads its kind and says
	// which flags describe it; with them, the check passes.
	other := newTable(t, client)
	run(t, "create-table", "--kind", "sortkey", "--table", other, "--partition-key", "id", "--sort-key", "n", "--sort-key-type", "S").ok(t)
	r = run(t, "check", "--table", other)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "ok       kind: sortkey, read from the table's key (a sort key)")
	assert.Contains(t, r.stdout, "fix: --partition-key id --sort-key n --sort-key-type S\n")
	rep = jsonOf[report](t, run(t, "check", "--table", other, "--partition-key", "id", "--sort-key", "n", "--sort-key-type", "S", "--output", "json"))
	assert.True(t, rep.OK, "%+v", rep)
	assert.Equal(t, "sortkey", rep.Kind)

	cf := run(t, "create-table", "--kind", "sortkey", "--table", "Tickets", "--print", "cloudformation", "--ttl", "expires").ok(t)
	assert.Contains(t, cf, "Resources:\n  Tickets:\n    Type: AWS::DynamoDB::Table")
	assert.Contains(t, run(t, "create-table", "--kind", "counter", "--table", "orders_prod-v2", "--print", "cloudformation").ok(t),
		"  OrdersProdV2:\n    Type: AWS::DynamoDB::Table\n    Properties:\n      TableName: orders_prod-v2\n")
	assert.Contains(t, cf, "AttributeName: sk\n          KeyType: RANGE")
	assert.Contains(t, cf, "TimeToLiveSpecification:\n        AttributeName: expires")
	cli := run(t, "create-table", "--kind", "counter", "--table", "Seq", "--print", "cli").ok(t)
	assert.Contains(t, cli, "aws dynamodb create-table --table-name Seq --billing-mode PAY_PER_REQUEST")
	r = run(t, "check", "--table", "Tickets")
	assert.Equal(t, 1, r.code, "--print must not create the table")
}

func testLatest(t *testing.T, run runFunc, client *dynamodb.Client) {
	table := newTable(t, client)
	run(t, "create-table", "--kind", "latest", "--table", table).ok(t)
	assert.Equal(t, "1\n2\n3\n", run(t, "next", "doc1", "-n", "3", "--write", "--kind", "latest", "--table", table).ok(t))
	assert.Equal(t, "3\n", run(t, "current", "doc1", "--kind", "latest", "--table", table).ok(t))
	assert.Equal(t, "3\t{}\n2\t{}\n1\t{}\n", run(t, "versions", "doc1", "--table", table, "--page-size", "2").ok(t))
	assert.Equal(t, "2\t{}\n", run(t, "get", "doc1", "2", "--table", table).ok(t))
	doc := jsonOf[document](t, run(t, "get", "doc1", "--table", table, "--output", "json"))
	assert.Equal(t, int64(3), doc.Version)
	r := run(t, "get", "doc1", "9", "--table", table)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `document "doc1": not found`)
}

func testSortKey(t *testing.T, run runFunc, client *dynamodb.Client) {
	table := newTable(t, client)
	run(t, "create-table", "--kind", "sortkey", "--table", table, "--sort-key-type", "S", "--sort-key-width", "6").ok(t)
	assert.Equal(t, "1\n2\n", run(t, "next", "projectA", "-n", "2", "--write", "--kind", "sortkey", "--table", table, "--sort-key-type", "S", "--sort-key-width", "6").ok(t))
	sk := []string{"--kind", "sortkey", "--table", table, "--sort-key-type", "S", "--sort-key-width", "6"}
	assert.Equal(t, "2\n", run(t, append([]string{"current", "projectA"}, sk...)...).ok(t))
	assert.Equal(t, "2\t{}\n1\t{}\n", run(t, append([]string{"versions", "projectA"}, sk...)...).ok(t))
	assert.Equal(t, "2\t{}\n", run(t, append([]string{"get", "projectA"}, sk...)...).ok(t))
	assert.Equal(t, "1\t{}\n", run(t, append([]string{"get", "projectA", "1"}, sk...)...).ok(t))
	r := run(t, append([]string{"get", "projectA", "3"}, sk...)...)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `sequence "projectA": not found`)

	// list reads the SortKey sequences of a String sort key.
	r = run(t, "list", "--table", table)
	assert.Equal(t, "projectA\tsortkey\t2\n", r.ok(t))
	assert.Contains(t, r.stderr, "2 items in 1 page\n")
	r = run(t, "list", "--table", table, "--prefix", "zzz")
	assert.Contains(t, r.stderr, `no sequences in table "`+table+`" whose name starts with "zzz"; it holds 1 SortKey sequence`)
	r = run(t, "list", "--table", table, "--kind", "counter")
	assert.Contains(t, r.stderr, `no counters in table "`+table+`"; it holds 1 SortKey sequence`)
}

// testKindRule leaves --kind out: every command reads it from the table.
func testKindRule(t *testing.T, run runFunc, client *dynamodb.Client) {
	counters, docs, items, pkDocs := newTable(t, client), newTable(t, client), newTable(t, client), newTable(t, client)
	run(t, "create-table", "--kind", "counter", "--table", counters).ok(t)
	run(t, "create-table", "--kind", "latest", "--table", docs).ok(t)
	run(t, "create-table", "--kind", "sortkey", "--table", items).ok(t)
	run(t, "create-table", "--kind", "latest", "--layout", "partitionkey", "--table", pkDocs).ok(t)

	// A table with a partition key only: counters, or documents with a
	// 'latest' item in the partitionkey layout.
	assert.Equal(t, "1\n", run(t, "next", "orders", "--table", counters).ok(t))
	assert.Equal(t, "1\n", run(t, "current", "orders", "--table", counters).ok(t))
	assert.Contains(t, run(t, "check", "--table", counters).ok(t), "ok       kind: counter, read from the table's key (a partition key only)")
	assert.Equal(t, "10\n", run(t, "next", "fresh", "--start", "10", "--table", counters).ok(t), "a counter's flag does not stop the look for a 'latest' item")
	run(t, "next", "doc1", "--write", "--table", pkDocs, "--kind", "latest", "--layout", "partitionkey").ok(t)
	assert.Equal(t, "2\n", run(t, "next", "doc1", "--write", "--table", pkDocs).ok(t), "doc1 has a 'latest' item")
	assert.Equal(t, "2\t{}\n1\t{}\n", run(t, "versions", "doc1", "--table", pkDocs).ok(t))
	assert.Equal(t, "1\t{}\n", run(t, "get", "doc1", "1", "--table", pkDocs).ok(t))
	assert.Equal(t, "1\n", run(t, "next", "doc2", "--write", "--table", pkDocs, "--layout", "partitionkey").ok(t))
	assert.Equal(t, "1\n", run(t, "current", "doc2", "--table", pkDocs).ok(t))

	// A table with a sort key: SortKey sequences, or documents with a
	// 'latest' item at sort key 0.
	assert.Equal(t, "1\n2\n", run(t, "next", "tickets", "-n", "2", "--write", "--table", items).ok(t))
	assert.Equal(t, "2\n", run(t, "current", "tickets", "--table", items).ok(t))
	assert.Equal(t, "1\t{}\n", run(t, "get", "tickets", "1", "--table", items).ok(t))
	assert.Contains(t, run(t, "check", "--table", items).ok(t), "ok       kind: sortkey, read from the table's key (a sort key)")
	run(t, "next", "doc1", "--write", "--table", docs, "--kind", "latest").ok(t)
	assert.Equal(t, "2\n", run(t, "next", "doc1", "--write", "--table", docs).ok(t))
	assert.Equal(t, "2\n", run(t, "current", "doc1", "--table", docs).ok(t))
	assert.Equal(t, "2\t{}\n1\t{}\n", run(t, "versions", "doc1", "--table", docs).ok(t))

	r := run(t, "current", "orders", "--table", "no_such_table")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `table "no_such_table", sequence "orders": table not found`)
	assert.Contains(t, run(t, "next", "--help").ok(t), "Without --kind, the kind is read from the table")
}

// testPeriod reads and moves the counters an IDMinter keeps per period
// with --period, without writing their names.
func testPeriod(t *testing.T, run runFunc, client *dynamodb.Client) {
	table := newTable(t, client)
	run(t, "create-table", "--kind", "counter", "--table", table).ok(t)
	ctx := context.Background()
	counter, err := dynamoseq.NewCounter(client, table)
	require.NoError(t, err)
	mint := func(at time.Time, loc *time.Location, period dynamoseq.Period) string {
		t.Helper()
		m, err := dynamoseq.NewIDMinter(counter, dynamoseq.Format{Prefix: "ORD", DateLayout: "060102", Separator: "-", Width: 6}, period,
			func(o *dynamoseq.IDMinterOptions) { o.Now, o.Location = func() time.Time { return at }, loc })
		require.NoError(t, err)
		id, err := m.Next(ctx, "orders")
		require.NoError(t, err)
		return id
	}
	nov22 := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	assert.Equal(t, "ORD-261122-000001", mint(nov22, time.UTC, dynamoseq.Daily))
	assert.Equal(t, "ORD-261122-000002", mint(nov22, time.UTC, dynamoseq.Daily))

	day := []string{"--table", table, "--period", "day", "--date", "2026-11-22"}
	assert.Equal(t, "2\n", run(t, append([]string{"current", "orders"}, day...)...).ok(t))
	got := jsonOf[numbers](t, run(t, append([]string{"next", "orders", "--output", "json"}, day...)...))
	assert.Equal(t, numbers{Table: table, Sequence: "orders#20261122", Numbers: []int64{3}}, got)
	assert.Equal(t, "ORD-261122-000004", mint(nov22, time.UTC, dynamoseq.Daily), "the command took the IDMinter's number 3")
	assert.Equal(t, "100\n", run(t, append([]string{"advance", "orders", "100"}, day...)...).ok(t))
	assert.Equal(t, "ORD-261122-000101", mint(nov22, time.UTC, dynamoseq.Daily))

	// The same instant is 21 November in Los Angeles.
	la, err := time.LoadLocation("America/Los_Angeles")
	require.NoError(t, err)
	assert.Equal(t, "ORD-261121-000001", mint(nov22, la, dynamoseq.Daily))
	assert.Equal(t, "1\n", run(t, "current", "orders", "--table", table, "--period", "day", "--date", "2026-11-21", "--location", "America/Los_Angeles").ok(t))
	assert.Equal(t, "ORD-261122-000001", mint(nov22, time.UTC, dynamoseq.Monthly))
	assert.Equal(t, "1\n", run(t, "current", "orders", "--table", table, "--period", "month", "--date", "2026-11").ok(t))
	assert.Equal(t, "1\n", run(t, "next", "orders", "--table", table, "--period", "year", "--date", "2026").ok(t))

	// Without --date, the period of now.
	before := "orders#" + time.Now().UTC().Format("20060102")
	got = jsonOf[numbers](t, run(t, "next", "orders", "--table", table, "--period", "day", "--output", "json"))
	after := "orders#" + time.Now().UTC().Format("20060102")
	assert.Contains(t, []string{before, after}, got.Sequence)

	assert.Equal(t, "orders#20261122\tcounter\t101\n", run(t, "list", "--table", table, "--period", "day", "--date", "2026-11-22").ok(t))
	assert.Equal(t, "orders#2026\tcounter\t1\n", run(t, "list", "--table", table, "--period", "year", "--date", "2026-05-01").ok(t))
	for _, args := range [][]string{
		{"current", "orders", "--table", table, "--date", "2026-11-22"},
		{"current", "orders", "--table", table, "--period", "day", "--date", "2026-11"},
		{"current", "orders", "--table", table, "--period", "week"},
		{"current", "orders", "--table", table, "--period", "day", "--location", "Mars/Olympus_Mons"},
	} {
		r := run(t, args...)
		assert.Equal(t, 2, r.code, "dynamoseq %q: %s", args, r.stderr)
	}
}

// testTypos mistypes names: the command says what it did not find, names
// the closest names and the period form, and creates nothing.
func testTypos(t *testing.T, run runFunc, client *dynamodb.Client) {
	counters, docs := newTable(t, client), newTable(t, client)
	run(t, "create-table", "--kind", "counter", "--table", counters).ok(t)
	run(t, "create-table", "--kind", "latest", "--table", docs).ok(t)
	for _, args := range [][]string{
		{"orders"}, {"invoices"}, {"Orders-EU"},
		{"orders", "--period", "day", "--date", "2026-11-21"},
		{"orders", "--period", "day", "--date", "2026-11-22"},
		{"tickets", "--period", "month", "--date", "2026-11"},
	} {
		run(t, append([]string{"next", "--table", counters}, args...)...).ok(t)
	}
	failed := func(args ...string) string {
		t.Helper()
		r := run(t, args...)
		require.Equal(t, 1, r.code, "dynamoseq %q: stdout %q", args, r.stdout)
		return r.stderr
	}

	stderr := failed("current", "ordres", "--table", counters)
	assert.Contains(t, stderr, `dynamoseq: Counter.Current: table "`+counters+`", sequence "ordres": not found`+"\n")
	assert.Contains(t, stderr, "dynamoseq: the closest of the table's 6 names: orders\n")
	assert.Contains(t, failed("current", "orders-eu", "--table", counters), "the closest of the table's 6 names: Orders-EU, orders\n")
	stderr = failed("current", "orders#20261123", "--table", counters)
	assert.Contains(t, stderr, `"orders#20261123" is how an IDMinter names the counter of "orders" for the day 2026-11-23: --period day --date 2026-11-23 writes it`)
	assert.Contains(t, stderr, "the closest of the table's 6 names: orders#20261121, orders#20261122\n")
	stderr = failed("current", "tickets", "--table", counters)
	assert.Contains(t, stderr, `"tickets" is counted per period (tickets#202611): pass --period month, and --date for another month than the current one`)
	stderr = failed("current", "orders", "--period", "day", "--date", "2026-11-23", "--table", counters)
	assert.Contains(t, stderr, `sequence "orders#20261123": not found`)
	assert.NotContains(t, stderr, "is how an IDMinter names", "--period wrote the name")
	stderr = failed("current", "zzz", "--table", counters)
	assert.Contains(t, stderr, `none of the table's 6 names is close to "zzz"`)

	// advance creates nothing by mistake.
	stderr = failed("advance", "ordres", "500", "--table", counters)
	assert.Contains(t, stderr, `dynamoseq: advance: table "`+counters+`", sequence "ordres": not found: advance moves only a counter that exists; --create starts it at 500`)
	assert.Contains(t, stderr, "the closest of the table's 6 names: orders\n")
	failed("current", "ordres", "--table", counters)
	assert.Equal(t, "500\n", run(t, "advance", "fresh", "500", "--create", "--table", counters).ok(t))
	assert.Equal(t, "501\n", run(t, "next", "fresh", "--table", counters).ok(t))

	// Documents: a mistyped name, a version past the last.
	run(t, "next", "doc1", "-n", "3", "--write", "--kind", "latest", "--table", docs).ok(t)
	stderr = failed("get", "doc", "--table", docs)
	assert.Contains(t, stderr, `sequence "doc": not found`)
	assert.Contains(t, stderr, "the closest of the table's 1 name: doc1\n")
	stderr = failed("versions", "Doc1", "--table", docs)
	assert.Contains(t, stderr, `dynamoseq: SortKey.Items: table "`+docs+`", sequence "Doc1": not found`)
	assert.Contains(t, stderr, "the closest of the table's 1 name: doc1\n")
	stderr = failed("get", "doc1", "9", "--table", docs)
	assert.Contains(t, stderr, `dynamoseq: Latest.Get: table "`+docs+`", document "doc1": not found`+"\n"+`dynamoseq: "doc1" has versions up to 3`+"\n")
	stderr = failed("current", "doc2", "--kind", "latest", "--table", docs)
	assert.Contains(t, stderr, "the closest of the table's 1 name: doc1\n")
}

// testProfile takes the credentials and the Region from a named profile of
// the shared files, as the aws CLI does.
func testProfile(t *testing.T, bin, endpoint string, client *dynamodb.Client) {
	dir := t.TempDir()
	config, credentials := filepath.Join(dir, "config"), filepath.Join(dir, "credentials")
	require.NoError(t, os.WriteFile(config, []byte("[profile ops]\nregion = eu-west-1\n"), 0o600))
	require.NoError(t, os.WriteFile(credentials, []byte("[ops]\naws_access_key_id = ops\naws_secret_access_key = ops\n"), 0o600))
	env := []string{"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=", "AWS_REGION=", "AWS_CONFIG_FILE=" + config, "AWS_SHARED_CREDENTIALS_FILE=" + credentials}
	table := newTable(t, client)
	runBinary(t, bin, endpoint, env, "create-table", "--kind", "counter", "--table", table, "--profile", "ops").ok(t)
	assert.Equal(t, "1\n", runBinary(t, bin, endpoint, env, "next", "orders", "--table", table, "--profile", "ops").ok(t))
	r := runBinary(t, bin, endpoint, env, "next", "orders", "--table", table)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "no AWS Region")
	r = runBinary(t, bin, endpoint, env, "next", "orders", "--table", table, "--profile", "nosuch")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "nosuch")
}

// testEnvironment names the table and the endpoint in environment variables
// instead of flags, as an operator sets them once per shell.
func testEnvironment(t *testing.T, bin, endpoint string, client *dynamodb.Client) {
	table := newTable(t, client)
	for _, endpointVar := range []string{"AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL"} {
		env := []string{"DYNAMOSEQ_TABLE=" + table, endpointVar + "=" + endpoint, "DYNAMOSEQ_KEY_PREFIX=SEQ#"}
		run := func(args ...string) result { return runBinary(t, bin, "", env, args...) }
		run("create-table", "--kind", "counter").ok(t)
		assert.Equal(t, "1\n", run("next", "env-"+endpointVar).ok(t), endpointVar)
		got := jsonOf[value](t, runBinary(t, bin, "", append(env, "DYNAMOSEQ_OUTPUT=json"), "current", "env-"+endpointVar))
		assert.Equal(t, value{Table: table, Sequence: "env-" + endpointVar, Value: 1}, got)
		// An error answer of DynamoDB Local, which has no CRC32: no warning
		// about it on a loopback endpoint.
		r := run("next", "orders", "--table", "no_such_table")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, `table "no_such_table", sequence "orders": table not found`, endpointVar)
		assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "%s: one line, no warning:\n%s", endpointVar, r.stderr)
	}
	// The flag wins over the variable; the prefix came from the variable.
	env := []string{"DYNAMOSEQ_TABLE=no_such_table", "DYNAMOSEQ_KEY_PREFIX=SEQ#"}
	assert.Equal(t, "SEQ#env-AWS_ENDPOINT_URL\tcounter\t1\nSEQ#env-AWS_ENDPOINT_URL_DYNAMODB\tcounter\t1\n",
		runBinary(t, bin, endpoint, env, "list", "--table", table, "--key-prefix", "").ok(t))
	r := runBinary(t, bin, endpoint, []string{"DYNAMOSEQ_OUTPUT=yaml"}, "next", "orders", "--table", table)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `DYNAMOSEQ_OUTPUT=yaml: invalid argument "yaml" for "--output" flag: want text, json`)
	r = runBinary(t, bin, endpoint, nil, "next", "orders")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--table is required (or set DYNAMOSEQ_TABLE)")
	assert.Contains(t, runBinary(t, bin, endpoint, nil, "next", "--help").ok(t), "the DynamoDB table (required) (env DYNAMOSEQ_TABLE)")
}

func testBench(t *testing.T, run runFunc, client *dynamodb.Client) {
	table := newTable(t, client)
	run(t, "create-table", "--kind", "counter", "--table", table).ok(t)
	out := run(t, "bench", "--kind", "block", "-c", "4", "-d", "1s", "--table", table).ok(t)
	for _, want := range []string{"latency of dynamoseq:", "numbers/s", "p99", "raw SDK", "Stats()", "RoundTrips"} {
		assert.Contains(t, out, want)
	}
}

// TestBenchInProcess runs bench in the test binary, so that the race
// detector watches its goroutines.
func TestBenchInProcess(t *testing.T) {
	srv := dynamoseqtest.Start(t)
	table := dbtest.CounterTable(t, srv.Client())
	r := runInProcess(t, "bench", "--kind", "counter", "-c", "4", "-d", "500ms", "--table", table, "--output", "json", "--endpoint-url", srv.Endpoint())
	res := jsonOf[benchResult](t, r)
	assert.Positive(t, res.Dynamoseq.Calls)
	require.NotNil(t, res.Baseline)
	assert.Positive(t, res.Baseline.Calls)
	assert.Zero(t, res.Dynamoseq.Errors+res.Baseline.Errors)
	assert.NotEmpty(t, res.Histogram)
	stats, ok := res.Stats.(map[string]any)
	require.True(t, ok, "stats: %v", res.Stats)
	assert.Positive(t, stats["Numbers"])
}
