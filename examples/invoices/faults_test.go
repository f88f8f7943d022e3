package main

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// TestConcurrentPostsLosingAnswers sends many POSTs at once to the service
// on the service model, through a transport that loses 30% of DynamoDB's
// answers to writes after they were applied (the SDK resends), and checks
// with CheckSequence that each tenant's year is gap-free, that no invoice
// is stored twice and that every 201 answered is stored with its request.
func TestConcurrentPostsLosingAnswers(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{}))
	ft := dynamoseqtest.NewFaultTransport(dynamoseqtest.Faults{LoseAnswers: 0.3, Seed: 27})
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	f := newFixture(t, srv, srv.Client(dynamoseqtest.WithTransport(ft), dynamoseqtest.FastRetries()), func() time.Time { return now })
	f.faulty = true

	const goroutines, perGoroutine = 16, 10
	tenants := []string{"acme", "globex"}
	var mu sync.Mutex
	told := map[string]map[string]int64{} // tenant -> Idempotency-Key -> number
	codes := map[int]int{}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perGoroutine {
				tenant, key := tenants[(g+i)%len(tenants)], fmt.Sprintf("g%02d-%02d", g, i)
				a := f.do(t, http.MethodPost, "/tenants/"+tenant+"/invoices", key, invoiceBody(key))
				mu.Lock()
				codes[a.code]++
				if a.code == http.StatusCreated {
					if told[tenant] == nil {
						told[tenant] = map[string]int64{}
					}
					told[tenant][key] = number(t, decode[Invoice](t, a).ID)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("answers: %v; DynamoDB answers lost: %d of %d requests", codes, ft.LostAnswers(), ft.Requests())
	assert.Equal(t, goroutines*perGoroutine, codes[http.StatusCreated], "201 answers (others: %v)", codes)
	require.Positive(t, ft.LostAnswers(), "answers the transport lost")

	check, err := dynamoseq.NewSortKey(srv.Client(), f.invoices)
	require.NoError(t, err)
	for _, tenant := range tenants {
		dynamoseqtest.CheckSequence(t, check, tenant+"#2026", "request_key", told[tenant])
	}
	seen := map[int64]string{}
	for _, e := range auditEvents(t, f.audit.String()) {
		assert.Empty(t, e.Error, "audit event of %s", e.Invoice)
		assert.NotContains(t, seen, e.Event, "audit event %d of %s was also %s", e.Event, e.Invoice, seen[e.Event])
		seen[e.Event] = e.Invoice
	}
	assert.Len(t, seen, codes[http.StatusCreated], "audit events, one per 201")
}

// number returns the number part of an invoice ID.
func number(t *testing.T, id string) int64 {
	t.Helper()
	_, n, err := idFormat.Parse(id, time.UTC)
	require.NoError(t, err)
	return n
}
