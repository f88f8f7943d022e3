package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/dynamoseq/dynamoseq"
)

// Handler returns the service's HTTP API:
//
//	POST /tenants/{tenant}/invoices          create (header Idempotency-Key)
//	GET  /tenants/{tenant}/invoices/{id}     read one by its ID
//	GET  /tenants/{tenant}/invoices          list: ?order=newest|oldest&after=ID&limit=N
//
// Errors are logged to errorLog and answered as statusOf says, with a JSON
// body {"error": "..."}.
func (s *Service) Handler(errorLog *slog.Logger) http.Handler {
	h := &handlers{svc: s, log: errorLog}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /tenants/{tenant}/invoices", h.create)
	mux.HandleFunc("GET /tenants/{tenant}/invoices/{id}", h.get)
	mux.HandleFunc("GET /tenants/{tenant}/invoices", h.list)
	return mux
}

type handlers struct {
	svc *Service
	log *slog.Logger
}

// create answers 201 with the invoice created, or 200 with the invoice
// that an earlier request with the same Idempotency-Key created (header
// Idempotent-Replayed: true).
func (h *handlers) create(w http.ResponseWriter, r *http.Request) {
	tenant, key := r.PathValue("tenant"), r.Header.Get("Idempotency-Key")
	err := checkTenant(tenant)
	if err == nil {
		err = checkRequestKey(key)
	}
	var inv Invoice
	if err == nil {
		inv, err = decodeInvoice(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	inv, replayed, err := h.svc.Create(r.Context(), tenant, key, inv)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	code := http.StatusCreated
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
		code = http.StatusOK
	}
	w.Header().Set("Location", "/tenants/"+tenant+"/invoices/"+inv.ID)
	h.reply(w, code, inv)
}

// get answers 200 with the invoice.
func (h *handlers) get(w http.ResponseWriter, r *http.Request) {
	tenant := r.PathValue("tenant")
	if err := checkTenant(tenant); err != nil {
		h.fail(w, r, err)
		return
	}
	inv, err := h.svc.Get(r.Context(), tenant, r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.reply(w, http.StatusOK, inv)
}

// page is a page of a listing; Next, when there is a next page, is the
// value of its after parameter.
type page struct {
	Invoices []Invoice `json:"invoices"`
	Next     string    `json:"next,omitempty"`
}

// list answers 200 with a page of the tenant's invoices.
func (h *handlers) list(w http.ResponseWriter, r *http.Request) {
	tenant, q := r.PathValue("tenant"), r.URL.Query()
	order, limit, err := listParams(q.Get("order"), q.Get("limit"))
	if err == nil {
		err = checkTenant(tenant)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	invoices, next, err := h.svc.List(r.Context(), tenant, q.Get("after"), order, limit)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.reply(w, http.StatusOK, page{Invoices: invoices, Next: next})
}

// listParams reads a listing's order (default newest) and page size.
func listParams(order, limit string) (dynamoseq.Order, int, error) {
	o := dynamoseq.NewestFirst
	switch order {
	case "", "newest":
	case "oldest":
		o = dynamoseq.OldestFirst
	default:
		return o, 0, fmt.Errorf("%w: order %q: want newest or oldest", errBadInput, order)
	}
	if limit == "" {
		return o, defaultPerPage, nil
	}
	n, err := strconv.Atoi(limit)
	if err != nil || n < 1 || n > maxPerPage {
		return o, 0, fmt.Errorf("%w: limit %q: want 1 to %d", errBadInput, limit, maxPerPage)
	}
	return o, n, nil
}

// fail answers err with the status statusOf gives it: a client error
// with its message, a server error with its status text only (the log
// has the message, which names tables).
func (h *handlers) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := statusOf(w, err)
	h.log.LogAttrs(r.Context(), slog.LevelWarn, "request failed",
		slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("status", code), slog.String("error", err.Error()))
	msg := err.Error()
	switch {
	case code == http.StatusNotFound:
		msg = "no such invoice"
	case code == http.StatusConflict:
		msg = "this Idempotency-Key came before with another invoice: a new request takes a new key"
	case code == http.StatusServiceUnavailable:
		msg = "try again later with the same Idempotency-Key (Retry-After)"
	case code >= 500:
		msg = http.StatusText(code)
	}
	h.reply(w, code, map[string]string{"error": msg})
}

// reply writes v as the JSON body of a code answer.
func (h *handlers) reply(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		h.log.Warn("writing an answer", "error", err.Error())
	}
}
