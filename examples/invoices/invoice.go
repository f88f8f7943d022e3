package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
)

// errBadInput marks a request the service refuses as it is: the handlers
// answer it with 400, as they do dynamoseq.ErrInvalidArgument.
var errBadInput = errors.New("bad input")

// Invoice is an invoice as the API shows it and as it is stored: the
// sequence's item under the invoice's number, so that the number exists
// only if the invoice does. ID and Tenant are the item's key (the
// SortKeyIDMinter writes them), not attributes of their own; the ID's
// year is the year the invoice was created in.
//
// CreatedAt is the instant that dated the ID, which the SortKeyIDMinter
// writes itself (IDMinterOptions.TimeAttribute), so it always falls in the
// ID's year, and a retry (which reads another time) is still the same
// request to AppendOnce.
type Invoice struct {
	ID         string `json:"id" dynamodbav:"-"`
	Tenant     string `json:"tenant" dynamodbav:"-"`
	Customer   string `json:"customer" dynamodbav:"customer"`
	Currency   string `json:"currency" dynamodbav:"currency"`
	Lines      []Line `json:"lines" dynamodbav:"lines"`
	TotalCents int64  `json:"total_cents" dynamodbav:"total_cents"`
	CreatedAt  string `json:"created_at" dynamodbav:"created_at,omitempty"`

	// RequestKey is the Idempotency-Key of the request that created the
	// invoice: whose invoice this is, when a client asks again.
	RequestKey string `json:"-" dynamodbav:"request_key"`
}

// Line is one line of an invoice.
type Line struct {
	Description string `json:"description" dynamodbav:"description"`
	Quantity    int64  `json:"quantity" dynamodbav:"quantity"`
	UnitCents   int64  `json:"unit_cents" dynamodbav:"unit_cents"`
}

// newInvoice is what a client sends to create an invoice.
type newInvoice struct {
	Customer string `json:"customer"`
	Currency string `json:"currency"`
	Lines    []Line `json:"lines"`
}

// Bounds of a request, so that a total always fits in an int64.
const (
	maxBodyBytes   = 64 << 10
	maxLines       = 100
	maxQuantity    = 1_000_000
	maxUnitCents   = 10_000_000_000 // 100 million in currency units
	maxTextLength  = 200
	maxRequestKey  = 255
	defaultPerPage = 20
	maxPerPage     = 100
)

var (
	currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)
	tenantName   = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)
)

// decodeInvoice reads a request body into an invoice without an ID or a
// creation time, with its total; errors wrap errBadInput.
func decodeInvoice(body io.Reader) (Invoice, error) {
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	var req newInvoice
	if err := dec.Decode(&req); err != nil {
		return Invoice{}, fmt.Errorf("%w: the body is not an invoice: %v", errBadInput, err)
	}
	if dec.More() {
		return Invoice{}, fmt.Errorf("%w: the body holds more than one JSON value", errBadInput)
	}
	inv := Invoice{Customer: req.Customer, Currency: req.Currency, Lines: req.Lines}
	if err := inv.check(); err != nil {
		return Invoice{}, fmt.Errorf("%w: %v", errBadInput, err)
	}
	for _, l := range inv.Lines {
		inv.TotalCents += l.Quantity * l.UnitCents
	}
	return inv, nil
}

// check tells what is wrong with the content of a new invoice.
func (inv Invoice) check() error {
	switch {
	case inv.Customer == "" || len(inv.Customer) > maxTextLength:
		return fmt.Errorf("customer %q: want 1 to %d bytes", inv.Customer, maxTextLength)
	case !currencyCode.MatchString(inv.Currency):
		return fmt.Errorf("currency %q: want an ISO 4217 code such as EUR", inv.Currency)
	case len(inv.Lines) == 0 || len(inv.Lines) > maxLines:
		return fmt.Errorf("%d lines: want 1 to %d", len(inv.Lines), maxLines)
	}
	for i, l := range inv.Lines {
		switch {
		case l.Description == "" || len(l.Description) > maxTextLength:
			return fmt.Errorf("line %d: description %q: want 1 to %d bytes", i+1, l.Description, maxTextLength)
		case l.Quantity < 1 || l.Quantity > maxQuantity:
			return fmt.Errorf("line %d: quantity %d: want 1 to %d", i+1, l.Quantity, maxQuantity)
		case l.UnitCents < 0 || l.UnitCents > maxUnitCents:
			return fmt.Errorf("line %d: unit_cents %d: want 0 to %d", i+1, l.UnitCents, int64(maxUnitCents))
		}
	}
	return nil
}

// checkTenant refuses a tenant name that is not a short lowercase slug.
func checkTenant(tenant string) error {
	if !tenantName.MatchString(tenant) {
		return fmt.Errorf("%w: tenant %q: want 1 to 63 characters from a-z, 0-9 and '-'", errBadInput, tenant)
	}
	return nil
}

// checkRequestKey refuses a missing or oversized Idempotency-Key.
func checkRequestKey(key string) error {
	if key == "" || len(key) > maxRequestKey {
		return fmt.Errorf("%w: header Idempotency-Key has %d bytes: want 1 to %d (a UUID, say), the same for each retry of a request", errBadInput, len(key), maxRequestKey)
	}
	return nil
}
