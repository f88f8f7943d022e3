package dynamoseq

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/internal/engine"
)

// Errors that callers branch on with errors.Is. Every error returned by this
// package is an *Error that names the table and the sequence; these sentinels
// are found inside it.
var (
	// ErrNotFound: the sequence, version or item asked for does not exist.
	ErrNotFound = errors.New("dynamoseq: not found")

	// ErrContention: a write kept losing races to other writers of the same
	// sequence and the retries allowed by the MaxAttempts option ran out;
	// or, with the context's error, the call was waiting to write again
	// because another process's transaction held its items (a conflict)
	// when its context ended (see ErrThrottled). Nothing was written by
	// the call that returned it; the same call may succeed later (see
	// RetryAfter).
	ErrContention = errors.New("dynamoseq: contention: retries exhausted")

	// ErrThrottled: DynamoDB refused the call's requests for want of
	// capacity (ThrottlingException, ProvisionedThroughputExceededException,
	// or a transaction cancelled for it), and the call was waiting to send
	// again when its context ended (the error also matches the context's
	// error) or when it had waited Retry.MaxWait. Nothing was stored; the
	// same call may succeed later (see RetryAfter). As long as a call's
	// context has time left, throttles are waited out, never returned.
	ErrThrottled = errors.New("dynamoseq: throttled")

	// ErrExhausted: the sequence reached its MaxValue option. The stored value
	// was not changed.
	ErrExhausted = errors.New("dynamoseq: sequence exhausted")

	// ErrInvalidArgument: the caller passed something the package cannot
	// use: an empty or oversized name, a count below 1, an option out of
	// range, an item that sets a key attribute. Nothing was written.
	ErrInvalidArgument = errors.New("dynamoseq: invalid argument")

	// ErrTableNotFound: DynamoDB reports that the table does not exist (or
	// is not visible to these credentials in this region).
	ErrTableNotFound = errors.New("dynamoseq: table not found")

	// ErrTableMismatch: the table or an item already in it does not have
	// the shape the options describe, for example a value attribute that
	// holds a string, or a key schema with other attribute names or types.
	// Nothing was written.
	ErrTableMismatch = errors.New("dynamoseq: table does not match the options")

	// ErrClosed: the value was used after its Close method was called.
	ErrClosed = errors.New("dynamoseq: closed")

	// ErrKeyReused: an AppendOnce or NextOnce call passed an idempotency
	// key that an earlier call on the same sequence used, within
	// Table.KeyWindow, with other content (another item). Nothing was
	// written; the key still names the first call's number.
	ErrKeyReused = errors.New("dynamoseq: idempotency key reused with other content")

	// ErrUnknownOutcome: a write was sent and its outcome could not be
	// found out before the caller's context ended (also matched then), or,
	// with the ResolveTimeout option, before that passed; or DynamoDB
	// could not be reached to find out. The *Error's Number is the number
	// that may hold the item (0 when there is none to check, as for a
	// Counter, where an unknown outcome can only leave a gap: retrying is
	// safe, the number may be lost). Read it back before writing the same
	// content again.
	ErrUnknownOutcome = errors.New("dynamoseq: outcome unknown")
)

// Error is the error returned by every operation of the package. It names
// the operation, the table and the sequence (the document, for Latest),
// each when there is one; errors.Is and errors.As see through it to the
// sentinel above, the context's error, or the SDK's typed error (such as
// *types.ProvisionedThroughputExceededException).
type Error struct {
	Op       string // the method that failed, such as "Counter.Next"
	Table    string // the DynamoDB table
	Sequence string // the sequence (or document) name as the caller gave it; "" for a constructor
	Err      error  // the cause
	// Number is the number a write may have stored its item under, when
	// Err wraps ErrUnknownOutcome; 0 otherwise.
	Number int64
}

func (e *Error) Error() string {
	// The sentinels carry the package prefix so they read well alone; it is
	// not repeated when they are wrapped here.
	cause := strings.TrimPrefix(e.Err.Error(), "dynamoseq: ")
	// The parts that are set: a constructor has no sequence, an operation
	// such as Format.Parse no table either.
	var where []string
	if e.Table != "" {
		where = append(where, fmt.Sprintf("table %q", e.Table))
	}
	if e.Sequence != "" {
		where = append(where, fmt.Sprintf("%s %q", e.noun(), e.Sequence))
	}
	if len(where) == 0 {
		return fmt.Sprintf("dynamoseq: %s: %s", e.Op, cause)
	}
	if e.Number != 0 {
		where = append(where, fmt.Sprintf("number %d", e.Number))
	}
	return fmt.Sprintf("dynamoseq: %s: %s: %s", e.Op, strings.Join(where, ", "), cause)
}

// noun is what the message calls the named thing: a Latest keeps documents,
// the other strategies number sequences.
func (e *Error) noun() string {
	if strings.HasPrefix(e.Op, "Latest.") {
		return "document"
	}
	return "sequence"
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// OptionError is an option a constructor refuses. errors.Is(err,
// ErrInvalidArgument) holds for it, and the constructor's *Error wraps it.
// Its fields let a program say which of its own settings to fix, as the
// command maps Field to its flag.
type OptionError struct {
	// Field is the option as Go code writes it: "MaxAttempts",
	// "SortKeyValue", "Layout.VersionKeyFormat", "TTLAttribute".
	Field string
	// Value is the value the field holds: the one given, or the default a
	// zero value stood for.
	Value any
	// Reason says what is wrong, without naming another option: "want at
	// least 1", "below the first value".
	Reason string
	// Other is the option whose value Field conflicts with, when only the
	// combination is refused ("Start" for a MaxValue below it), and
	// OtherValue its value; "" and nil when Field is wrong on its own.
	Other      string
	OtherValue any
}

func (e *OptionError) Error() string {
	msg := fmt.Sprintf("dynamoseq: invalid argument: %s is %s, %s", e.Field, formatOptionValue(e.Value), e.Reason)
	if e.Other != "" {
		msg += fmt.Sprintf(" (%s is %s)", e.Other, formatOptionValue(e.OtherValue))
	}
	return msg
}

// Unwrap returns ErrInvalidArgument.
func (e *OptionError) Unwrap() error { return ErrInvalidArgument }

// formatOptionValue writes an option's value as an OptionError's message
// does: strings quoted (the middle of a long one left out), lists of
// strings as quoted lists, other values in their default format.
func formatOptionValue(v any) string {
	switch v := v.(type) {
	case string:
		if len(v) > 64 {
			return fmt.Sprintf("%q...%q", v[:30], v[len(v)-30:])
		}
		return fmt.Sprintf("%q", v)
	case []string:
		return fmt.Sprintf("%q", v)
	case GlobalTableMode:
		return v.name()
	}
	return fmt.Sprint(v)
}

// optionErrorf returns the *OptionError of field holding value.
func optionErrorf(field string, value any, reason string, args ...any) *OptionError {
	return &OptionError{Field: field, Value: value, Reason: fmt.Sprintf(reason, args...)}
}

// with names the option whose value conflicts with e's.
func (e *OptionError) with(other string, value any) *OptionError {
	e.Other, e.OtherValue = other, value
	return e
}

// invalidf returns an ErrInvalidArgument with a description of the problem.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))
}

// classify adds a sentinel to the SDK errors that every operation treats the
// same way. It decides by the SDK's typed errors, never by message text;
// context errors pass through unchanged (the SDK wraps them so that
// errors.Is(err, context.Canceled) holds).
func classify(err error) error {
	var notFound *types.ResourceNotFoundException
	if errors.As(err, &notFound) {
		return fmt.Errorf("%w: %w", ErrTableNotFound, err)
	}
	return err
}

// defaultRetryAfter is what RetryAfter suggests when nothing says better:
// the longest wait between two sends of a write that DynamoDB keeps
// refusing, when the partition has shown no slower refill
// (engine.RefusedGap).
const defaultRetryAfter = engine.RefusedGap

// RetryAfter reports whether the call that returned err stored nothing and
// the same call may succeed if made again later, and suggests how long to
// wait first, for example for an HTTP Retry-After header. That holds for
// ErrThrottled and ErrContention (capacity or other writers were in the
// way), for DynamoDB unreachable before anything was sent, and for the
// caller's context ending before the write was sent. It does not hold for
// ErrUnknownOutcome (the write may be stored: read back the *Error's
// Number), nor for the errors of a request or a setup that is wrong
// (ErrInvalidArgument, ErrTableMismatch, ErrTableNotFound, ErrExhausted,
// ErrNotFound, ErrClosed), which waiting does not change.
//
// The wait suggested is the library's own next wait for capacity when
// there is one, else a second.
func RetryAfter(err error) (time.Duration, bool) {
	var capacity *capacityError
	var op *net.OpError
	switch {
	case err == nil, errors.Is(err, ErrUnknownOutcome):
		return 0, false
	case errors.As(err, &capacity):
		return capacity.wait, true
	case errors.Is(err, ErrThrottled), errors.Is(err, ErrContention):
		return defaultRetryAfter, true
	case errors.Is(err, ErrInvalidArgument), errors.Is(err, ErrTableMismatch), errors.Is(err, ErrTableNotFound),
		errors.Is(err, ErrExhausted), errors.Is(err, ErrNotFound), errors.Is(err, ErrClosed):
		return 0, false
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &op) && op.Op == "dial", errors.As(err, new(*unsentError)):
		return defaultRetryAfter, true
	}
	return 0, false
}

// capacityError is why a call is waiting to write again, or stopped
// waiting: DynamoDB throttled it (kind ErrThrottled) or another
// transaction held its items (kind ErrContention), err says how, and wait
// is the library's next wait for capacity. Nothing was stored.
type capacityError struct {
	kind error
	wait time.Duration
	err  error
}

func (e *capacityError) Error() string {
	what := "throttled"
	if e.kind == ErrContention {
		what = "conflict with another transaction"
	}
	return fmt.Sprintf("%s, nothing stored (retry in %v): %v", what, e.wait.Round(time.Millisecond), e.err)
}

// Unwrap returns the kind, ErrThrottled or ErrContention, and DynamoDB's
// error.
func (e *capacityError) Unwrap() []error { return []error{e.kind, e.err} }

// unsentError is why a call's write was not sent, when the same call may
// succeed later: a read before the write failed (a network error, a
// server error), or the write of a number before it has an unknown
// outcome. Nothing of the call was stored.
type unsentError struct{ err error }

func (e *unsentError) Error() string { return "not sent: " + e.err.Error() }

func (e *unsentError) Unwrap() error { return e.err }
