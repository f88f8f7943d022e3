package settle

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

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
