package main

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/dynamoseq/dynamoseq"
)

// statusOf is the one place where an error becomes an HTTP status. It sets
// Retry-After on w when the client should send the same request again
// later (with the same Idempotency-Key, which makes that safe):
//   - 400: the request is wrong (errBadInput, dynamoseq.ErrInvalidArgument:
//     a malformed ID or cursor);
//   - 404: no such invoice (dynamoseq.ErrNotFound);
//   - 409: the Idempotency-Key came first with another invoice
//     (dynamoseq.ErrKeyReused);
//   - 503 with Retry-After: nothing was stored and the same request may
//     succeed later (dynamoseq.RetryAfter: throttled, contention,
//     DynamoDB unreachable), or the outcome is unknown
//     (dynamoseq.ErrUnknownOutcome), which a retry with the same key
//     settles;
//   - 500: anything else (a table missing or of another shape, a bug).
func statusOf(w http.ResponseWriter, err error) int {
	retry := func(wait time.Duration) int {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(max(wait, time.Second).Seconds()))))
		return http.StatusServiceUnavailable
	}
	if wait, ok := dynamoseq.RetryAfter(err); ok {
		return retry(wait)
	}
	switch {
	case errors.Is(err, errBadInput), errors.Is(err, dynamoseq.ErrInvalidArgument):
		return http.StatusBadRequest
	case errors.Is(err, dynamoseq.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, dynamoseq.ErrKeyReused):
		return http.StatusConflict
	case errors.Is(err, dynamoseq.ErrUnknownOutcome):
		return retry(time.Second)
	}
	return http.StatusInternalServerError
}
