package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// TestIdempotencyKey sends the same Idempotency-Key again: with the same
// invoice it answers 200 with the first invoice and stores nothing, also
// after midnight on New Year's Eve (the old year's ID); with another
// invoice 409; on another tenant it is another request.
func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t)
	clk := &clock{t: time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC)}
	f := newFixture(t, srv, srv.Client(), clk.Now)
	const path = "/tenants/acme/invoices"

	first := f.do(t, http.MethodPost, path, "k1", invoiceBody("Globex"))
	require.Equal(t, http.StatusCreated, first.code, first.body)
	assert.Empty(t, first.header.Get("Idempotent-Replayed"), "first call")
	want := decode[Invoice](t, first)
	assert.Equal(t, "INV-2026-000001", want.ID)
	assert.Equal(t, "2026-12-31T23:59:59Z", want.CreatedAt, "created_at: the instant that dated the ID")

	for _, when := range []string{"at once", "after midnight"} {
		if when == "after midnight" {
			clk.Set(time.Date(2027, 1, 1, 0, 0, 1, 0, time.UTC))
		}
		again := f.do(t, http.MethodPost, path, "k1", invoiceBody("Globex"))
		require.Equal(t, http.StatusOK, again.code, "the same request %s: %s", when, again.body)
		assert.Equal(t, "true", again.header.Get("Idempotent-Replayed"), "the same request %s", when)
		assert.Equal(t, want, decode[Invoice](t, again), "the same request %s", when)
		assert.Equal(t, first.header.Get("Location"), again.header.Get("Location"), "the same request %s", when)
	}

	reused := f.do(t, http.MethodPost, path, "k1", invoiceBody("Initech"))
	assert.Equal(t, http.StatusConflict, reused.code, "the key with another invoice: %s", reused.body)

	other := f.do(t, http.MethodPost, "/tenants/globex/invoices", "k1", invoiceBody("Globex"))
	require.Equal(t, http.StatusCreated, other.code, "the key on another tenant: %s", other.body)
	assert.Equal(t, "INV-2027-000001", decode[Invoice](t, other).ID)

	assert.Equal(t, [][]string{{"INV-2026-000001"}}, pagesOf(t, f, "acme", "", 0), "acme's invoices")
	var msgs []string
	for _, e := range auditEvents(t, f.audit.String()) {
		msgs = append(msgs, e.Msg+" "+e.Invoice)
	}
	assert.Equal(t, []string{"invoice created INV-2026-000001", "invoice request replayed INV-2026-000001",
		"invoice request replayed INV-2026-000001", "invoice created INV-2027-000001"}, msgs, "audit events")
}
