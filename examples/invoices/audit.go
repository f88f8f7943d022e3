package main

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/dynamoseq/dynamoseq"
)

// auditSequence is the name of the audit events' sequence.
const auditSequence = "audit"

// auditTimeout bounds the numbering of one event, which goes on after the
// request that caused it ended: the invoice is stored by then.
const auditTimeout = 5 * time.Second

// auditLog writes one JSON line per audit event, numbered by a Block:
// numbers are unique and increasing within a process, and a process that
// stops without Close leaves a gap, which an audit log may have. Most
// events cost no round trip: the Block leases numbers ten or more at a
// time. It is safe for concurrent use.
type auditLog struct {
	numbers *dynamoseq.Block
	log     *slog.Logger
}

// newAuditLog returns an auditLog whose counter is in table.
func newAuditLog(client dynamoseq.Client, table string, w io.Writer) (*auditLog, error) {
	counter, err := dynamoseq.NewCounter(client, table)
	if err != nil {
		return nil, err
	}
	numbers, err := dynamoseq.NewBlock(counter, 10)
	if err != nil {
		return nil, err
	}
	return &auditLog{numbers: numbers, log: slog.New(slog.NewJSONHandler(w, nil))}, nil
}

// created logs a request that created inv, or (replayed) that came again
// with the key of the one that did: each request answered with an invoice
// has its event, so that an invoice whose first request ended with an
// unknown outcome has one too. An event that cannot be numbered is logged
// with the error instead of a number: the invoice exists all the same.
func (a *auditLog) created(ctx context.Context, inv Invoice, replayed bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), auditTimeout)
	defer cancel()
	msg := "invoice created"
	if replayed {
		msg = "invoice request replayed"
	}
	attrs := []any{"tenant", inv.Tenant, "invoice", inv.ID, "total_cents", inv.TotalCents, "currency", inv.Currency}
	n, err := a.numbers.Next(ctx, auditSequence)
	if err != nil {
		a.log.Error(msg, append(attrs, "event", 0, "error", err.Error())...)
		return
	}
	a.log.Info(msg, append(attrs, "event", n)...)
}

// Close hands back the numbers leased and unused (Block.Close).
func (a *auditLog) Close() error { return a.numbers.Close() }
