package dynamoseq_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"

	"github.com/dynamoseq/dynamoseq"
)

// status maps an error of dynamoseq to an HTTP status, as the README's
// Errors section shows it, setting Retry-After when nothing was stored
// and the same request may succeed later.
func status(w http.ResponseWriter, err error) int {
	if wait, ok := dynamoseq.RetryAfter(err); ok { // nothing stored
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(max(wait, time.Second).Seconds()))))
		return http.StatusServiceUnavailable
	}
	switch {
	case errors.Is(err, dynamoseq.ErrUnknownOutcome): // may be stored at Error.Number: log it, check it
		return http.StatusInternalServerError
	case errors.Is(err, dynamoseq.ErrInvalidArgument):
		return http.StatusBadRequest
	case errors.Is(err, dynamoseq.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, dynamoseq.ErrExhausted): // the sequence is full: the state, not the request
		return http.StatusConflict
	}
	return http.StatusInternalServerError // ErrTableNotFound, ErrTableMismatch: the setup is wrong
}

// ExampleRetryAfter maps the errors a request handler meets to HTTP
// statuses: 503 with Retry-After when nothing was stored and the same
// request may succeed later, 500 for an unknown outcome (read back the
// number), 4xx when the request is wrong.
func ExampleRetryAfter() {
	for _, err := range []error{
		&dynamoseq.Error{Op: "SortKey.Append", Err: fmt.Errorf("%w (waiting to write again after: %w)", context.DeadlineExceeded, dynamoseq.ErrThrottled)},
		&dynamoseq.Error{Op: "SortKey.Append", Err: errors.Join(dynamoseq.ErrUnknownOutcome, context.DeadlineExceeded), Number: 42},
		&dynamoseq.Error{Op: "SortKey.Append", Err: dynamoseq.ErrInvalidArgument},
		&dynamoseq.Error{Op: "SortKey.Get", Err: dynamoseq.ErrNotFound},
		&dynamoseq.Error{Op: "Counter.Next", Err: dynamoseq.ErrExhausted},
		&dynamoseq.Error{Op: "Counter.Next", Err: dynamoseq.ErrTableNotFound},
	} {
		w := httptest.NewRecorder()
		code := status(w, err)
		if after := w.Header().Get("Retry-After"); after != "" {
			fmt.Printf("%d, Retry-After: %s\n", code, after)
			continue
		}
		fmt.Println(code)
	}
	// Output:
	// 503, Retry-After: 1
	// 500
	// 400
	// 404
	// 409
	// 500
}
