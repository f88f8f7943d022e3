package dynamoseq

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamoseq/dynamoseq/internal/backoff"
)

// sendFunc makes one write call to the client, passing optFn in its optFns.
// Every call must send the identical request: the same items, numbers and
// tokens.
type sendFunc func(ctx context.Context, optFn func(*dynamodb.Options)) error

// resolver settles the outcome of writes that can be sent again safely:
// requests whose every attempt either is applied once or fails (a PutItem
// conditioned on its own write token, a TransactWriteItems with a
// ClientRequestToken), or whose extra applications only leave a gap (a
// Counter's ADD, with attached).
type resolver struct {
	timeout time.Duration  // Options.ResolveTimeout
	policy  backoff.Policy // the waits between sends
	// attached resends under the caller's context, and only when the
	// probe saw an attempt sent: for a Counter, a caller that gave up
	// need not wait, and an error from a Client wrapper that drops the
	// optFns is returned as it is.
	attached bool
	// resent counts the requests sent again, for Stats; nil counts
	// nothing.
	resent *atomic.Int64
}

// send sends a write once and, when its outcome is unknown (see
// writeOutcome), sends the identical request again until DynamoDB answers
// in a way that settles it, for up to r.timeout, under a context detached
// from ctx (unless attached): a caller whose context ended while the write
// was in flight still learns whether it was stored. It returns nil when the
// write is stored; the error of a write that is not stored; or, when no
// answer settled it in time, an error wrapping ErrUnknownOutcome and the
// last error.
func (r resolver) send(ctx context.Context, send sendFunc) error {
	var p probe
	err := send(ctx, p.use)
	if writeOutcome(err, &p) != unknown {
		return err
	}
	base := context.WithoutCancel(ctx)
	if r.attached {
		if !p.used.Load() || ctx.Err() != nil {
			return err
		}
		base = ctx
	}
	rctx, cancel := context.WithTimeout(base, r.timeout)
	defer cancel()
	for n := 1; ; n++ {
		if werr := r.policy.Wait(rctx, n); werr != nil {
			if r.attached && ctx.Err() != nil {
				return err // the caller gave up
			}
			return unsettled(ctx, n-1, r.timeout, err)
		}
		// A resend that was not sent, or was refused alone (throttled),
		// settles nothing: an earlier send may still have been applied.
		// Its error is still the best account of why the outcome stays
		// unknown (a refused connection says DynamoDB is unreachable).
		if r.resent != nil {
			r.resent.Add(1)
		}
		var p probe
		rerr := send(rctx, p.use)
		switch writeOutcome(rerr, &p) {
		case applied, refused:
			return rerr
		default:
			err = rerr
		}
	}
}

// unsettled is the ErrUnknownOutcome of a write sent again resends times
// over timeout without an answer that settles it; last is the last error.
// When the caller's context (ctx, the run's) has ended, last may be that
// context's cancellation, which is not why the outcome is unknown: it is
// kept in the message but not in the chain, so that nobody mistakes the
// error for a plain "cancelled, nothing stored" (the caller's own context
// error is joined in by callError).
func unsettled(ctx context.Context, resends int, timeout time.Duration, last error) error {
	const msg = "the request was sent again %d times over %v without an answer that settles it"
	if ctx.Err() != nil && errors.Is(last, ctx.Err()) {
		return fmt.Errorf("%w: "+msg+": %v", ErrUnknownOutcome, resends, timeout, last)
	}
	return fmt.Errorf("%w: "+msg+": %w", ErrUnknownOutcome, resends, timeout, last)
}
