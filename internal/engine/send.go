package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	"github.com/dynamoseq/dynamoseq/internal/backoff"
)

// SendFunc makes one write call to the client, passing optFn in its optFns.
// Every call must send the identical request: the same items, numbers and
// tokens.
type SendFunc func(ctx context.Context, optFn func(*dynamodb.Options)) error

// Resender settles the outcome of writes that can be sent again safely:
// requests whose every attempt either is applied once or fails (a PutItem
// conditioned on its own write token, a TransactWriteItems with a
// ClientRequestToken), or whose extra applications only leave a gap (a
// Counter's ADD, with Attached). A Resender is a value, safe to share.
type Resender struct {
	// Timeout, when above 0, has a write sent again under a context
	// detached from the caller's, for up to Timeout in all, so that a
	// caller whose context ended while the write was in flight still
	// learns whether it was stored (unless Attached). 0 has it sent again
	// under the caller's context only, for at most Bound: when that ends
	// first, the outcome stays unknown.
	Timeout time.Duration
	// Bound caps the resends under the caller's context (Timeout 0) for a
	// context without a deadline, or with a later one; 0 means none.
	Bound time.Duration
	// MaxResends, when above 0, bounds the resends: for a Counter, each
	// one that is applied burns a number. A resend that DynamoDB refused
	// for want of capacity or for a conflict (see Backpressure) was not
	// applied and does not count.
	MaxResends int
	Policy     backoff.Policy // the waits between sends
	// Attached resends under the caller's context whatever Timeout says,
	// and only when the probe saw an attempt sent: for a Counter, a
	// caller that gave up need not wait, and an error from a client
	// wrapper that drops the optFns is returned as it is.
	Attached bool
	// Resent counts the requests sent again; nil counts nothing.
	Resent *atomic.Int64
	// Unknown is the sentinel that the error of a write left unsettled
	// wraps (the root package's ErrUnknownOutcome); required.
	Unknown error
}

// Send sends a write once and, when its outcome is unknown (see
// Probe.Outcome), sends the identical request again until DynamoDB answers
// in a way that settles it, within the bounds of r (see Resender). It
// returns nil when the write is stored; the error of a write that is not
// stored; or, when no answer settled it in time, an error wrapping
// r.Unknown and the last error.
func (r Resender) Send(ctx context.Context, send SendFunc) error {
	var p Probe
	err := send(ctx, p.Use)
	if p.Outcome(err) != OutcomeUnknown {
		return err
	}
	if r.Attached && (!p.used.Load() || ctx.Err() != nil) {
		return err
	}
	rctx, cancel := r.resendContext(ctx)
	defer cancel()
	start, counted := time.Now(), 0
	for n := 1; ; n++ {
		if r.MaxResends > 0 && counted >= r.MaxResends {
			return r.unsettled(ctx, n-1, time.Since(start), err)
		}
		if werr := r.Policy.Wait(rctx, n); werr != nil {
			if r.Attached && ctx.Err() != nil {
				return err // the caller gave up
			}
			return r.unsettled(ctx, n-1, time.Since(start), err)
		}
		// A resend that was not sent, or was refused alone (throttled),
		// settles nothing: an earlier send may still have been applied.
		// Its error is still the best account of why the outcome stays
		// unknown (a refused connection says DynamoDB is unreachable).
		if r.Resent != nil {
			r.Resent.Add(1)
		}
		var p Probe
		rerr := send(rctx, p.Use)
		if o := p.Outcome(rerr); o == Applied || o == Refused {
			return rerr
		}
		if !Backpressure(rerr) {
			counted++
		}
		err = rerr
	}
}

// resendContext is the context of the resends of a write sent under ctx:
// detached from ctx for r.Timeout, or ctx itself for at most r.Bound.
func (r Resender) resendContext(ctx context.Context) (context.Context, context.CancelFunc) {
	switch {
	case r.Timeout > 0 && !r.Attached:
		return context.WithTimeout(context.WithoutCancel(ctx), r.Timeout)
	case r.Timeout > 0:
		return context.WithTimeout(ctx, r.Timeout)
	case r.Bound > 0:
		return context.WithTimeout(ctx, r.Bound)
	}
	return context.WithCancel(ctx)
}

// unsettled is the r.Unknown of a write sent again resends times over took
// without an answer that settles it; last is the last error. When the
// caller's context (ctx, the run's) has ended, last may be that context's
// cancellation, which is not why the outcome is unknown: it is kept in the
// message but not in the chain, so that nobody mistakes the error for a
// plain "cancelled, nothing stored" (the caller's own context error is
// joined in by the root's callError).
func (r Resender) unsettled(ctx context.Context, resends int, took time.Duration, last error) error {
	const msg = "the request was sent again %d times over %v without an answer that settles it"
	took = took.Round(time.Millisecond)
	if ctx.Err() != nil && errors.Is(last, ctx.Err()) {
		return fmt.Errorf("%w: "+msg+": %v", r.Unknown, resends, took, last)
	}
	return fmt.Errorf("%w: "+msg+": %w", r.Unknown, resends, took, last)
}

// RequestToken returns a new token for the attempts of one write: 32 random
// hex digits, the ClientRequestToken of a TransactWriteItems (DynamoDB
// allows 1 to 36 characters) and the request part of an item's write token.
func RequestToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

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

// Backpressure reports whether err is DynamoDB refusing one request for
// want of capacity or because another request held its item at that
// moment: ThrottlingException, ProvisionedThroughputExceededException,
// RequestLimitExceeded or TransactionConflictException. Nothing was
// written; the same request may succeed after a wait. (A cancelled
// transaction with such reasons is not retried by the SDK anyway; Classify
// reads its reasons.)
func Backpressure(err error) bool {
	if _, cancelled := Reasons(err); cancelled {
		return false
	}
	switch Classify(err) {
	case ThrottleRefusal:
		return true
	case ConflictRefusal:
		return !ReplicatedConflict(err) // a race lost to another Region
	}
	return false
}

// OwnBackpressure is an option of one call to the client that leaves the
// errors Backpressure reports to the caller: the client's retryer is
// wrapped so that it calls them not retryable, and the SDK returns them at
// once instead of sleeping through its own backoff (up to seconds for a
// throttle) and spending the client's retry quota on them. Every other
// error (a network error, a server error) is still the client's retryer's
// to retry, and the retryer still sees every attempt: an adaptive
// retryer's rate still follows the throttles.
func OwnBackpressure(o *dynamodb.Options) {
	switch r := o.Retryer.(type) {
	case nil:
	case aws.RetryerV2:
		o.Retryer = ownBackpressureV2{r}
	default:
		o.Retryer = ownBackpressure{r}
	}
}

// ownBackpressure is a client's aws.Retryer that does not retry the errors
// Backpressure reports.
type ownBackpressure struct{ aws.Retryer }

func (r ownBackpressure) IsErrorRetryable(err error) bool {
	return !Backpressure(err) && r.Retryer.IsErrorRetryable(err)
}

// ownBackpressureV2 is ownBackpressure for an aws.RetryerV2, which it
// stays, so that the SDK keeps calling its GetAttemptToken.
type ownBackpressureV2 struct{ aws.RetryerV2 }

func (r ownBackpressureV2) IsErrorRetryable(err error) bool {
	return !Backpressure(err) && r.RetryerV2.IsErrorRetryable(err)
}

// GetAttemptToken is the wrapped retryer's: spelled out so that a reader
// need not wonder whether embedding passes it on.
func (r ownBackpressureV2) GetAttemptToken(ctx context.Context) (func(error) error, error) {
	return r.RetryerV2.GetAttemptToken(ctx)
}

// sdkError is an error of the SDK as the library's messages name it: the
// operation and DynamoDB's error code once, with a transaction's
// cancellation reasons counted ("TransactWriteItems cancelled: ThrottlingError
// x16")
// instead of the SDK's text, which repeats a reason per item and adds the
// HTTP status and request ID. errors.Is and errors.As see the SDK's error
// whole through it: every cancellation reason, the request ID, the
// context's error.
type sdkError struct {
	op  string // the DynamoDB operation, such as "TransactWriteItems"
	err error  // the SDK's error
}

// maxSDKMessage bounds the part of DynamoDB's own message an sdkError
// repeats (a ValidationException's says what is wrong with the request).
const maxSDKMessage = 80

// BriefSDK returns err, an error of the client's op, as an *sdkError; nil
// for nil.
func BriefSDK(op string, err error) error {
	if err == nil {
		return nil
	}
	return &sdkError{op: op, err: err}
}

func (e *sdkError) Error() string {
	var canceled *types.TransactionCanceledException
	if errors.As(e.err, &canceled) {
		return e.op + " cancelled: " + countReasons(canceled.CancellationReasons)
	}
	return e.op + ": " + sdkSummary(e.err)
}

func (e *sdkError) Unwrap() error { return e.err }

// sdkSummary names what err says in a few words: DynamoDB's error code
// (with the start of DynamoDB's message), the
// context's error, the network error, or, for anything else, err's text
// cut to its last part.
func sdkSummary(err error) string {
	var api smithy.APIError
	var op *net.OpError
	switch {
	case errors.As(err, &api):
		// A throttle's code says it all: its message is AWS's advice on
		// capacity, which the library's own text replaces.
		if msg := api.ErrorMessage(); msg != "" && Classify(err) != ThrottleRefusal {
			return api.ErrorCode() + ": " + clip(msg)
		}
		return api.ErrorCode()
	case errors.Is(err, context.DeadlineExceeded):
		return context.DeadlineExceeded.Error()
	case errors.Is(err, context.Canceled):
		return context.Canceled.Error()
	case errors.As(err, &op):
		return op.Error()
	}
	return clip(err.Error())
}

// countReasons writes a transaction's cancellation reasons as their codes,
// each once with its count, in the order they first appear:
// "None x15, ValidationError".
func countReasons(reasons []types.CancellationReason) string {
	var order []string
	n := map[string]int{}
	for _, r := range reasons {
		code := "None"
		if r.Code != nil {
			code = *r.Code
		}
		if n[code] == 0 {
			order = append(order, code)
		}
		n[code]++
	}
	parts := make([]string, len(order))
	for i, code := range order {
		parts[i] = code
		if n[code] > 1 {
			parts[i] = fmt.Sprintf("%s x%d", code, n[code])
		}
	}
	if len(parts) == 0 {
		return "no reasons given"
	}
	return strings.Join(parts, ", ")
}

// clip returns msg cut to maxSDKMessage bytes.
func clip(msg string) string {
	if len(msg) > maxSDKMessage {
		return strings.ToValidUTF8(msg[:maxSDKMessage], "") + "..."
	}
	return msg
}

// RoundTrip is a moving average of a strategy's round trips, across its
// names: the first wait for capacity of a request made outside a run, and
// the grace of a caller whose context ends while its write is in flight.
// It is safe for concurrent use.
type RoundTrip struct{ ns atomic.Int64 }

// Add adds a round trip that took d. Concurrent adds may lose one of
// them: an estimate needs no more.
func (r *RoundTrip) Add(d time.Duration) {
	old := time.Duration(r.ns.Load())
	if old == 0 {
		old = d
	}
	r.ns.Store(int64((3*old + d) / 4))
}

// Load returns the average; 0 before any round trip was added.
func (r *RoundTrip) Load() time.Duration { return time.Duration(r.ns.Load()) }

// minGrace is the shortest grace of a caller whose context ends while its
// write is in flight: about DynamoDB's median PutItem round trip, for a
// strategy that has measured none yet.
const minGrace = 10 * time.Millisecond

// Grace is how long a caller whose context has ended waits for the outcome
// of its write in flight (GroupOptions.Grace): one round trip, at least
// minGrace.
func (r *RoundTrip) Grace() time.Duration { return max(r.Load(), minGrace) }
