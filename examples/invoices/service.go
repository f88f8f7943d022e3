package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/dynamoseq/dynamoseq"
)

// idFormat writes an invoice's ID: "INV-2026-000123", the year of the
// sequence and the invoice's number in it.
var idFormat = dynamoseq.Format{Prefix: "INV", DateLayout: "2006", Separator: "-", Width: 6}

// Config is what a Service is built from.
type Config struct {
	// Client reaches DynamoDB; *dynamodb.Client satisfies it.
	Client dynamoseq.Client

	// Invoices is the table of the invoices (dynamoseq.SortKeyTable), and
	// Counters the table of the audit events' counter
	// (dynamoseq.CounterTable).
	Invoices, Counters string

	// Since is the instant of the first invoice: listings walk the years
	// back to the one that holds it (one Query per year walked).
	Since time.Time

	// Audit receives the audit log, one JSON object a line.
	Audit io.Writer

	// Now is the clock (default time.Now), so that tests can cross a New
	// Year's Eve.
	Now func() time.Time
}

// Service creates, reads and lists the invoices of many tenants. Each
// tenant has a gap-free sequence of invoice numbers per year, stored in
// DynamoDB with the invoices themselves (a dynamoseq.SortKey under a
// yearly dynamoseq.SortKeyIDMinter), created exactly once per request key
// (AppendOnce). Each request answered with an invoice is logged as an
// audit event numbered by a dynamoseq.Block (unique, gaps allowed, no
// round trip for most events). It is safe for concurrent use; Close it
// once its handlers have returned.
type Service struct {
	invoices *dynamoseq.SortKeyIDMinter
	audit    *auditLog
	since    time.Time
}

// NewService checks cfg and builds a Service; it makes no call to
// DynamoDB.
func NewService(cfg Config) (*Service, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Since.IsZero() || cfg.Audit == nil {
		return nil, errors.New("invoices: Config.Since and Config.Audit are required")
	}
	numbers, err := dynamoseq.NewSortKey(cfg.Client, cfg.Invoices)
	if err != nil {
		return nil, err
	}
	invoices, err := dynamoseq.NewSortKeyIDMinter(numbers, idFormat, dynamoseq.Yearly,
		func(o *dynamoseq.IDMinterOptions) { o.Now, o.TimeAttribute = cfg.Now, "created_at" })
	if err != nil {
		return nil, err
	}
	audit, err := newAuditLog(cfg.Client, cfg.Counters, cfg.Audit)
	if err != nil {
		return nil, err
	}
	return &Service{invoices: invoices, audit: audit, since: cfg.Since}, nil
}

// Close hands back the audit numbers leased and unused. Call it once no
// handler runs (after http.Server.Shutdown).
func (s *Service) Close() error { return s.audit.Close() }

// Create stores inv as the tenant's next invoice of the year, with the
// request's Idempotency-Key, and returns it with its ID. The first request
// with key stores it (replayed false); a request with the same key and the
// same invoice, such as a client's retry after a lost answer or a 503,
// stores nothing and returns the invoice of the first (replayed true),
// across processes and restarts, for dynamoseq's KeyWindow (24 hours).
// The same key with another invoice returns dynamoseq.ErrKeyReused.
//
// The item compared is what the client sent and its key; the instant that
// dated its ID (created_at) is written by the library and left out of the
// comparison. Cost: one TransactWriteItems (the invoice and its key item)
// when warm, a replay the same, and one GetItem to read created_at back.
func (s *Service) Create(ctx context.Context, tenant, key string, inv Invoice) (_ Invoice, replayed bool, err error) {
	inv.RequestKey, inv.CreatedAt = key, ""
	id, replayed, err := s.invoices.AppendOnce(ctx, tenant, key, inv)
	if err != nil {
		return Invoice{}, false, fmt.Errorf("creating an invoice of tenant %q: %w", tenant, err)
	}
	// Stored: a failed read asks the client to retry, which replays.
	stored, err := s.Get(ctx, tenant, id)
	if err != nil {
		return Invoice{}, false, fmt.Errorf("reading back invoice %s of tenant %q: %w", id, tenant, err)
	}
	s.audit.created(ctx, stored, replayed)
	return stored, replayed, nil
}

// Get reads the tenant's invoice by its ID: dynamoseq.ErrNotFound when
// there is none, dynamoseq.ErrInvalidArgument for an ID of another form.
func (s *Service) Get(ctx context.Context, tenant, id string) (Invoice, error) {
	var inv Invoice
	if err := s.invoices.Get(ctx, tenant, id, &inv); err != nil {
		return Invoice{}, err
	}
	inv.ID, inv.Tenant = id, tenant
	return inv, nil
}

// List returns up to limit invoices of the tenant in order, starting after
// the ID after ("" for the first page), across years, and the cursor of
// the next page ("" on the last page). It reads one invoice more than the
// page to know whether there is a next page.
func (s *Service) List(ctx context.Context, tenant, after string, order dynamoseq.Order, limit int) ([]Invoice, string, error) {
	page := make([]Invoice, 0, limit)
	for it, err := range s.invoices.All(ctx, tenant, s.since, after, order) {
		if err != nil {
			return nil, "", err
		}
		if len(page) == limit {
			return page, page[limit-1].ID, nil
		}
		var inv Invoice
		if err := it.Decode(&inv); err != nil {
			return nil, "", fmt.Errorf("invoice %s of tenant %q: %w", it.ID, tenant, err)
		}
		inv.ID, inv.Tenant = it.ID, tenant
		page = append(page, inv)
	}
	return page, "", nil
}
