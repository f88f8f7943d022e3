package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dynamoseq/dynamoseq"
)

// TestStatusOf maps each kind of error a handler meets to its status, and
// says when to retry.
func TestStatusOf(t *testing.T) {
	t.Parallel()
	wrap := func(err error) error {
		return fmt.Errorf("creating an invoice of tenant %q: %w", "acme", &dynamoseq.Error{Op: "SortKeyIDMinter.AppendAt", Table: "invoices", Sequence: "acme#2026", Err: err})
	}
	for _, c := range []struct {
		name       string
		err        error
		want       int
		retryAfter string
	}{
		{"bad input", fmt.Errorf("%w: no lines", errBadInput), http.StatusBadRequest, ""},
		{"invalid argument", wrap(dynamoseq.ErrInvalidArgument), http.StatusBadRequest, ""},
		{"not found", wrap(dynamoseq.ErrNotFound), http.StatusNotFound, ""},
		{"key reused", wrap(dynamoseq.ErrKeyReused), http.StatusConflict, ""},
		{"throttled", wrap(fmt.Errorf("%w (waiting to write again after: %w)", context.DeadlineExceeded, dynamoseq.ErrThrottled)), http.StatusServiceUnavailable, "1"},
		{"contention", wrap(dynamoseq.ErrContention), http.StatusServiceUnavailable, "1"},
		{"canceled before sending", wrap(context.Canceled), http.StatusServiceUnavailable, "1"},
		{"unknown outcome", wrap(errors.Join(dynamoseq.ErrUnknownOutcome, context.DeadlineExceeded)), http.StatusServiceUnavailable, "1"},
		{"table not found", wrap(dynamoseq.ErrTableNotFound), http.StatusInternalServerError, ""},
		{"table mismatch", wrap(dynamoseq.ErrTableMismatch), http.StatusInternalServerError, ""},
		{"anything else", errors.New("boom"), http.StatusInternalServerError, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			assert.Equal(t, c.want, statusOf(w, c.err), "statusOf(%v)", c.err)
			assert.Equal(t, c.retryAfter, w.Header().Get("Retry-After"), "Retry-After of %v", c.err)
		})
	}
}
