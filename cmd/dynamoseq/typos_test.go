package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDidYouMean mistypes flags and commands: exit status 2 and the
// closest name, before any request (runInProcess has no DynamoDB to reach).
func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"list", "--perod", "year"}, "dynamoseq list: unknown flag: --perod; did you mean --period?\n"},
		{[]string{"next", "orders", "--wirte"}, "unknown flag: --wirte; did you mean --write?\n"},
		{[]string{"get", "doc1", "--Kind", "latest"}, "unknown flag: --Kind; did you mean --kind?\n"},
		{[]string{"current", "orders", "--create"}, "unknown flag: --create; current takes no --create, advance does\n"},
		{[]string{"current", "orders", "--zzzzzz"}, "dynamoseq current: unknown flag: --zzzzzz\n"},
		{[]string{"lsit"}, "dynamoseq: unknown command \"lsit\"; did you mean list?\n"},
		{[]string{"nxt", "orders"}, "dynamoseq: unknown command \"nxt\"; did you mean next?\n"},
		{[]string{"nxet", "orders"}, "dynamoseq: unknown command \"nxet\"; did you mean next?\n"},
		{[]string{"versoins", "doc1"}, "; did you mean versions?\n"},
		{[]string{"frobnicate"}, "dynamoseq: unknown command \"frobnicate\"\n"},
	} {
		r := runInProcess(t, append(tc.args, "--table", "Seq")...)
		assert.Equal(t, 2, r.code, "dynamoseq %q: exit status; stderr:\n%s", tc.args, r.stderr)
		assert.Contains(t, r.stderr, tc.want, "dynamoseq %q", tc.args)
		assert.Empty(t, r.stdout, "dynamoseq %q", tc.args)
	}
}
