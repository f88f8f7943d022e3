package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

func TestMain(m *testing.M) { dynamoseqtest.Main(m) }

// TestQuickstart runs the demo against the test server twice, first with
// -endpoint, then with the endpoint in the SDK's environment
// (AWS_ENDPOINT_URL): the second run continues the sequence where the first
// stopped.
func TestQuickstart(t *testing.T) {
	srv := dynamoseqtest.Start(t)
	table := srv.NewTable(t, dynamoseq.CounterTable("quickstart"))
	args := []string{"-table", table, "-goroutines", "8", "-orders", "400"}

	var out bytes.Buffer
	require.NoError(t, run(context.Background(), append(args, "-endpoint", srv.Endpoint()), &out), out.String())
	assert.Contains(t, out.String(), "DynamoDB:  "+srv.Endpoint()+"\n")
	assert.Contains(t, out.String(), `Table:     "`+table+`" ready`)
	assert.Contains(t, out.String(), "Range:     1..400 (continuing from 0)")
	assert.Contains(t, out.String(), "Distinct:  400 of 400; repeated: 0; gaps inside the range: 0")
	assert.Contains(t, out.String(), " UpdateItems for 400 numbers (")

	t.Setenv("AWS_ENDPOINT_URL", srv.Endpoint())
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ACCESS_KEY_ID", "local") // DynamoDB Local takes any
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	t.Setenv("AWS_PROFILE", "")
	out.Reset()
	require.NoError(t, run(context.Background(), args, &out), out.String())
	assert.Contains(t, out.String(), "DynamoDB:  "+srv.Endpoint()+" (AWS_ENDPOINT_URL), Region us-east-1\n")
	assert.Contains(t, out.String(), "Range:     401..800 (continuing from 400)")
}
