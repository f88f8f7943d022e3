package main

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// TestInvoicesAcrossYears creates invoices on New Year's Eve for two
// tenants, reads one back by its ID, and pages through a tenant's
// invoices newest and oldest first across the new year: each page's next
// is the after of the following one.
func TestInvoicesAcrossYears(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t)
	clk := &clock{t: time.Date(2026, 12, 31, 23, 59, 58, 0, time.UTC)}
	f := newFixture(t, srv, srv.Client(), clk.Now)

	var created []Invoice
	for i, tenant := range []string{"acme", "acme", "globex", "acme", "acme", "acme"} {
		if i == 3 {
			clk.Set(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)) // midnight
		}
		a := f.do(t, http.MethodPost, "/tenants/"+tenant+"/invoices", fmt.Sprint("key-", i), invoiceBody(fmt.Sprint("customer-", i)))
		require.Equal(t, http.StatusCreated, a.code, "POST %d: %s", i, a.body)
		inv := decode[Invoice](t, a)
		assert.Equal(t, "/tenants/"+tenant+"/invoices/"+inv.ID, a.header.Get("Location"))
		assert.Equal(t, int64(3750), inv.TotalCents)
		created = append(created, inv)
	}
	var ids []string
	for _, inv := range created {
		ids = append(ids, inv.Tenant+" "+inv.ID)
	}
	assert.Equal(t, []string{"acme INV-2026-000001", "acme INV-2026-000002", "globex INV-2026-000001",
		"acme INV-2027-000001", "acme INV-2027-000002", "acme INV-2027-000003"}, ids)

	got := decode[Invoice](t, f.do(t, http.MethodGet, "/tenants/acme/invoices/INV-2026-000002", "", ""))
	assert.Equal(t, created[1], got, "GET INV-2026-000002")

	newest := []string{"INV-2027-000003", "INV-2027-000002", "INV-2027-000001", "INV-2026-000002", "INV-2026-000001"}
	assert.Equal(t, [][]string{newest[:2], newest[2:4], newest[4:]}, pagesOf(t, f, "acme", "newest", 2))
	assert.Equal(t, [][]string{{newest[4], newest[3], newest[2]}, {newest[1], newest[0]}}, pagesOf(t, f, "acme", "oldest", 3))
	assert.Equal(t, [][]string{{"INV-2026-000001"}}, pagesOf(t, f, "globex", "", 0))
	assert.Equal(t, [][]string{{}}, pagesOf(t, f, "initech", "", 0), "a tenant with no invoice")

	events := auditEvents(t, f.audit.String())
	require.Len(t, events, len(created), "audit events, one per invoice created")
	for i, e := range events {
		assert.Equal(t, int64(i+1), e.Event, "audit event of %s", e.Invoice)
		assert.Equal(t, created[i].ID, e.Invoice)
	}
}

// pagesOf lists a tenant's invoices page by page, following next, and
// returns the IDs of each page.
func pagesOf(t *testing.T, f *fixture, tenant, order string, limit int) [][]string {
	t.Helper()
	var pages [][]string
	after := ""
	for range 10 {
		path := "/tenants/" + tenant + "/invoices?order=" + order + "&after=" + after
		if limit > 0 {
			path += fmt.Sprint("&limit=", limit)
		}
		a := f.do(t, http.MethodGet, path, "", "")
		require.Equal(t, http.StatusOK, a.code, "GET %s: %s", path, a.body)
		p := decode[page](t, a)
		ids := []string{}
		for _, inv := range p.Invoices {
			ids = append(ids, inv.ID)
		}
		pages = append(pages, ids)
		if p.Next == "" {
			return pages
		}
		after = p.Next
	}
	t.Fatalf("listing %s: more than 10 pages: %v", tenant, pages)
	return nil
}

// TestInvoicesRefused sends requests that the service refuses, each with
// the status that says why, and stores nothing.
func TestInvoicesRefused(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t)
	f := newFixture(t, srv, srv.Client(), nil)
	require.Equal(t, http.StatusCreated, f.do(t, http.MethodPost, "/tenants/acme/invoices", "first", invoiceBody("Globex")).code)
	id := fmt.Sprintf("INV-%d-000001", time.Now().UTC().Year())

	for _, c := range []struct {
		name, method, path, key, body string
		want                          int
	}{
		{"no Idempotency-Key", http.MethodPost, "/tenants/acme/invoices", "", invoiceBody("Globex"), http.StatusBadRequest},
		{"a tenant with capitals", http.MethodPost, "/tenants/ACME/invoices", "k", invoiceBody("Globex"), http.StatusBadRequest},
		{"not JSON", http.MethodPost, "/tenants/acme/invoices", "k", "customer=Globex", http.StatusBadRequest},
		{"an unknown field", http.MethodPost, "/tenants/acme/invoices", "k", `{"customer":"G","currency":"EUR","lines":[],"discount":5}`, http.StatusBadRequest},
		{"no lines", http.MethodPost, "/tenants/acme/invoices", "k", `{"customer":"G","currency":"EUR","lines":[]}`, http.StatusBadRequest},
		{"a negative price", http.MethodPost, "/tenants/acme/invoices", "k", `{"customer":"G","currency":"EUR","lines":[{"description":"d","quantity":1,"unit_cents":-1}]}`, http.StatusBadRequest},
		{"a currency in lowercase", http.MethodPost, "/tenants/acme/invoices", "k", `{"customer":"G","currency":"eur","lines":[{"description":"d","quantity":1,"unit_cents":1}]}`, http.StatusBadRequest},
		{"an ID of another form", http.MethodGet, "/tenants/acme/invoices/ORD-1", "", "", http.StatusBadRequest},
		{"an ID not issued", http.MethodGet, "/tenants/acme/invoices/INV-2026-000999", "", "", http.StatusNotFound},
		{"another tenant's ID", http.MethodGet, "/tenants/globex/invoices/" + id, "", "", http.StatusNotFound},
		{"a cursor of another form", http.MethodGet, "/tenants/acme/invoices?after=42", "", "", http.StatusBadRequest},
		{"an unknown order", http.MethodGet, "/tenants/acme/invoices?order=random", "", "", http.StatusBadRequest},
		{"a limit of 0", http.MethodGet, "/tenants/acme/invoices?limit=0", "", "", http.StatusBadRequest},
		{"a limit above 100", http.MethodGet, "/tenants/acme/invoices?limit=101", "", "", http.StatusBadRequest},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := f.do(t, c.method, c.path, c.key, c.body)
			assert.Equal(t, c.want, a.code, "%s %s: %s", c.method, c.path, a.body)
			assert.Contains(t, decode[map[string]string](t, a), "error")
		})
	}
	assert.Equal(t, [][]string{{id}}, pagesOf(t, f, "acme", "", 0), "invoices stored")
}
