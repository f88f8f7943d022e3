package dynamoseq

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Errors that callers branch on with errors.Is. Every error returned by this
// package is an *Error that names the table and the sequence; these sentinels
// are found inside it.
var (
	// ErrNotFound: the sequence, version or item asked for does not exist.
	ErrNotFound = errors.New("dynamoseq: not found")

	// ErrContention: a write kept losing races to other writers of the same
	// sequence and the retries allowed by Options.MaxAttempts ran out.
	// Nothing was written by the call that returned it.
	ErrContention = errors.New("dynamoseq: contention: retries exhausted")

	// ErrExhausted: the sequence reached Options.MaxValue. The stored value
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
