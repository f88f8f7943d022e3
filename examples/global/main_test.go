package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

func TestMain(m *testing.M) { dynamoseqtest.Main(m) }

// TestGlobal runs the example on a simulated global table of two Regions,
// replicated 200ms after each write: the Region-sliced Counter repeats
// nothing, the plain one does.
func TestGlobal(t *testing.T) {
	regions := []string{"us-east-1", "eu-west-1"}
	g := dynamoseqtest.NewGlobalTable(t, dynamoseq.CounterTable("orders"), 200*time.Millisecond, regions...)
	var endpoints []string
	for _, r := range regions {
		endpoints = append(endpoints, g.Server(r).Endpoint())
	}
	args := []string{"-regions", strings.Join(regions, ","), "-endpoints", strings.Join(endpoints, ","),
		"-table", g.Name(), "-goroutines", "3", "-orders", "30"}
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), args, &out), out.String())
	g.Settle(t)
	t.Logf("\n%s\nreplication: %+v", out.String(), dbtest.Replication(g))
	assert.Contains(t, out.String(), "us-east-1  ORD-000001 ORD-000003 ORD-000005")
	assert.Contains(t, out.String(), "eu-west-1  ORD-000002 ORD-000004 ORD-000006")
	counts := regexp.MustCompile(`handed out twice: (\d+)`).FindAllStringSubmatch(out.String(), -1)
	require.Len(t, counts, 2, "two reports")
	assert.Equal(t, "0", counts[0][1], "the Region-sliced Counter repeated numbers")
	plain, _ := strconv.Atoi(counts[1][1])
	assert.Positive(t, plain, "the plain Counter repeated no number")
	assert.Positive(t, dbtest.Replication(g).Replicated, "nothing was replicated")
}
