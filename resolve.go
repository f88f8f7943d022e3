package dynamoseq

import (
	"context"
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
			return fmt.Errorf("%w: the request was sent again %d times over %v without an answer that settles it: %w",
				ErrUnknownOutcome, n-1, r.timeout, err)
		}
		// A resend that was not sent, or was refused alone (throttled),
		// settles nothing: an earlier send may still have been applied.
		if r.resent != nil {
			r.resent.Add(1)
		}
		var p probe
		rerr := send(rctx, p.use)
		switch writeOutcome(rerr, &p) {
		case applied, refused:
			return rerr
		case unknown:
			err = rerr
		}
	}
}
