package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

func TestMain(m *testing.M) { dynamoseqtest.Main(m) }

// published is the "dynamoseq" variable of /debug/vars.
type published struct {
	Counter dynamoseq.Stats `json:"counter"`
	Block   dynamoseq.Stats `json:"block"`
	SortKey dynamoseq.Stats `json:"sortkey"`
	Latest  dynamoseq.Stats `json:"latest"`
}

// TestMetrics runs the program against DynamoDB Local and reads its
// figures from /debug/vars while the workload runs, until every strategy
// has handed out numbers; then it stops the program.
func TestMetrics(t *testing.T) {
	srv := dynamoseqtest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	args := []string{"-endpoint", srv.Endpoint(), "-addr", "127.0.0.1:0", "-tables", "metrics" + time.Now().Format("150405.000000"),
		"-goroutines", "2", "-pause", "5ms"}
	go func() {
		err := run(ctx, args, pw)
		pw.CloseWithError(err)
		done <- err
	}()
	lines := bufio.NewScanner(pr)
	require.True(t, lines.Scan(), "the first line: %v", lines.Err())
	url, ok := strings.CutPrefix(lines.Text(), "serving ")
	require.True(t, ok, "first line %q", lines.Text())
	go func() {
		for lines.Scan() { // the figures printed at the end
		}
	}()

	var got published
	require.Eventually(t, func() bool {
		got = read(t, url)
		return got.Counter.Numbers > 0 && got.Block.Numbers > 0 && got.SortKey.Numbers > 0 && got.Latest.Numbers > 0
	}, 30*time.Second, 100*time.Millisecond, "every strategy hands out numbers")
	cancel()
	require.NoError(t, <-done)

	assert.Positive(t, got.Counter.RoundTrips, "counter round trips")
	assert.Positive(t, got.Block.RoundTrips, "block leases")
	assert.Positive(t, got.SortKey.RoundTrips, "sortkey round trips")
	assert.Positive(t, got.Latest.RoundTrips, "latest round trips")
	assert.GreaterOrEqual(t, got.Latest.Calls, got.Latest.Numbers, "latest calls and numbers")
}

// read fetches url and decodes its "dynamoseq" variable.
func read(t *testing.T, url string) published {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var vars struct {
		Dynamoseq published `json:"dynamoseq"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&vars))
	return vars.Dynamoseq
}
