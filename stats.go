package dynamoseq

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamoseq/dynamoseq/internal/engine"
)

// Stats are the cumulative figures of a strategy since it was made, as
// Counter.Stats, Block.Stats, SortKey.Stats and Latest.Stats return them:
// counts, like Prometheus counters, to graph and alert on by their rate.
// A figure a strategy does not have stays 0. docs/metrics.md says what
// each one means and what to alert on.
type Stats struct {
	Calls      int64         // calls that mint: Next, NextN, Current, AdvanceTo (Counter, with the reservations of Blocks and IDMinters), Next (Block), Next, Append and AppendOnce (SortKey, Latest)
	Numbers    int64         // numbers handed out: 1 per Next or Append (0 for a replay of AppendOnce), n per NextN
	Errors     int64         // calls that returned an error (the caller sees each error itself)
	RoundTrips int64         // requests sent to DynamoDB (a Block's: its leases and the hand-backs of Close); the SDK's own retries of one request count once
	Resends    int64         // requests sent again to settle an unknown outcome (a lost answer, a timeout, a server error)
	LostRaces  int64         // SortKey, Latest: writes refused because another writer had written the number first
	Throttled  int64         // requests refused for want of capacity: ThrottlingException, ProvisionedThroughputExceededException, RequestLimitExceeded, or a transaction cancelled for it
	WaitTime   time.Duration // time spent waiting before sending again after a throttle or a conflict; a Block's: calls of Next waiting for a lease
}

// counterFigures are a Counter's figures in full: those of Stats, and
// those the tests read.
type counterFigures struct {
	Calls      int64
	Numbers    int64
	RoundTrips int64
	Errors     errorFigures
	Resends    int64

	capacityFigures
}

// stats is the Stats of f.
func (f counterFigures) stats() Stats {
	st := Stats{Calls: f.Calls, Numbers: f.Numbers, Errors: f.Errors.Total(), RoundTrips: f.RoundTrips, Resends: f.Resends}
	f.capacityFigures.into(&st)
	return st
}

// capacityFigures are the figures of a strategy's requests that DynamoDB
// refused for want of capacity or because another transaction held their
// items, and of the waits before sending them again. The requests counted
// are also in RoundTrips.
type capacityFigures struct {
	Throttled             int64         // requests answered ThrottlingException, ProvisionedThroughputExceededException or RequestLimitExceeded
	ThrottledTransactions int64         // transactions cancelled for want of capacity: a reason ThrottlingError or ProvisionedThroughputExceeded
	Conflicts             int64         // requests refused with TransactionConflictException, or transactions cancelled with reason TransactionConflict
	CapacityWaits         int64         // waits before sending again after one of those
	CapacityWait          time.Duration // the time of those waits, in all
}

// into copies f into st.
func (f capacityFigures) into(st *Stats) {
	st.Throttled = f.Throttled + f.ThrottledTransactions
	st.WaitTime = f.CapacityWait
}

// blockFigures are a Block's figures in full. Calls is Numbers plus
// Errors.Total().
type blockFigures struct {
	Calls      int64        // calls of Next
	Numbers    int64        // numbers handed out by Next
	Errors     errorFigures // failed calls of Next, by kind
	RoundTrips int64        // leases asked for (one more when a grown range is asked for again at the first size) and hand-backs at Close

	Leases        int64         // ranges leased (one Counter.NextN each)
	LeasedNumbers int64         // numbers in those ranges
	FailedLeases  int64         // leases that returned an error
	LeaseTime     time.Duration // time spent in leases, succeeded or not, in all
	MaxLeaseTime  time.Duration // the longest lease
	Waits         int64         // calls of Next that waited for a lease: the first of a name, or its range ran out
	WaitTime      time.Duration // time those calls waited, in all

	HandedBack  int64 // numbers Close handed back to the counter, to be leased again
	Abandoned   int64 // numbers of leased ranges that Close could neither hand out nor hand back: lost
	Interrupted int64 // numbers of leases Close cancelled before their answer, never handed out
}

// stats is the Stats of f.
func (f blockFigures) stats() Stats {
	return Stats{Calls: f.Calls, Numbers: f.Numbers, Errors: f.Errors.Total(), RoundTrips: f.RoundTrips, WaitTime: f.WaitTime}
}

// appendFigures are the figures in full that SortKey and Latest share:
// those of the calls that append (Next and Append), of the batches that
// write them, and of the requests sent to DynamoDB, the read methods'
// included.
type appendFigures struct {
	Calls      int64
	Numbers    int64
	Errors     errorFigures
	RoundTrips int64 // Reads + Puts + Transactions

	Reads        int64 // Query and GetItem requests
	Puts         int64 // PutItem requests
	Transactions int64 // TransactWriteItems requests

	Batches      int64 // groups of calls written together, one request per attempt
	BatchedCalls int64 // calls in those batches
	MaxBatch     int64 // the most calls in one batch

	LostRaces int64 // writes refused because another writer had written first
	Retries   int64 // writes sent again after a lost race
	Resends   int64 // identical requests sent again to settle an unknown outcome

	capacityFigures

	Turns     int64         // turns taken at names that other processes write too
	TurnWaits int64         // waits for the turns of other processes to end, and pauses after this writer's own
	TurnWait  time.Duration // the time spent in those waits
}

// stats is the Stats of f.
func (f appendFigures) stats() Stats {
	st := Stats{Calls: f.Calls, Numbers: f.Numbers, Errors: f.Errors.Total(), RoundTrips: f.RoundTrips, Resends: f.Resends, LostRaces: f.LostRaces}
	f.capacityFigures.into(&st)
	return st
}

// errorFigures are the failed calls by kind in full, for the tests.
type errorFigures struct {
	Exhausted, UnknownOutcome, Throttled, Contention, NotFound, TableNotFound, TableMismatch,
	InvalidArgument, Closed, Canceled, Other int64
}

// Total returns the number of failed calls.
func (e errorFigures) Total() int64 {
	return e.Exhausted + e.UnknownOutcome + e.Throttled + e.Contention + e.NotFound + e.TableNotFound + e.TableMismatch +
		e.InvalidArgument + e.Closed + e.Canceled + e.Other
}

// errorCounts is the live form of errorFigures, updated with atomics; every
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

func (c *errorCounts) stats() errorFigures {
	return errorFigures{
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

// counterStats is the live form of counterFigures.
type counterStats struct {
	callCounts
	roundTrips requestCounts
	resends    atomic.Int64
	waits      capacityWaits
}

// blockStats is the live form of blockFigures, but for the figures Stats
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
// blockFigures.MaxLeaseTime.
type durationMax struct{ ns int64Max }

func (m *durationMax) add(d time.Duration) { m.ns.add(int64(d)) }

func (m *durationMax) load() time.Duration { return time.Duration(m.ns.load()) }

// int64Max is the live form of a largest value, such as
// appendFigures.MaxBatch.
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

// capacityWaits is the live form of the waits of capacityFigures.
type capacityWaits struct {
	n, nanos atomic.Int64
}

// add counts a wait of d for capacity.
func (w *capacityWaits) add(d time.Duration) {
	w.n.Add(1)
	w.nanos.Add(int64(d))
}

// capacityStats is the capacityFigures of the requests r counted and the
// waits w.
func capacityStats(r *requestCounts, w *capacityWaits) capacityFigures {
	return capacityFigures{
		Throttled:             r.throttled.Load(),
		ThrottledTransactions: r.throttledTx.Load(),
		Conflicts:             r.conflicts.Load(),
		CapacityWaits:         w.n.Load(),
		CapacityWait:          time.Duration(w.nanos.Load()),
	}
}

// appendStats is the live form of appendFigures.
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

func (s *appendStats) stats() appendFigures {
	r := &s.requests
	return appendFigures{
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

		capacityFigures: capacityStats(r, &s.waits),
	}
}

// sortKeyStats is the live form of a SortKey's appendFigures.
type sortKeyStats struct {
	appendStats
}

// Stats returns the SortKey's cumulative figures. It reads a few atomic
// counters: cheap enough to call at any rate, from any goroutine. Figures
// read while calls are running may be a moment apart from each other.
func (s *SortKey) Stats() Stats { return s.stats.stats().stats() }

// Stats returns the Latest's cumulative figures, as SortKey.Stats does.
func (l *Latest) Stats() Stats { return l.stats.stats().stats() }
