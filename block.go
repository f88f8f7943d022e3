package dynamoseq

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Block hands out numbers from ranges leased from a Counter (the hi/lo or
// segment allocator): one Counter.NextN of size values reserves a range in
// DynamoDB, and Next hands its numbers out from memory, one atomic addition
// each. Each sequence name has its own range.
//
// Before a range runs out, once Options.RefillThreshold of it has been
// handed out, the next range is leased in the background, so that a steady
// stream of callers never waits for DynamoDB. Concurrent refills of one name
// are merged into one lease: at most one NextN per name is in flight. A
// caller waits for DynamoDB only on the first call for a name, and when the
// numbers run out before the next range arrives (consumption faster than a
// round trip, or a failed refill).
//
// Guarantees:
//   - Unique: no number is handed out twice, by this Block or by any other
//     Block, Counter or process sharing the counter's table, because every
//     range is reserved with one conditional UpdateItem before any of its
//     numbers is handed out.
//   - Increasing within one Block, per name: if one Next for a name returns
//     before another Next for the same name starts, in any goroutines, the
//     later one returns the larger number. Calls that overlap in time may
//     return in either order. There is no order across Blocks, and so none
//     across processes: each holds its own range, and a process may hand out
//     a small number of an old range after another process handed out a
//     larger one.
//   - Not gap-free: the numbers of a leased range that are not handed out
//     are lost when the Block is closed or the process stops; the next range
//     starts after them. A refill that fails, or one interrupted by Close
//     after DynamoDB applied it, may lose a range too. Lost numbers are never
//     handed out, by anyone.
//   - Near the Counter's MaxValue, a range that no longer fits whole is not
//     leased: Next returns ErrExhausted although a few numbers remain.
//
// Cost: one UpdateItem round trip and one write unit per range, whatever
// its size; nothing per number. Next from memory takes a few tens of
// nanoseconds and allocates nothing. Memory: a few hundred bytes per name
// ever used, kept until the Block is garbage (a Block suits a bounded set of
// names, not one per user).
//
// A Block is safe for concurrent use by any number of goroutines. It starts
// one goroutine per lease in flight; Close stops them and waits for them.
type Block struct {
	counter *Counter
	size    int64 // the first range size of every name
	opts    Options
	minSize int64 // bounds of the adaptive size; minSize == maxSize: fixed
	maxSize int64

	closed atomic.Bool // set by Close; read on every Next
	seqs   sync.Map    // name -> *blockSeq, never deleted

	mu      sync.Mutex              // protects refills, and orders wg.Add before Close's wg.Wait
	refills map[*blockRefill]func() // leases in flight -> their context's cancel
	wg      sync.WaitGroup          // one per lease goroutine
}

// Why a later Next of one name in one Block returns a larger number:
//
//  1. Its leases are sequential: a lease starts only when none is in flight
//     and no leased range is waiting, so each NextN is sent after the one
//     before returned, and DynamoDB applies it later: each range lies above
//     the one before.
//  2. Ranges become current in the order they were leased (through the one
//     slot blockSeq.next), and a range becomes current only once every index
//     of the current one is claimed: advance runs after a claim past the end.
//  3. Within a range, indexes are claimed with one atomic addition, and Go's
//     atomics have a single order consistent with real time.
//
// So when call A returns before call B starts, B loads the current range
// after A's claim: either A's range, where B's index is larger, or a later
// one, whose numbers are all larger. Uniqueness follows from 2 and 3 and
// from each range being reserved in DynamoDB.

// blockSeq is the state of one name in a Block.
type blockSeq struct {
	name string
	cur  atomic.Pointer[blockRange] // the range numbers are taken from; nil before the first lease

	mu     sync.Mutex   // protects the fields below
	next   *blockRange  // a leased range waiting for cur to run out, or nil
	refill *blockRefill // the lease in flight, or nil
	size   int64        // the size of the next lease
}

// blockRange is a leased range: first, first+step, ..., first+(n-1)*step.
type blockRange struct {
	taken    atomic.Int64 // how many numbers were claimed; may grow past n
	refillAt atomic.Int64 // the index whose taker starts the next lease
	first    int64
	step     int64
	n        int64
	started  time.Time // when it became cur; for the adaptive size
}

// blockRefill is one lease in flight. done is closed when it ends; err is
// set before that.
type blockRefill struct {
	done chan struct{}
	err  error
}

// NewBlock returns a Block that leases size numbers at a time from c. It
// reads RefillThreshold, MinBlockSize, MaxBlockSize, BlockLifetime,
// RefillTimeout and Now from the options; the table, key layout, Start,
// Step, MaxValue and Region slicing (GlobalTableMREC) are the Counter's.
//
// When MinBlockSize or MaxBlockSize differ from size, the range size adapts
// to the rate of consumption of each name: each lease is sized so that it
// lasts about BlockLifetime at the rate the previous range was used, within
// the bounds. A name used in bursts gets large ranges, an idle name small
// ones, so that it wastes few numbers when its process stops.
//
// It makes no call to DynamoDB and starts no goroutine. It returns an error
// wrapping ErrInvalidArgument when c is nil, size is below 1, MinBlockSize
// is above size or MaxBlockSize below it, RefillThreshold is not in (0, 1],
// or BlockLifetime or RefillTimeout is negative.
func NewBlock(c *Counter, size int64, optFns ...func(*Options)) (*Block, error) {
	fail := func(err error) (*Block, error) {
		e := &Error{Op: "NewBlock", Err: err}
		if c != nil {
			e.Table = c.table
		}
		return nil, e
	}
	if c == nil {
		return fail(invalidf("nil counter"))
	}
	if size < 1 {
		return fail(invalidf("size is %d, want at least 1", size))
	}
	o, err := resolveOptions(optFns)
	if err != nil {
		return fail(err)
	}
	b := &Block{counter: c, size: size, opts: o, minSize: size, maxSize: size, refills: map[*blockRefill]func(){}}
	if o.MinBlockSize != 0 {
		b.minSize = o.MinBlockSize
	}
	if o.MaxBlockSize != 0 {
		b.maxSize = o.MaxBlockSize
	}
	if b.minSize < 1 || b.minSize > size {
		return fail(invalidf("MinBlockSize is %d, want 1 to size %d", b.minSize, size))
	}
	if b.maxSize < size {
		return fail(invalidf("MaxBlockSize is %d, want at least size %d", b.maxSize, size))
	}
	return b, nil
}

// Next returns the next number of the sequence name from the range in
// memory. It calls DynamoDB only when the Block holds no number for name:
// the first call for a name, or when the range ran out before the next one
// arrived. Then it waits for the lease in flight (one Counter.NextN, shared
// with every caller that needs a number of that name), or starts one.
//
// A ctx that has already ended gets its error and no number. ctx also
// bounds the wait for a lease: when it ends first, Next returns its error
// and the lease goes on in the background for the next caller.
//
// It returns ErrClosed after Close, ErrInvalidArgument for a name the
// Counter refuses, and the lease's error (ErrExhausted, ErrTableNotFound,
// the SDK's error...) to every caller that waited for a lease that failed;
// the next call tries again.
func (b *Block) Next(ctx context.Context, name string) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, b.nextError(name, err)
	}
	if b.closed.Load() {
		return 0, b.nextError(name, ErrClosed)
	}
	s, err := b.seq(name)
	if err != nil {
		return 0, b.nextError(name, err)
	}
	for {
		r := s.cur.Load()
		if r != nil {
			i := r.taken.Add(1) - 1
			if i < r.n {
				if i == r.refillAt.Load() {
					b.prefetch(s, r, i)
				}
				return r.first + i*r.step, nil
			}
		}
		if err := b.advance(ctx, s, r); err != nil {
			return 0, b.nextError(name, err)
		}
	}
}

// seq returns the state of name, creating it on first use.
func (b *Block) seq(name string) (*blockSeq, error) {
	if v, ok := b.seqs.Load(name); ok {
		return v.(*blockSeq), nil
	}
	if _, err := partitionValue(b.counter.opts.KeyPrefix, name); err != nil {
		return nil, err
	}
	v, _ := b.seqs.LoadOrStore(name, &blockSeq{name: name, size: b.size})
	return v.(*blockSeq), nil
}

// advance makes a fresh range current after old ran out: the range leased
// in the background if it arrived, otherwise after waiting for a lease.
// It returns nil when the caller should try again.
func (b *Block) advance(ctx context.Context, s *blockSeq, old *blockRange) error {
	s.mu.Lock()
	if s.cur.Load() != old {
		s.mu.Unlock() // another caller advanced it
		return nil
	}
	if b.closed.Load() {
		s.mu.Unlock()
		return ErrClosed
	}
	if r := s.next; r != nil {
		s.next = nil
		if b.adaptive() {
			r.started = b.opts.Now()
		}
		s.cur.Store(r)
		s.mu.Unlock()
		return nil
	}
	f := s.refill
	if f == nil {
		f = b.startLocked(s)
	}
	s.mu.Unlock()
	if f == nil {
		return ErrClosed
	}
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// prefetch starts the lease of the range after r, whose index i was just
// handed out, unless one is in flight or waiting already.
func (b *Block) prefetch(s *blockSeq, r *blockRange, i int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next != nil || s.refill != nil || s.cur.Load() != r {
		return
	}
	if b.adaptive() {
		s.size = b.nextSize(r, i+1)
	}
	b.startLocked(s)
}

// adaptive reports whether range sizes follow the rate of consumption.
func (b *Block) adaptive() bool { return b.minSize != b.maxSize }

// nextSize returns the size of a range that lasts about BlockLifetime at
// the rate at which the first used numbers of r were handed out.
func (b *Block) nextSize(r *blockRange, used int64) int64 {
	elapsed := b.opts.Now().Sub(r.started)
	want := float64(b.maxSize)
	if elapsed > 0 {
		want = float64(used) / elapsed.Seconds() * b.opts.BlockLifetime.Seconds()
	}
	return int64(math.Round(min(max(want, float64(b.minSize)), float64(b.maxSize))))
}

// startLocked starts leasing the next range of s in the background and
// returns the lease, or nil once the Block is closed. s.mu is held.
func (b *Block) startLocked(s *blockSeq) *blockRefill {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed.Load() {
		return nil
	}
	f := &blockRefill{done: make(chan struct{})}
	ctx, cancel := context.WithTimeout(context.Background(), b.opts.RefillTimeout)
	b.refills[f] = cancel
	b.wg.Add(1)
	s.refill = f
	go b.lease(ctx, s, f, s.size)
	return f
}

// lease reserves the next range of s with one Counter.NextN, and publishes
// it in s.next, or its error in f.err, before closing f.done.
func (b *Block) lease(ctx context.Context, s *blockSeq, f *blockRefill, size int64) {
	defer b.wg.Done()
	first, err := b.counter.NextN(ctx, s.name, size)

	b.mu.Lock()
	b.refills[f]()
	delete(b.refills, f)
	b.mu.Unlock()

	s.mu.Lock()
	s.refill = nil
	if err != nil {
		f.err = b.leaseError(size, err)
		if cur := s.cur.Load(); cur != nil {
			// Numbers remain: try again in the background once half of
			// them are handed out.
			if taken := cur.taken.Load(); taken < cur.n {
				cur.refillAt.Store(taken + (cur.n-taken)/2)
			}
		}
	} else {
		r := &blockRange{first: first, step: b.counter.stride, n: size}
		r.refillAt.Store(min(int64(float64(size)*b.opts.RefillThreshold), size-1))
		s.next = r
	}
	s.mu.Unlock()
	close(f.done)
}

// leaseError returns the cause of a failed lease, without the Counter's
// *Error around it: Next wraps it in its own.
func (b *Block) leaseError(size int64, err error) error {
	if b.closed.Load() {
		return ErrClosed
	}
	var e *Error
	if errors.As(err, &e) {
		err = e.Err
	}
	return &blockLeaseError{size: size, err: err}
}

// blockLeaseError is the cause of a failed lease.
type blockLeaseError struct {
	size int64
	err  error
}

func (e *blockLeaseError) Error() string {
	return fmt.Sprintf("lease of %d numbers: %s", e.size, strings.TrimPrefix(e.err.Error(), "dynamoseq: "))
}

func (e *blockLeaseError) Unwrap() error { return e.err }

func (b *Block) nextError(name string, err error) error {
	return &Error{Op: "Block.Next", Table: b.counter.table, Sequence: name, Err: err}
}

// Close stops the Block: leases in flight are cancelled and Close waits for
// their goroutines to end, so none outlives it. Afterwards Next returns
// ErrClosed, also to callers that were waiting for a lease. The numbers of
// the ranges the Block holds are lost. Close is safe to call more than once
// and from any goroutine; it always returns nil.
func (b *Block) Close() error {
	b.mu.Lock()
	b.closed.Store(true)
	for _, cancel := range b.refills {
		cancel()
	}
	b.mu.Unlock()
	b.wg.Wait()
	return nil
}
