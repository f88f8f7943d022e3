package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
)

// TestKindFlagsTable checks the table itself: each flag is one some
// command defines, listed once, with known kinds, and not by every kind
// (a flag every kind reads stays out of it).
func TestKindFlagsTable(t *testing.T) {
	all := []string{kindCounter, kindBlock, kindSortKey, kindLatest}
	var seen []string
	for _, k := range kindFlags {
		assert.NotContains(t, seen, k.flag, "--%s listed twice", k.flag)
		seen = append(seen, k.flag)
		defined := slices.ContainsFunc(commands(), func(c *command) bool {
			fs, _ := c.flagSet(&env{})
			return fs.Lookup(k.flag) != nil
		})
		assert.True(t, defined, "--%s: no command defines it", k.flag)
		for _, kind := range k.kinds {
			assert.Contains(t, all, kind, "--%s", k.flag)
		}
		assert.Less(t, len(k.kinds), len(all), "--%s is read by every kind: leave it out", k.flag)
	}
}

// TestKindFlagsRefused sets on the command line a flag that the kind given
// with --kind (or the one kind of advance and list) does not read: exit
// status 2, naming the flag and the kinds that read it, before any request
// (runInProcess has no DynamoDB to reach).
func TestKindFlagsRefused(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    string
		notWant string
	}{
		{[]string{"next", "orders", "--kind", "counter", "--sort-key-type", "N"}, "--sort-key-type is read by --kind sortkey and latest, not by counter\n", ""},
		{[]string{"bench", "--kind", "block", "--layout", "partitionkey"}, "--layout is read by --kind latest, not by block\n", ""},
		{[]string{"bench", "--kind", "counter", "--size", "10"}, "--size is read by --kind block, not by counter\n", ""},
		{[]string{"versions", "tickets", "--kind", "sortkey", "--value-attribute", "v"}, "--value-attribute is read by --kind counter and block, not by sortkey\n", ""},
		{[]string{"get", "doc1", "--kind", "latest", "--start", "5"}, "--start is read by --kind counter, block and sortkey, not by latest\n", ""},
		{[]string{"check", "--kind", "sortkey", "--regions", "a,b"}, "--regions is read by --kind counter and block, not by sortkey\n", ""},
		{[]string{"create-table", "--kind", "latest", "--max-value", "9"}, "--max-value is read by --kind counter, block and sortkey, not by latest\n", ""},
		{[]string{"advance", "orders", "5", "--sort-key-type", "S"}, "--sort-key-type is read by --kind sortkey and latest, not by counter (advance works on counter only)\n", ""},
		{[]string{"list", "--kind", "counter", "--version-key-format", "%s#%d"}, "--version-key-format is read by --kind latest, not by counter\n", ""},
		// Each unread flag named, and only those.
		{[]string{"next", "orders", "--kind", "latest", "--step", "2", "--sort-key-width", "4", "--max-value", "9"},
			"--max-value is read by --kind counter, block and sortkey, not by latest; --step is read by --kind counter and block, not by latest\n", "--sort-key-width"},
	} {
		r := runInProcess(t, append(tc.args, "--table", "Seq")...)
		assert.Equal(t, 2, r.code, "dynamoseq %q: exit status; stderr:\n%s", tc.args, r.stderr)
		assert.Contains(t, r.stderr, tc.want, "dynamoseq %q", tc.args)
		if tc.notWant != "" {
			assert.NotContains(t, r.stderr, tc.notWant, "dynamoseq %q", tc.args)
		}
		assert.Empty(t, r.stdout, "dynamoseq %q", tc.args)
	}
}

// TestKindFlagsAccepted sets flags that the kind reads, flags given their
// empty default, and flags that it does not read through their variables:
// none is refused. create-table --print makes no request.
func TestKindFlagsAccepted(t *testing.T) {
	for _, tc := range []struct {
		env  []string // NAME=value
		args []string
		want string
	}{
		{nil, []string{"--kind", "counter", "--counter-sort-key-value", "C", "--value-attribute", "v", "--step", "2"}, "AttributeName=sk,AttributeType=S"},
		{nil, []string{"--kind", "latest", "--layout", "partitionkey", "--version-key-format", "%s#v%d"}, "--key-schema AttributeName=pk,KeyType=HASH\n"},
		{nil, []string{"--kind", "sortkey", "--sort-key-type", "S", "--counter-sort-key-value", "", "--step", "0"}, "AttributeName=sk,AttributeType=S"},
		{nil, []string{"--kind", "block", "--start", "10", "--max-value", "99"}, "--key-schema AttributeName=pk,KeyType=HASH\n"},
		// Variables are read, but not refused when the kind does not read
		// them: a shell's variables serve tables of every kind.
		{[]string{"DYNAMOSEQ_SORT_KEY_TYPE=S", "DYNAMOSEQ_LAYOUT=partitionkey", "DYNAMOSEQ_STEP=3"}, []string{"--kind", "counter"}, "--key-schema AttributeName=pk,KeyType=HASH\n"},
		{[]string{"DYNAMOSEQ_VALUE_ATTRIBUTE=v", "DYNAMOSEQ_SORT_KEY_TYPE=S"}, []string{"--kind", "sortkey"}, "AttributeName=sk,AttributeType=S"},
	} {
		t.Run(strings.Join(append(tc.env, tc.args...), " "), func(t *testing.T) {
			for _, kv := range tc.env {
				name, value, _ := strings.Cut(kv, "=")
				t.Setenv(name, value) // until the subtest ends
			}
			args := append([]string{"create-table", "--table", "Seq", "--print", "cli"}, tc.args...)
			r := runInProcess(t, args...)
			assert.Equal(t, 0, r.code, "%q dynamoseq %q: exit status; stderr:\n%s", tc.env, args, r.stderr)
			assert.Contains(t, r.stdout, tc.want, "%q dynamoseq %q", tc.env, args)
		})
	}
}

// TestKindFlagsHelp reads the marks the help derives from kindFlags, and
// what it says about them.
func TestKindFlagsHelp(t *testing.T) {
	for _, tc := range []struct {
		command string
		want    []string
	}{
		{"next", []string{"  --sort-key-type N|S [sortkey, latest]\n", "  --step int [counter]\n", "  --table string\n", "  --period day|month|year\n",
			"while the kind, given by --kind or read from the table, is another"}},
		{"bench", []string{"  --size int [block]\n", "  --max-attempts int\n", "  --layout sortkey|partitionkey [latest]\n"}},
		{"advance", []string{"This command works on counter only,", "  --value-attribute string\n"}},
	} {
		out := runInProcess(t, tc.command, "--help").ok(t)
		for _, want := range tc.want {
			assert.Contains(t, out, want, "%s --help", tc.command)
		}
	}
	for _, c := range commands() {
		out := runInProcess(t, c.name, "--help").ok(t)
		assert.Contains(t, out, "Set through its DYNAMOSEQ_ variable, it is not refused", "%s --help", c.name)
	}
	// A flag none of the command's kinds reads is left out of its help.
	assert.NotContains(t, runInProcess(t, "advance", "--help").ok(t), "--layout")
	assert.NotContains(t, runInProcess(t, "get", "--help").ok(t), "--step")
}

// testKindFlags reads the kind from the table, against DynamoDB Local, and
// refuses the flags that kind does not read before it writes anything;
// variables it does not read are left unread.
func testKindFlags(t *testing.T, run runFunc, bin, endpoint string, client *dynamodb.Client) {
	counters, items, docs := newTable(t, client), newTable(t, client), newTable(t, client)
	run(t, "create-table", "--kind", "counter", "--table", counters).ok(t)
	run(t, "create-table", "--kind", "sortkey", "--table", items).ok(t)
	run(t, "create-table", "--kind", "latest", "--table", docs).ok(t)
	run(t, "next", "doc1", "--write", "--kind", "latest", "--table", docs).ok(t)

	const fromTable = ", the kind read from the table (--kind names another)"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"next", "orders", "--table", counters, "--sort-key-type", "N"}, "--sort-key-type is read by --kind sortkey and latest, not by counter" + fromTable},
		{[]string{"bench", "--table", counters, "--size", "10", "-d", "1s"}, "--size is read by --kind block, not by counter" + fromTable},
		{[]string{"next", "tickets", "--table", items, "--step", "2"}, "--step is read by --kind counter and block, not by sortkey" + fromTable},
		{[]string{"current", "doc1", "--table", docs, "--value-attribute", "v"}, "--value-attribute is read by --kind counter and block, not by latest" + fromTable},
		{[]string{"check", "--table", items, "--layout", "partitionkey"}, "--layout is read by --kind latest, not by sortkey" + fromTable},
	} {
		r := run(t, tc.args...)
		assert.Equal(t, 2, r.code, "dynamoseq %q: exit status; stderr:\n%s", tc.args, r.stderr)
		assert.Contains(t, r.stderr, tc.want, "dynamoseq %q", tc.args)
		assert.Empty(t, r.stdout, "dynamoseq %q", tc.args)
	}
	assert.Equal(t, 1, run(t, "current", "orders", "--table", counters).code, "a refused next took no number")
	assert.Equal(t, 1, run(t, "current", "tickets", "--table", items).code, "a refused next took no number")

	// The flags each kind reads, and --period for every kind.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"next", "orders", "--table", counters, "--start", "10", "--step", "5", "-n", "2"}, "10\n15\n"},
		{[]string{"next", "tickets", "--write", "--table", items, "--sort-key-type", "N", "--start", "7"}, "7\n"},
		{[]string{"current", "doc1", "--table", docs, "--version-attribute", "version"}, "1\n"},
		{[]string{"next", "doc", "--write", "--kind", "latest", "--table", docs, "--period", "day", "--date", "2026-11-22"}, "1\n"},
		{[]string{"current", "doc", "--table", docs, "--period", "day", "--date", "2026-11-22"}, "1\n"},
	} {
		assert.Equal(t, tc.want, run(t, tc.args...).ok(t), "dynamoseq %q", tc.args)
	}

	// Variables the kind does not read are not refused; a flag given ""
	// takes one back (here, for the kind rule, which picks counter on a
	// table with a sort key when --counter-sort-key-value is set).
	env := []string{"DYNAMOSEQ_SORT_KEY_TYPE=S", "DYNAMOSEQ_VERSION_ATTRIBUTE=ver"}
	assert.Equal(t, "16\n", runBinary(t, bin, endpoint, env, "next", "orders", "--table", counters).ok(t))
	single := append(slices.Clone(env), "DYNAMOSEQ_COUNTER_SORT_KEY_VALUE=COUNTER")
	assert.Equal(t, "8\n", runBinary(t, bin, endpoint, single, "next", "tickets", "--write", "--table", items, "--counter-sort-key-value", "", "--sort-key-type", "N").ok(t))
	r := runBinary(t, bin, endpoint, env, "next", "orders", "--table", counters, "--version-attribute", "ver")
	assert.Equal(t, 2, r.code, "the same flag on the command line; stderr:\n%s", r.stderr)
	assert.Contains(t, r.stderr, "--version-attribute is read by --kind latest, not by counter"+fromTable)
}
