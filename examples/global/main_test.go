package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq/internal/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// TestGlobal runs the example against the two test servers: the
// Region-sliced Counter repeats nothing, the plain one does.
func TestGlobal(t *testing.T) {
	e := dbtest.RegionServers(t, 2)
	endpoints := e[0] + "," + e[1]
	args := []string{"-endpoints", endpoints, "-table", dbtest.TableName(t), "-goroutines", "3", "-orders", "30"}
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), args, &out), out.String())
	t.Log("\n" + out.String())
	assert.Contains(t, out.String(), "us-east-1  ORD-000001 ORD-000003 ORD-000005")
	assert.Contains(t, out.String(), "eu-west-1  ORD-000002 ORD-000004 ORD-000006")
	counts := regexp.MustCompile(`handed out twice: (\d+)`).FindAllStringSubmatch(out.String(), -1)
	require.Len(t, counts, 2, "two reports")
	assert.Equal(t, "0", counts[0][1], "the Region-sliced Counter repeated numbers")
	plain, _ := strconv.Atoi(counts[1][1])
	assert.Positive(t, plain, "the plain Counter repeated no number")
}
