package dynamoseq

import (
	"context"
	"fmt"
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
// ClientRequestToken).
type resolver struct {
	timeout time.Duration  // Options.ResolveTimeout
	policy  backoff.Policy // the waits between sends
}

// send sends a write once and, when its outcome is unknown (see
// writeOutcome), sends the identical request again until DynamoDB answers
// in a way that settles it, for up to r.timeout, under a context detached
// from ctx: a caller whose context ended while the write was in flight
// still learns whether it was stored. It returns nil when the write is
// stored; the error of a write that is not stored; or, when no answer
// settled it in time, an error wrapping ErrUnknownOutcome and the last
// error.
func (r resolver) send(ctx context.Context, send sendFunc) error {
	o, err := sendWatched(ctx, send)
	if o != unknown {
		return err
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.timeout)
	defer cancel()
	for n := 1; ; n++ {
		if werr := r.policy.Wait(rctx, n); werr != nil {
			return fmt.Errorf("%w: the request was sent again %d times over %v without an answer that settles it: %w",
				ErrUnknownOutcome, n-1, r.timeout, err)
		}
		// A resend that was not sent, or was refused alone (throttled),
		// settles nothing: an earlier send may still have been applied.
		if o, rerr := sendWatched(rctx, send); o == applied || o == refused {
			return rerr
		} else if o == unknown {
			err = rerr
		}
	}
}

// sendWatched makes one call with a probe and classifies its result.
func sendWatched(ctx context.Context, send sendFunc) (outcome, error) {
	var p probe
	err := send(ctx, p.use)
	return writeOutcome(err, &p), err
}
