package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq/internal/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// TestQuickstart runs the demo against the test server twice: the first run
// creates the table, the second finds it and continues the sequence where
// it stopped.
func TestQuickstart(t *testing.T) {
	endpoint := dbtest.Endpoint(t)
	table := dbtest.TableName(t)
	args := []string{"-endpoint", endpoint, "-table", table, "-goroutines", "8", "-orders", "400"}

	var out bytes.Buffer
	require.NoError(t, run(context.Background(), args, &out), out.String())
	assert.Contains(t, out.String(), `Table:     "`+table+`" ready`)
	assert.Contains(t, out.String(), "Range:     1..400 (continuing from 0)")
	assert.Contains(t, out.String(), "Distinct:  400 of 400; repeated: 0; gaps inside the range: 0")

	out.Reset()
	require.NoError(t, run(context.Background(), args, &out), out.String())
	assert.Contains(t, out.String(), "Range:     401..800 (continuing from 400)")
}
