package dynamoseq

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/internal/engine"
)

// Group commit. The reservations of one sequence that wait for each other
// (Next, NextN, a Block's lease, an IDMinter's Next) share one UpdateItem:
// ADD of the sum of their spans, whose UPDATED_NEW value is the last number
// of the batch; each call gets its range in arrival order. A lone call is
// its own batch and costs what it did alone. DynamoDB applies the updates
// of one item one after another, so a call that starts after another has
// returned gets a larger number (its update is sent after the other's was
// applied), and so each caller's numbers increase. One update per sequence
// and process is in flight at a time (engine.Group): the calls that
// arrive meanwhile make the next batch. The item's write units no longer
// cap the numbers a second: a batch of k costs one write unit, 1/k per
// number.
//
// When a run carried more than one call, the sequence is hot: its next run
// waits for the callers the run has just answered, who call again at once
// (a fifth of a round trip at most; see engine.Linger), so that they join one
// batch instead of alternating between a batch of one and a batch of the
// rest. A caller alone on a sequence never waits; one left alone by
// callers that stopped waits that fifth of a round trip once.

// maxCounterBatch is the most calls one UpdateItem carries: beyond it a
// caller gains little (a round trip is shared by a hundred already) and
// the run of a lone leader grows long in the calls it hands out.
const maxCounterBatch = 100

// counterIdle is the number of idle sequences whose state (their waits
// for capacity) is kept; beyond it, a sequence's state starts afresh.
const counterIdle = 10_000

// counterKey is what the calls sharing one UpdateItem have in common: the
// counter item and the TTL attribute the update sets (the zero expiry for
// none).
type counterKey struct {
	pk  string
	exp expiry
}

// counterReq is one call's reservation waiting in its sequence's queue.
type counterReq struct {
	span         int64     // the values reserved times the stride between them
	waitingSince time.Time // when its update was first refused for capacity
}

func (r *counterReq) refusedSince() *time.Time { return &r.waitingSince }

type counterCall = engine.Call[counterReq, int64]

// counterLane is what the runs of one sequence keep between them.
type counterLane struct {
	capacity engine.Capacity // the waits after throttles
	seat     engine.Seat     // the sequence's place in the table's share
}

// maxSpan is the largest span one update may add: capacity (the values
// the sequence holds in all) times stride, at most math.MaxInt64.
func maxSpan(capacity, stride int64) int64 {
	hi, lo := bits.Mul64(uint64(capacity), uint64(stride))
	if hi != 0 || lo > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(lo)
}

// run writes the reservations of one sequence that arrived together, in
// arrival order: as many in each UpdateItem as the sequence can hold.
// A caller who has left before its update is sent is not written.
func (c *Counter) run(ctx context.Context, key counterKey, lane *counterLane, calls []*counterCall) {
	defer engine.Linger(calls, c.rtt.Load())
	calls = engine.Publish(calls, 0, 0) // a caller who gives up is told 0: unknown
	for len(calls) > 0 {
		k, span := 1, calls[0].Req.span
		for k < len(calls) && calls[k].Req.span <= c.maxSpan-span {
			span += calls[k].Req.span
			k++
		}
		c.write(ctx, key, lane, calls[:k], span)
		if engine.PutBack(calls[:k], calls[k:]) {
			return
		}
		calls = calls[k:]
	}
}

// write sends the UpdateItem that reserves span for calls, and sets their
// outcomes: their ranges, in order; put back to wait for capacity; or an
// error. When MaxValue refuses the batch as a whole, each call is sent on
// its own, so that those that still fit get their numbers.
func (c *Counter) write(ctx context.Context, key counterKey, lane *counterLane, calls []*counterCall, span int64) {
	var exp *expiry
	if key.exp.attr != "" {
		exp = &key.exp
	}
	units := c.units(key)
	if at := c.share.Take(&lane.seat, time.Now(), units); !at.IsZero() {
		seatWait(calls, at, c.opts.MaxWait)
		return // the table's writes take turns (see engine.Share)
	}
	in := c.reserveInput(key.pk, span, c.opts.MaxValue-span, exp)
	start := time.Now()
	var out *dynamodb.UpdateItemOutput
	err := c.resendConflicts(ctx, func() error {
		return c.resolver.Send(ctx, func(ctx context.Context, optFn func(*dynamodb.Options)) error {
			var err error
			out, err = c.client.UpdateItem(ctx, in, optFn)
			return err
		})
	})
	switch engine.Decide(err, ErrUnknownOutcome) {
	case engine.Stored:
		c.rtt.Add(time.Since(start))
		lane.capacity.Reset()
		c.share.Admitted(&lane.seat, start, units)
		c.handOut(out.Attributes, span, calls)
	case engine.Unknown:
		engine.Fail(calls, fmt.Errorf("%w (an update that was applied leaves a gap; retrying is safe)", err))
	case engine.Throttled, engine.Conflict:
		if sharedRefusal(&c.share, &lane.seat, calls, start, units, c.opts.MaxWait, &c.stats.waits, err) {
			return // at a ceiling the table's names share: the name's turn
		}
		waitForCapacity(calls, &lane.capacity, start, c.rtt.Load(), c.opts.MaxWait, 0, &c.stats.waits, err) // not paced: from the round trip
	case engine.LostRace:
		// A failed condition is MaxValue's (a replicated write conflict
		// comes back from resendConflicts as ErrContention).
		var ccf *types.ConditionalCheckFailedException
		if len(calls) > 1 && errors.As(err, &ccf) {
			engine.OneByOne(calls, func(one []*counterCall) { c.write(ctx, key, lane, one, one[0].Req.span) })
			return
		}
		engine.Fail(calls, c.updateError(ctx, in.Key, err))
	default: // engine.RefusedItem (the table is not what the options describe), engine.Other
		engine.Fail(calls, c.updateError(ctx, in.Key, err))
	}
}

// handOut gives calls their ranges from the attributes of the update that
// reserved span for all of them, in order.
func (c *Counter) handOut(attrs map[string]types.AttributeValue, span int64, calls []*counterCall) {
	first, err := c.firstOf(attrs, span)
	if err != nil {
		engine.Fail(calls, err)
		return
	}
	for _, call := range calls {
		call.Res = first
		first += call.Req.span
	}
}

// units is the write units DynamoDB charges an update of the counter item
// of key, as the table's share counts them: engine.Units of the item's
// size at its largest (its keys, its value and its TTL), which is 1 unless
// the key comes near DynamoDB's 2,048 bytes for a partition key value.
func (c *Counter) units(key counterKey) float64 {
	o := &c.opts
	bytes := len(o.PartitionKey) + len(key.pk) + len(o.ValueAttribute) + maxNumberBytes
	if o.SortKeyValue != "" {
		bytes += len(o.SortKey) + len(o.SortKeyValue)
	}
	if key.exp.attr != "" {
		bytes += len(key.exp.attr) + maxNumberBytes
	}
	return engine.Units(bytes)
}
