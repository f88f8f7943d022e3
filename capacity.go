package dynamoseq

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"

	"github.com/dynamoseq/dynamoseq/internal/backoff"
	"github.com/dynamoseq/dynamoseq/internal/engine"
)

// Throttling is backpressure. DynamoDB refuses a request over its
// partition's capacity (throttled), or one that touches an item another
// transaction holds at that moment (a conflict), having written nothing.
// The SDK does not retry these for the library (engine.OwnBackpressure,
// installed by countingClient): the strategies wait them out themselves,
// with the waits of engine.Capacity (after a throttle, about the time the
// write's units take to refill at the rate DynamoDB admitted the name's
// writes, doubling per refusal in a row; after a conflict, from about one
// round trip), while the caller's context lasts and for at most
// Retry.MaxWait, and then return ErrThrottled (ErrContention for a
// conflict) with the context's error: nothing stored. Throttles and
// conflicts do not count as lost races (Retry.MaxAttempts).
//
// SortKey and Latest put the calls of a refused write (or of a refused
// read of the head before it) back in their name's queue and have the
// name's next run start after the wait (engine.Call.NotBefore), so that
// the calls arriving meanwhile join the next write instead of queueing
// behind a sleeping one (waitForCapacity). Requests made outside a run,
// the Counter's updates and the read methods', wait in line (patience).

// capacityRefused reports whether DynamoDB refused the request of err for
// want of capacity, or because another transaction held an item of it
// (not a replicated write conflict, which is a race lost to another
// Region): nothing was written, and the same request may succeed after a
// wait. These are engine.Decide's Throttled and Conflict: a write whose
// outcome is unknown is not among them, even when the last of its resends
// was throttled (an earlier send may have been applied).
func capacityRefused(err error) bool {
	v := engine.Decide(err, ErrUnknownOutcome)
	return v == engine.Throttled || v == engine.Conflict
}

// capacityCause is the cause of a wait of wait for capacity after err.
func capacityCause(err error, wait time.Duration) *capacityError {
	kind := ErrThrottled
	if engine.Decide(err, ErrUnknownOutcome) == engine.Conflict {
		kind = ErrContention
	}
	return &capacityError{kind: kind, wait: wait, err: err}
}

// waitedTooLong is the error of a call that stops waiting for capacity
// after maxWait (Retry.MaxWait), its last refusal being cause.
func waitedTooLong(cause *capacityError, waited, maxWait time.Duration) error {
	return &capacityError{kind: cause.kind, wait: cause.wait,
		err: fmt.Errorf("waited %v, Retry.MaxWait is %v: %w", waited.Round(time.Millisecond), maxWait, cause.err)}
}

// waitForCapacity puts calls back in their name's queue after DynamoDB
// refused their write (or a read before it) with err, a throttle or a
// conflict: the name's next run starts after the wait c draws from the
// refused request's send time, the round trip rtt and the write's units
// (see refusalWait), with the calls that arrived meanwhile, and a caller whose
// context ends first gets an error matching ErrThrottled (or ErrContention)
// as well. A call that has waited maxWait since its first refusal fails
// with that error instead.
func waitForCapacity[Req any, R refusable[Req]](calls []*engine.Call[Req, int64], c *engine.Capacity, sent time.Time, rtt, maxWait time.Duration, units float64, waits *capacityWaits, err error) {
	wait := refusalWait(c, err, sent, rtt, units)
	holdCalls[Req, R](calls, wait, maxWait, waits, capacityCause(err, wait))
}

// holdCalls puts calls back in their name's queue for wait, with cause, a
// refusal's (see waitForCapacity), or fails those that have waited
// maxWait since their first refusal.
func holdCalls[Req any, R refusable[Req]](calls []*engine.Call[Req, int64], wait, maxWait time.Duration, waits *capacityWaits, cause *capacityError) {
	waits.add(wait)
	now := time.Now()
	for _, call := range calls {
		since := R(&call.Req).refusedSince()
		if since.IsZero() {
			*since = now
		}
		if waited := now.Sub(*since); waited+wait > maxWait {
			call.Err = waitedTooLong(cause, waited, maxWait)
			continue
		}
		call.Again, call.Cause, call.NotBefore = true, cause, now.Add(wait)
	}
}

// refusalWait counts a refusal with err (a throttle or a conflict) of a
// request of units write units (the write's that waits, for a read
// before it; 0 for a request that is not paced), sent at sent, on c, and returns the wait before it is sent again: after a
// throttle about the time the units take to refill at the rate DynamoDB
// admitted the name's writes, after a conflict about a round trip, rtt
// (see engine.Capacity).
func refusalWait(c *engine.Capacity, err error, sent time.Time, rtt time.Duration, units float64) time.Duration {
	if engine.Decide(err, ErrUnknownOutcome) == engine.Conflict {
		return c.Conflict(rtt)
	}
	return c.Throttled(sent, rtt, units)
}

// refusable is a write call's request that remembers when DynamoDB first
// refused its write for want of capacity or for a conflict (a pointer to
// it, so that waitForCapacity can set it).
type refusable[Req any] interface {
	*Req
	refusedSince() *time.Time // the zero time if it never was
}

// patience waits out the throttles and conflicts of requests sent outside
// a run (a Counter's updates, the read methods' reads): the same waits as
// waitForCapacity's, taken in line.
type patience struct {
	maxWait time.Duration     // Retry.MaxWait
	rtt     *engine.RoundTrip // the strategy's round trips
	waits   *capacityWaits    // the strategy's figures
}

// do calls send, and again after a wait each time DynamoDB refuses its
// request for want of capacity or for a conflict, until it is not refused
// so, ctx ends (the error then matches ctx's and ErrThrottled, or
// ErrContention), or maxWait has passed since the first refusal. send must
// make the same request each time, one that is not applied when refused.
func (p patience) do(ctx context.Context, send func() error) error {
	var c engine.Capacity
	var first time.Time
	for {
		start := time.Now()
		err := send()
		if !capacityRefused(err) {
			if err == nil {
				p.rtt.Add(time.Since(start))
			}
			return err
		}
		if first.IsZero() {
			first = start
		}
		wait := refusalWait(&c, err, start, p.rtt.Load(), 0) // not paced: from the round trip
		cause := capacityCause(err, wait)
		if waited := time.Since(first); waited+wait > p.maxWait {
			return waitedTooLong(cause, waited, p.maxWait)
		}
		p.waits.add(wait)
		if werr := backoff.Sleep(ctx, wait); werr != nil {
			return fmt.Errorf("%w (waiting to send again after: %w)", werr, cause)
		}
	}
}

// patientClient is a strategy's client for its read methods: its GetItem
// and Query wait out throttles (see patience); its other methods are the
// client's.
type patientClient struct {
	Client
	p patience
}

func (c patientClient) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (out *dynamodb.GetItemOutput, err error) {
	err = c.p.do(ctx, func() error {
		out, err = c.Client.GetItem(ctx, in, optFns...)
		return err
	})
	return out, err
}

func (c patientClient) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (out *dynamodb.QueryOutput, err error) {
	err = c.p.do(ctx, func() error {
		out, err = c.Client.Query(ctx, in, optFns...)
		return err
	})
	return out, err
}

// unsent marks err, the error of a request made before a write was sent
// (a read of the head), as leaving nothing stored when the same call may
// succeed later: a network error, or an answer that refused nothing (a
// server error). Other errors are returned as they are.
func unsent(err error) error {
	var api smithy.APIError
	var op *net.OpError
	if engine.Classify(err) == engine.NotRefused && (errors.As(err, &api) || errors.As(err, &op)) {
		return &unsentError{err: fmt.Errorf("the read before the write failed: %w", err)}
	}
	return err
}
