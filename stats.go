package dynamoseq

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamoseq/dynamoseq/internal/engine"
)

// CounterStats are cumulative figures of a Counter since it was made,
// returned by Counter.Stats. They include the calls that Blocks and
// IDMinters make through the Counter.
type CounterStats struct {
	Calls      int64      // calls of Next, NextN, Current and AdvanceTo, and reservations of Blocks and IDMinters
	Numbers    int64      // numbers handed out: 1 per Next, n per NextN
	RoundTrips int64      // requests sent to DynamoDB; the SDK's own retries of one request count once
	Errors     ErrorStats // failed calls, by kind
	Resends    int64      // updates sent again because their outcome was unknown (each one applied twice burns a number)

	CapacityStats // throttles, conflicts, and the waits for capacity
}

// CapacityStats are the figures of a strategy's requests that DynamoDB
// refused for want of capacity or because another transaction held their
// items, and of the waits before sending them again (see docs/metrics.md).
// The requests counted are also in RoundTrips.
type CapacityStats struct {
	Throttled             int64         // requests answered ThrottlingException, ProvisionedThroughputExceededException or RequestLimitExceeded
	ThrottledTransactions int64         // transactions cancelled for want of capacity: a reason ThrottlingError or ProvisionedThroughputExceeded
	Conflicts             int64         // requests refused with TransactionConflictException, or transactions cancelled with reason TransactionConflict: another transaction held an item
	CapacityWaits         int64         // waits before sending again after one of those
	CapacityWait          time.Duration // the time of those waits, in all
}

// BlockStats are cumulative figures of a Block since it was made, returned
// by Block.Stats. Calls is Numbers plus Errors.Total().
type BlockStats struct {
	Calls      int64      // calls of Next
	Numbers    int64      // numbers handed out by Next
	Errors     ErrorStats // failed calls of Next, by kind
	RoundTrips int64      // leases asked for (one more when a grown range is asked for again at the first size) and hand-backs at Close; the resends that settle a lease are in the Counter's Stats

	Leases        int64         // ranges leased (one Counter.NextN each)
	LeasedNumbers int64         // numbers in those ranges
	FailedLeases  int64         // leases that returned an error
	LeaseTime     time.Duration // time spent in leases, succeeded or not, in all
	MaxLeaseTime  time.Duration // the longest lease
	Waits         int64         // calls of Next that waited for a lease: the first of a name, or its range ran out
	WaitTime      time.Duration // time those calls waited, in all

	HandedBack  int64 // numbers Close handed back to the counter, to be leased again
	Abandoned   int64 // numbers of leased ranges that Close could neither hand out nor hand back: lost
	Interrupted int64 // numbers of leases Close cancelled before their answer, never handed out: lost if DynamoDB applied them, which Close cannot know
}

// SortKeyStats are cumulative figures of a SortKey since it was made,
// returned by SortKey.Stats.
type SortKeyStats struct {
	AppendStats
}

// LatestStats are cumulative figures of a Latest since it was made,
// returned by Latest.Stats. Reads are GetItems of 'latest' before a write
// and the calls of GetLatest, Get and Versions (GetItem or Query).
type LatestStats struct {
	AppendStats
}

// AppendStats are the figures SortKey and Latest share: those of the calls
// that append (Next and Append), of the batches that write them, and of
// the requests sent to DynamoDB, the read methods' included.
type AppendStats struct {
	Calls      int64      // calls of Next and Append
	Numbers    int64      // numbers (versions) handed out: one per call that returned one
	Errors     ErrorStats // failed calls of Next and Append, by kind
	RoundTrips int64      // requests sent to DynamoDB: Reads + Puts + Transactions; the SDK's own retries of one request count once

	Reads        int64 // Query and GetItem requests: the lookups of a writer that did not know the last number, and the read methods
	Puts         int64 // PutItem requests: the write of a batch of one (SortKey), and every write without transactions (NoTransactions, GlobalTableMRSC)
	Transactions int64 // TransactWriteItems requests: the write of a batch of several

	Batches      int64 // groups of calls written together, one request per attempt
	BatchedCalls int64 // calls in those batches: BatchedCalls/Batches is the mean batch size
	MaxBatch     int64 // the most calls in one batch

	LostRaces int64 // writes refused because another writer had written first (a failed condition), or at the same moment from another Region (a replicated write conflict); conflicts with a transaction in flight are counted in Conflicts
	Retries   int64 // writes sent again after a lost race; the other lost races ended their batch with ErrContention, or their callers gave up
	Resends   int64 // identical requests sent again to settle an unknown outcome (a lost answer, a timeout, a server error)

	CapacityStats // throttles, conflicts, and the waits for capacity

	Turns     int64         // turns taken at names that other processes write too: runs of writes back to back while the others wait (see docs/sortkey.md, "Many processes, one name")
	TurnWaits int64         // waits for the turns of other processes to end, and pauses after this writer's own to let them go
	TurnWait  time.Duration // the time spent in those waits
}

// ErrorStats counts failed calls by the kind of error they returned, as
// errors.Is tells them apart.
type ErrorStats struct {
	Exhausted       int64 // ErrExhausted
	UnknownOutcome  int64 // ErrUnknownOutcome: the write may or may not have been applied
	Throttled       int64 // ErrThrottled: still throttled when the caller's context ended, or after MaxWait
	Contention      int64 // ErrContention
	NotFound        int64 // ErrNotFound
	TableNotFound   int64 // ErrTableNotFound
	TableMismatch   int64 // ErrTableMismatch
	InvalidArgument int64 // ErrInvalidArgument
	Closed          int64 // ErrClosed
	Canceled        int64 // the caller's context ended: context.Canceled or context.DeadlineExceeded
	Other           int64 // anything else, such as the SDK's error after its retries (a network error)
}

// Total returns the number of failed calls.
func (e ErrorStats) Total() int64 {
	return e.Exhausted + e.UnknownOutcome + e.Throttled + e.Contention + e.NotFound + e.TableNotFound + e.TableMismatch +
		e.InvalidArgument + e.Closed + e.Canceled + e.Other
}

// errorCounts is the live form of ErrorStats, updated with atomics; every
// strategy counts its failed calls with it.
type errorCounts struct {
	exhausted, unknownOutcome, throttled, contention, notFound, tableNotFound, tableMismatch,
	invalidArgument, closed, canceled, other atomic.Int64
}

// count counts err under its kind; nil counts nothing. The first kind that
// errors.Is finds wins, in the order below.
func (c *errorCounts) count(err error) {
	var n *atomic.Int64
	switch {
	case err == nil:
		return
	case errors.Is(err, ErrExhausted):
		n = &c.exhausted
	case errors.Is(err, ErrUnknownOutcome): // before Canceled: it may carry the caller's context error too
		n = &c.unknownOutcome
	case errors.Is(err, ErrThrottled): // before Canceled, as above
		n = &c.throttled
	case errors.Is(err, ErrContention):
		n = &c.contention
	case errors.Is(err, ErrNotFound):
		n = &c.notFound
	case errors.Is(err, ErrTableNotFound):
		n = &c.tableNotFound
	case errors.Is(err, ErrTableMismatch):
		n = &c.tableMismatch
	case errors.Is(err, ErrInvalidArgument):
		n = &c.invalidArgument
	case errors.Is(err, ErrClosed):
		n = &c.closed
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		n = &c.canceled
	default:
		n = &c.other
	}
	n.Add(1)
}

func (c *errorCounts) stats() ErrorStats {
	return ErrorStats{
		Exhausted:       c.exhausted.Load(),
		UnknownOutcome:  c.unknownOutcome.Load(),
		Throttled:       c.throttled.Load(),
		Contention:      c.contention.Load(),
		NotFound:        c.notFound.Load(),
		TableNotFound:   c.tableNotFound.Load(),
		TableMismatch:   c.tableMismatch.Load(),
		InvalidArgument: c.invalidArgument.Load(),
		Closed:          c.closed.Load(),
		Canceled:        c.canceled.Load(),
		Other:           c.other.Load(),
	}
}

// callCounts is the live form of the Calls, Numbers and Errors figures.
type callCounts struct {
	calls, numbers atomic.Int64
	errors         errorCounts
}

// record counts a call that handed out n numbers, or failed with err.
func (s *callCounts) record(n int64, err error) {
	s.calls.Add(1)
	if err != nil {
		s.errors.count(err)
		return
	}
	s.numbers.Add(n)
}

// counterStats is the live form of CounterStats.
type counterStats struct {
	callCounts
	roundTrips requestCounts
	resends    atomic.Int64
	waits      capacityWaits
}

// blockStats is the live form of BlockStats, but for the figures Stats
// derives from the ranges (Numbers, Calls).
type blockStats struct {
	leases, leasedNumbers, failedLeases, leaseNanos atomic.Int64
	maxLease                                        durationMax
	waits, waitNanos                                atomic.Int64
	handedBack, abandoned, interrupted, roundTrips  atomic.Int64
	errors                                          errorCounts
}

// lease counts a lease of size numbers that took d and sent tries
// requests, and failed with err unless it is nil.
func (s *blockStats) lease(size int64, d time.Duration, tries int64, err error) {
	s.roundTrips.Add(tries)
	s.leaseNanos.Add(int64(d))
	s.maxLease.add(d)
	if err != nil {
		s.failedLeases.Add(1)
		return
	}
	s.leases.Add(1)
	s.leasedNumbers.Add(size)
}

// durationMax is the live form of a largest duration, such as
// BlockStats.MaxLeaseTime.
type durationMax struct{ ns int64Max }

func (m *durationMax) add(d time.Duration) { m.ns.add(int64(d)) }

func (m *durationMax) load() time.Duration { return time.Duration(m.ns.load()) }

// int64Max is the live form of a largest value, such as
// AppendStats.MaxBatch.
type int64Max struct{ v atomic.Int64 }

func (m *int64Max) add(v int64) {
	for old := m.v.Load(); v > old && !m.v.CompareAndSwap(old, v); old = m.v.Load() {
	}
}

func (m *int64Max) load() int64 { return m.v.Load() }

// requestCounts counts the requests sent to DynamoDB, by operation, for
// the RoundTrips figures, and those refused for want of capacity or for a
// conflict, by form.
type requestCounts struct {
	get, put, update, query, transact atomic.Int64
	throttled, throttledTx, conflicts atomic.Int64
}

func (r *requestCounts) total() int64 {
	return r.get.Load() + r.put.Load() + r.update.Load() + r.query.Load() + r.transact.Load()
}

// refused counts err, the error of one request, if DynamoDB refused it for
// want of capacity or for a conflict.
func (r *requestCounts) refused(err error) {
	if err == nil {
		return
	}
	if reasons, ok := engine.Reasons(err); ok {
		var throttled, conflict bool
		for _, reason := range reasons {
			switch engine.Code(reason) {
			case engine.ReasonThrottlingError, engine.ReasonProvisionedThroughputExceeded:
				throttled = true
			case engine.ReasonTransactionConflict:
				conflict = true
			}
		}
		if throttled {
			r.throttledTx.Add(1)
		}
		if conflict {
			r.conflicts.Add(1)
		}
		return
	}
	switch engine.Classify(err) {
	case engine.ThrottleRefusal:
		r.throttled.Add(1)
	case engine.ConflictRefusal:
		if !engine.ReplicatedConflict(err) { // a lost race, counted as such
			r.conflicts.Add(1)
		}
	}
}

// countingClient passes every request on to Client with the library's
// own handling of throttles and conflicts (engine.OwnBackpressure: the
// SDK returns them at once, and the strategy waits them out), and counts
// it in n, by operation, for the strategies' RoundTrips figures, and by
// the refusal DynamoDB answered (see stats.go). Its errors name the
// operation and DynamoDB's answer once (see engine.BriefSDK).
type countingClient struct {
	Client
	n *requestCounts
}

func (c countingClient) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.n.get.Add(1)
	out, err := c.Client.GetItem(ctx, in, own(optFns)...)
	c.n.refused(err)
	return out, engine.BriefSDK("GetItem", err)
}

func (c countingClient) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.n.put.Add(1)
	out, err := c.Client.PutItem(ctx, in, own(optFns)...)
	c.n.refused(err)
	return out, engine.BriefSDK("PutItem", err)
}

func (c countingClient) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.n.update.Add(1)
	out, err := c.Client.UpdateItem(ctx, in, own(optFns)...)
	c.n.refused(err)
	return out, engine.BriefSDK("UpdateItem", err)
}

func (c countingClient) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.n.query.Add(1)
	out, err := c.Client.Query(ctx, in, own(optFns)...)
	c.n.refused(err)
	return out, engine.BriefSDK("Query", err)
}

func (c countingClient) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c.n.transact.Add(1)
	out, err := c.Client.TransactWriteItems(ctx, in, own(optFns)...)
	c.n.refused(err)
	return out, engine.BriefSDK("TransactWriteItems", err)
}

// own returns optFns with engine.OwnBackpressure added, in a slice of its
// own.
func own(optFns []func(*dynamodb.Options)) []func(*dynamodb.Options) {
	return append([]func(*dynamodb.Options){engine.OwnBackpressure}, optFns...)
}

// capacityWaits is the live form of the waits of CapacityStats.
type capacityWaits struct {
	n, nanos atomic.Int64
}

// add counts a wait of d for capacity.
func (w *capacityWaits) add(d time.Duration) {
	w.n.Add(1)
	w.nanos.Add(int64(d))
}

// capacityStats is the CapacityStats of the requests r counted and the
// waits w.
func capacityStats(r *requestCounts, w *capacityWaits) CapacityStats {
	return CapacityStats{
		Throttled:             r.throttled.Load(),
		ThrottledTransactions: r.throttledTx.Load(),
		Conflicts:             r.conflicts.Load(),
		CapacityWaits:         w.n.Load(),
		CapacityWait:          time.Duration(w.nanos.Load()),
	}
}

// appendStats is the live form of AppendStats.
type appendStats struct {
	callCounts
	requests                    requestCounts
	batches, batchedCalls       atomic.Int64
	maxBatch                    int64Max
	lostRaces, retries, resends atomic.Int64
	turns, turnWaits, turnWait  atomic.Int64
	waits                       capacityWaits
}

// waited counts a wait for the turns of other processes that lasted d.
func (s *appendStats) waited(d time.Duration) {
	s.turnWaits.Add(1)
	s.turnWait.Add(int64(d))
}

// batch counts a batch of n calls.
func (s *appendStats) batch(n int) {
	s.batches.Add(1)
	s.batchedCalls.Add(int64(n))
	s.maxBatch.add(int64(n))
}

func (s *appendStats) stats() AppendStats {
	r := &s.requests
	return AppendStats{
		Calls:        s.calls.Load(),
		Numbers:      s.numbers.Load(),
		Errors:       s.errors.stats(),
		RoundTrips:   r.total(),
		Reads:        r.get.Load() + r.query.Load(),
		Puts:         r.put.Load(),
		Transactions: r.transact.Load(),
		Batches:      s.batches.Load(),
		BatchedCalls: s.batchedCalls.Load(),
		MaxBatch:     s.maxBatch.load(),
		LostRaces:    s.lostRaces.Load(),
		Retries:      s.retries.Load(),
		Resends:      s.resends.Load(),
		Turns:        s.turns.Load(),
		TurnWaits:    s.turnWaits.Load(),
		TurnWait:     time.Duration(s.turnWait.Load()),

		CapacityStats: capacityStats(r, &s.waits),
	}
}

// sortKeyStats is the live form of SortKeyStats.
type sortKeyStats struct {
	appendStats
}

// Stats returns the SortKey's cumulative figures. It reads a few atomic
// counters: cheap enough to call at any rate, from any goroutine. Figures
// read while calls are running may be a moment apart from each other.
func (s *SortKey) Stats() SortKeyStats {
	return SortKeyStats{AppendStats: s.stats.stats()}
}

// Stats returns the Latest's cumulative figures, as SortKey.Stats does.
func (l *Latest) Stats() LatestStats {
	return LatestStats{AppendStats: l.stats.stats()}
}
