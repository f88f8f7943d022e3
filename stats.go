package dynamoseq

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// CounterStats are cumulative figures of a Counter since it was made,
// returned by Counter.Stats. They include the calls that Blocks and
// IDMinters make through the Counter.
type CounterStats struct {
	Calls      int64      // calls of Next, NextN, Current and AdvanceTo, and reservations of Blocks and IDMinters
	Numbers    int64      // numbers handed out: 1 per Next, n per NextN
	RoundTrips int64      // requests sent to DynamoDB; the SDK's own retries of one request count once
	Errors     ErrorStats // failed calls, by kind
}

// BlockStats are cumulative figures of a Block since it was made, returned
// by Block.Stats. Calls is Numbers plus Errors.Total().
type BlockStats struct {
	Calls      int64      // calls of Next
	Numbers    int64      // numbers handed out by Next
	Errors     ErrorStats // failed calls of Next, by kind
	RoundTrips int64      // requests sent to DynamoDB: leases and hand-backs at Close

	Leases        int64         // ranges leased (one Counter.NextN each)
	LeasedNumbers int64         // numbers in those ranges
	FailedLeases  int64         // leases that returned an error
	LeaseTime     time.Duration // time spent in leases, succeeded or not, in all
	MaxLeaseTime  time.Duration // the longest lease
	Waits         int64         // calls of Next that waited for a lease: the first of a name, or its range ran out
	WaitTime      time.Duration // time those calls waited, in all

	HandedBack int64 // numbers Close handed back to the counter, to be leased again
	Abandoned  int64 // numbers of leased ranges that Close could neither hand out nor hand back: lost
}

// ErrorStats counts failed calls by the kind of error they returned, as
// errors.Is tells them apart.
type ErrorStats struct {
	Exhausted       int64 // ErrExhausted
	UnknownOutcome  int64 // ErrUnknownOutcome: the write may or may not have been applied
	Contention      int64 // ErrContention
	NotFound        int64 // ErrNotFound
	TableNotFound   int64 // ErrTableNotFound
	TableMismatch   int64 // ErrTableMismatch
	InvalidArgument int64 // ErrInvalidArgument
	Closed          int64 // ErrClosed
	Canceled        int64 // the caller's context ended: context.Canceled or context.DeadlineExceeded
	Other           int64 // anything else, such as the SDK's error after its retries (throttling, network)
}

// Total returns the number of failed calls.
func (e ErrorStats) Total() int64 {
	return e.Exhausted + e.UnknownOutcome + e.Contention + e.NotFound + e.TableNotFound + e.TableMismatch +
		e.InvalidArgument + e.Closed + e.Canceled + e.Other
}

// errorCounts is the live form of ErrorStats, updated with atomics; every
// strategy counts its failed calls with it.
type errorCounts struct {
	exhausted, unknownOutcome, contention, notFound, tableNotFound, tableMismatch,
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
	// ErrUnknownOutcome (branch retrysafe): count it in c.unknownOutcome here, before the kinds below.
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

// counterStats is the live form of CounterStats.
type counterStats struct {
	calls, numbers, roundTrips atomic.Int64
	errors                     errorCounts
}

// record counts a call that handed out n numbers, or failed with err.
func (s *counterStats) record(n int64, err error) {
	s.calls.Add(1)
	if err != nil {
		s.errors.count(err)
		return
	}
	s.numbers.Add(n)
}

// blockStats is the live form of BlockStats, but for the figures Stats
// derives from the ranges (Numbers, Calls).
type blockStats struct {
	leases, leasedNumbers, failedLeases, leaseNanos atomic.Int64
	maxLease                                        durationMax
	waits, waitNanos                                atomic.Int64
	handedBack, abandoned, roundTrips               atomic.Int64
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
type durationMax struct{ ns atomic.Int64 }

func (m *durationMax) add(d time.Duration) {
	for old := m.ns.Load(); int64(d) > old && !m.ns.CompareAndSwap(old, int64(d)); old = m.ns.Load() {
	}
}

func (m *durationMax) load() time.Duration { return time.Duration(m.ns.Load()) }

// countingClient passes every request on to Client and counts it in n, for
// the RoundTrips figures.
type countingClient struct {
	Client
	n *atomic.Int64
}

func (c countingClient) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.n.Add(1)
	return c.Client.GetItem(ctx, in, optFns...)
}

func (c countingClient) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.n.Add(1)
	return c.Client.PutItem(ctx, in, optFns...)
}

func (c countingClient) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.n.Add(1)
	return c.Client.UpdateItem(ctx, in, optFns...)
}

func (c countingClient) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.n.Add(1)
	return c.Client.Query(ctx, in, optFns...)
}

func (c countingClient) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c.n.Add(1)
	return c.Client.TransactWriteItems(ctx, in, optFns...)
}
