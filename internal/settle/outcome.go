// Package settle decides what a write did to the table, and settles a write
// whose outcome is unknown by sending it again, identical, until DynamoDB
// answers in a way that settles it.
//
// A write's error is classified twice over: by its outcome (Probe.Outcome:
// applied, not sent, refused for good, or unknown), which says what the
// table may hold, and by the refusal DynamoDB answered (Classify: a failed
// condition, a conflict, throttled, invalid), which says what may be done
// about it. The cancellation reasons of a TransactionCanceledException
// (Reasons, Code, ReasonsLostRace) and the shapes of the other errors the
// strategies branch on (IsValidation, ReplicatedConflict) are read here, by
// the SDK's typed errors and error codes, never by message text.
//
// Nothing here knows the strategies' types: a write is a SendFunc, which
// makes one identical request each time it is called.
package settle

import (
	"context"
	"errors"
	"net"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
)

// Outcome is what a failed or successful write did to the table.
type Outcome int

const (
	// Applied: DynamoDB stored the write.
	Applied Outcome = iota
	// NotSent: no attempt of this call was applied (none reached
	// DynamoDB, or the only one was refused). It says nothing of earlier
	// calls with the same request.
	NotSent
	// Refused: DynamoDB refused the request for a reason that holds for
	// every attempt of it, earlier calls included: it is not stored and
	// cannot land later.
	Refused
	// OutcomeUnknown: an attempt may have been applied, or may still be.
	OutcomeUnknown
)

func (o Outcome) String() string {
	switch o {
	case Applied:
		return "applied"
	case NotSent:
		return "not sent"
	case Refused:
		return "refused"
	}
	return "unknown"
}

// Probe watches one call to the client. The SDK's retryer may send a request
// several times before its error reaches the caller, and that error tells
// nothing of the earlier attempts; the probe counts the attempts that may
// have reached DynamoDB. Pass Probe.Use in the call's optFns. A client
// wrapper that drops the optFns leaves the probe unused, and Outcome then
// decides by the error's type alone. The zero Probe is ready to use, for one
// call.
type Probe struct {
	used atomic.Bool  // the call entered the SDK's middleware stack
	sent atomic.Int32 // attempts that reached the HTTP transport and may have been delivered
}

// Use installs the probe in the middleware stack of one call: a marker first
// in the Initialize step, and a counter last in the Deserialize step, right
// before the HTTP transport (after the retryer, the endpoint resolution and
// the signing, which all run earlier, once per attempt).
func (p *Probe) Use(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, p.install)
}

func (p *Probe) install(stack *middleware.Stack) error {
	entered := middleware.InitializeMiddlewareFunc("dynamoseq.probe",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			p.used.Store(true)
			return next.HandleInitialize(ctx, in)
		})
	if err := stack.Initialize.Add(entered, middleware.Before); err != nil {
		return err
	}
	send := middleware.DeserializeMiddlewareFunc("dynamoseq.probe",
		func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleDeserialize(ctx, in)
			if !dialFailed(err) {
				p.sent.Add(1)
			}
			return out, md, err
		})
	return stack.Deserialize.Add(send, middleware.After)
}

// dialFailed reports whether err is a failure to open a connection (refused,
// unreachable, a name that does not resolve): the request was not written.
func dialFailed(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// Outcome classifies err, the result of the one write call the probe
// watched:
//
//   - Applied when err is nil;
//   - Refused when DynamoDB refused the write for a reason that holds for
//     every attempt (see refusedForGood);
//   - NotSent when no attempt reached DynamoDB (missing credentials, an
//     endpoint that cannot be resolved, invalid parameters, a refused
//     connection, a context that ended first), or when the only attempt
//     sent was answered with a client error such as throttling;
//   - OutcomeUnknown otherwise: a network error or a timeout after sending, a
//     server error, a context that ended in flight, throttling after earlier
//     attempts that may have been applied, TransactionInProgress.
func (p *Probe) Outcome(err error) Outcome {
	switch {
	case err == nil:
		return Applied
	case refusedForGood(err):
		return Refused
	case p.used.Load() && p.sent.Load() == 0:
		return NotSent
	case p.sent.Load() == 1 && answeredRefusal(err):
		return NotSent
	}
	return OutcomeUnknown
}

// refusedForGood reports whether err means that the write is not stored,
// whatever the attempts before it did. That holds for errors DynamoDB gives
// every attempt of the same input alike (ValidationException, a missing
// table, parameters the SDK refuses), for the failed condition of a write
// that carries its own write token (an earlier attempt of it would have
// left the token, and the condition would pass), and for a cancelled
// transaction, which carries a ClientRequestToken: had an earlier attempt
// been applied, DynamoDB would have answered this one with success.
// IdempotentParameterMismatch is not among them: the library only resends
// identical requests, so it says that DynamoDB has seen the token, which is
// evidence of an earlier attempt, not of none.
func refusedForGood(err error) bool {
	var (
		invalid  smithy.InvalidParamsError
		ccf      *types.ConditionalCheckFailedException
		notFound *types.ResourceNotFoundException
	)
	if errors.As(err, &invalid) || errors.As(err, &ccf) || errors.As(err, &notFound) {
		return true
	}
	if reasons, ok := Reasons(err); ok {
		return knownReasons(reasons)
	}
	return apiCode(err) == codeValidation
}

// answeredRefusal reports whether err is DynamoDB's answer refusing a
// request (a client fault, such as throttling or a denied access), as
// opposed to a network error or a server fault. TransactionInProgress is
// left out: it says that an earlier request with the same token is still
// being applied.
func answeredRefusal(err error) bool {
	var inProgress *types.TransactionInProgressException
	if errors.As(err, &inProgress) {
		return false
	}
	return clientFault(err)
}
