package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// TestRun runs the command twice on the same tables, as a deployment
// restarts it: each run creates an invoice, then shuts down gracefully
// when its context ends. The second run goes on with invoice 2 and audit
// event 2, because Close handed back the audit numbers the first leased.
func TestRun(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t)
	invoices := srv.NewTable(t, dynamoseq.SortKeyTable("invoices"))
	counters := srv.NewTable(t, dynamoseq.CounterTable("counters"))
	args := []string{"-endpoint", srv.Endpoint(), "-addr", "127.0.0.1:0", "-table", invoices, "-counters-table", counters}

	for i := 1; i <= 2; i++ {
		out := &syncBuffer{}
		ctx, cancel := context.WithCancel(context.Background())
		addr := make(chan net.Addr, 1)
		done := make(chan error, 1)
		go func() { done <- run(ctx, args, out, func(a net.Addr) { addr <- a }) }()
		var url string
		select {
		case a := <-addr:
			url = fmt.Sprintf("http://%s/tenants/acme/invoices", a)
		case err := <-done:
			t.Fatalf("run %d returned before listening: %v\n%s", i, err, out)
		}
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(invoiceBody("Globex")))
		require.NoError(t, err)
		req.Header.Set("Idempotency-Key", fmt.Sprint("run-", i))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusCreated, resp.StatusCode, "run %d: POST", i)
		cancel()
		require.NoError(t, <-done, "run %d:\n%s", i, out)

		events := auditEvents(t, out.String())
		require.Len(t, events, 1, "run %d: audit events:\n%s", i, out)
		assert.Equal(t, int64(i), events[0].Event, "run %d: audit event number", i)
		assert.Regexp(t, fmt.Sprintf(`^INV-\d{4}-00000%d$`, i), events[0].Invoice, "run %d: invoice", i)
		assert.Contains(t, out.String(), `"msg":"stopped"`, "run %d", i)
	}
	ttl, err := srv.Client().DescribeTimeToLive(context.Background(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(invoices)})
	require.NoError(t, err)
	assert.Equal(t, types.TimeToLiveStatusEnabled, ttl.TimeToLiveDescription.TimeToLiveStatus, "TTL of the invoices' table, for its idempotency keys")
	assert.Equal(t, "expires", aws.ToString(ttl.TimeToLiveDescription.AttributeName), "the invoices' table's TTL attribute")
}
