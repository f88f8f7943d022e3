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
	Timeout time.Duration  // how long a write is sent again, in all
	Policy  backoff.Policy // the waits between sends
	// Attached resends under the caller's context, and only when the
	// probe saw an attempt sent: for a Counter, a caller that gave up
	// need not wait, and an error from a client wrapper that drops the
	// optFns is returned as it is.
	Attached bool
	// Resent counts the requests sent again; nil counts nothing.
	Resent *atomic.Int64
	// Unknown is the sentinel that the error of a write left unsettled
	// wraps (the root package's ErrUnknownOutcome); required.
	Unknown error
}

// Send sends a write once and, when its outcome is unknown (see
// Probe.Outcome), sends the identical request again until DynamoDB answers
// in a way that settles it, for up to r.Timeout, under a context detached
// from ctx (unless Attached): a caller whose context ended while the write
// was in flight still learns whether it was stored. It returns nil when the
// write is stored; the error of a write that is not stored; or, when no
// answer settled it in time, an error wrapping r.Unknown and the last
// error.
func (r Resender) Send(ctx context.Context, send SendFunc) error {
	var p Probe
	err := send(ctx, p.Use)
	if p.Outcome(err) != Unknown {
		return err
	}
	base := context.WithoutCancel(ctx)
	if r.Attached {
		if !p.used.Load() || ctx.Err() != nil {
			return err
		}
		base = ctx
	}
	rctx, cancel := context.WithTimeout(base, r.Timeout)
	defer cancel()
	for n := 1; ; n++ {
		if werr := r.Policy.Wait(rctx, n); werr != nil {
			if r.Attached && ctx.Err() != nil {
				return err // the caller gave up
			}
			return r.unsettled(ctx, n-1, err)
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
		switch p.Outcome(rerr) {
		case Applied, Refused:
			return rerr
		default:
			err = rerr
		}
	}
}

// unsettled is the r.Unknown of a write sent again resends times over
// r.Timeout without an answer that settles it; last is the last error. When
// the caller's context (ctx, the run's) has ended, last may be that
// context's cancellation, which is not why the outcome is unknown: it is
// kept in the message but not in the chain, so that nobody mistakes the
// error for a plain "cancelled, nothing stored" (the caller's own context
// error is joined in by the root's callError).
func (r Resender) unsettled(ctx context.Context, resends int, last error) error {
	const msg = "the request was sent again %d times over %v without an answer that settles it"
	if ctx.Err() != nil && errors.Is(last, ctx.Err()) {
		return fmt.Errorf("%w: "+msg+": %v", r.Unknown, resends, r.Timeout, last)
	}
	return fmt.Errorf("%w: "+msg+": %w", r.Unknown, resends, r.Timeout, last)
}

// RequestToken returns a new token for the attempts of one write: 32 random
// hex digits, the ClientRequestToken of a TransactWriteItems (DynamoDB
// allows 1 to 36 characters) and the request part of an item's write token.
func RequestToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}
