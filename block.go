package dynamoseq

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Block hands out numbers from ranges leased from a Counter (the hi/lo or
// segment allocator): one Counter.NextN of size values reserves a range in
// DynamoDB, and Next hands its numbers out from memory. The next range is
// leased in the background before the current one runs out, one lease per
// name at a time, so a caller waits for DynamoDB only on the first call for
// a name or when numbers run out faster than a lease returns.
//
// Guarantees: unique across every Block, Counter and process sharing the
// counter's table; increasing within one Block per name (no order across
// Blocks or processes); not gap-free: a range's unused numbers are lost
// when the process stops without Close (Close hands them back when no one
// leased after it). Near MaxValue a range that no longer fits whole is not
// leased: ErrExhausted.
//
// Cost: one UpdateItem round trip and one write unit per range, nothing per
// number, one more per name at Close; a few hundred bytes of memory per
// name ever used.
//
// A Block is safe for concurrent use by any number of goroutines. It starts
// one goroutine per lease in flight; Close stops them. See docs/block.md.
type Block struct {
	counter  *Counter
	size     int64        // the first range size of every name
	opts     BlockOptions // resolved: defaults applied
	minSize  int64        // bounds of the range size; minSize == maxSize: fixed
	maxSize  int64
	lifetime bool // sizes follow the rate (Lifetime)
	grow     bool // sizes grow after a caller waited for a lease
	stats    blockStats

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
	exp  *expiry                    // the TTL its leases set on the counter item, or nil
	cur  atomic.Pointer[blockRange] // the range numbers are taken from; nil before the first lease

	mu      sync.Mutex    // protects the fields below
	next    *blockRange   // a leased range waiting for cur to run out, or nil
	refill  *blockRefill  // the lease in flight, or nil
	size    int64         // the size of the next lease
	rate    float64       // numbers a second of a range that ran out before the next arrived; 0: none did
	latency time.Duration // how long the last lease took
	handed  int64         // numbers handed out of the ranges before cur
}

// blockRange is a leased range: first, first+step, ..., first+(n-1)*step.
type blockRange struct {
	taken    atomic.Int64 // how many numbers were claimed; may grow past n
	refillAt atomic.Int64 // the index whose taker starts the next lease
	first    int64
	step     int64
	n        int64
	started  time.Time // when it became cur, unless the size is fixed
}

// last returns the last number of r.
func (r *blockRange) last() int64 { return r.first + (r.n-1)*r.step }

// sealed is what Close stores in blockRange.taken: every later claim falls
// past the end of the range.
const sealed = 1 << 62

// blockRefill is one lease in flight. done is closed when it ends; err is
// set before that.
type blockRefill struct {
	done chan struct{}
	err  error
}

// NewBlock returns a Block that leases size numbers at a time from c, with
// the options optFns set; the table, key layout, Start, Step, MaxValue and
// Region slicing (GlobalTableMREC) are the Counter's.
//
// By default ranges are of size until a caller had to wait for one; the
// next ones are then sized to last two lease round trips at the rate used,
// up to MaxSize (64 times size). MaxSize equal to size fixes the size;
// Lifetime makes sizes follow the rate, between MinSize and MaxSize.
// docs/block.md has the rules.
//
// It makes no call to DynamoDB and starts no goroutine. It returns an error
// wrapping ErrInvalidArgument when c is nil or size is below 1, and an
// *OptionError when MinSize is above size, MaxSize below it, or a duration
// is negative.
func NewBlock(c *Counter, size int64, optFns ...func(*BlockOptions)) (*Block, error) {
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
	o := apply(optFns)
	if err := o.resolve(size); err != nil {
		return fail(err)
	}
	b := &Block{counter: c, size: size, opts: o, minSize: size, maxSize: o.MaxSize, refills: map[*blockRefill]func(){}}
	b.lifetime = o.Lifetime > 0
	if b.lifetime {
		b.minSize = o.MinSize
	}
	b.grow = !b.lifetime && b.maxSize > size
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
	return b.next(ctx, name, nil)
}

// next is Next, whose leases of a new name also set exp, the TTL of an
// IDMinter's period, on the counter item.
func (b *Block) next(ctx context.Context, name string, exp *expiry) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, b.nextError(name, err)
	}
	if b.closed.Load() {
		return 0, b.nextError(name, ErrClosed)
	}
	s, err := b.seq(name, exp)
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

// seq returns the state of name, creating it on first use with exp.
func (b *Block) seq(name string, exp *expiry) (*blockSeq, error) {
	if v, ok := b.seqs.Load(name); ok {
		return v.(*blockSeq), nil
	}
	if _, err := partitionValue(b.counter.opts.KeyPrefix, name); err != nil {
		return nil, err
	}
	v, _ := b.seqs.LoadOrStore(name, &blockSeq{name: name, size: b.size, exp: exp})
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
		if old != nil {
			s.handed += old.n
		}
		if b.lifetime || b.grow {
			r.started = b.now()
		}
		s.cur.Store(r)
		s.mu.Unlock()
		return nil
	}
	if b.grow && old != nil && s.rate == 0 {
		// old ran out before the next range arrived: the lease sizes the
		// range after it by this rate.
		s.rate = float64(old.n) / b.now().Sub(old.started).Seconds()
	}
	f := s.refill
	if f == nil {
		f = b.startLocked(s)
	}
	s.mu.Unlock()
	if f == nil {
		return ErrClosed
	}
	return b.wait(ctx, f)
}

// wait waits for the lease f to end, or for ctx to.
func (b *Block) wait(ctx context.Context, f *blockRefill) error {
	start := time.Now()
	defer func() {
		b.stats.waits.Add(1)
		b.stats.waitNanos.Add(int64(time.Since(start)))
	}()
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// now reads the clock that range sizes follow: the options' for the rate,
// the real clock for growth.
func (b *Block) now() time.Time {
	if b.lifetime {
		return b.opts.now()
	}
	return time.Now()
}

// prefetch starts the lease of the range after r, whose index i was just
// handed out, unless one is in flight or waiting already.
func (b *Block) prefetch(s *blockSeq, r *blockRange, i int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next != nil || s.refill != nil || s.cur.Load() != r {
		return
	}
	switch {
	case b.lifetime:
		s.size = b.nextSize(r, i+1)
	case b.grow && i > 0: // i == 0: leased at once after a wait, sized by lease
		// At the rate r is used, will its rest run out before a lease
		// as slow as the last returns? Then a caller would wait: grow now.
		rate := float64(i+1) / b.now().Sub(r.started).Seconds()
		if float64(r.n-i-1)/rate < s.latency.Seconds() {
			s.size = b.grownSize(s.size, rate, s.latency)
		}
	}
	b.startLocked(s)
}

// nextSize returns the size of a range that lasts about Lifetime at the
// rate at which the first used numbers of r were handed out.
func (b *Block) nextSize(r *blockRange, used int64) int64 {
	elapsed := b.opts.now().Sub(r.started)
	want := float64(b.maxSize)
	if elapsed > 0 {
		want = float64(used) / elapsed.Seconds() * b.opts.Lifetime.Seconds()
	}
	return int64(math.Round(min(max(want, float64(b.minSize)), float64(b.maxSize))))
}

// grownSize returns the size of a range that lasts, at rate numbers a
// second, two lease round trips of latency after its refill point: size at
// least, MaxSize at most.
func (b *Block) grownSize(size int64, rate float64, latency time.Duration) int64 {
	want := 2 * latency.Seconds() * rate / (1 - b.opts.refillThreshold) // +Inf for a threshold of 1
	if !(want <= float64(b.maxSize)) {
		return b.maxSize // also for NaN
	}
	return max(int64(math.Ceil(want)), size)
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
	start := time.Now()
	tries := int64(1)
	first, err := b.counter.reserve(ctx, "Counter.NextN", s.name, size, s.exp)
	if errors.Is(err, ErrExhausted) && size > b.size {
		// A grown range no longer fits below MaxValue; one of the first
		// size may.
		s.mu.Lock()
		s.size, size = b.size, b.size
		s.mu.Unlock()
		tries++
		first, err = b.counter.reserve(ctx, "Counter.NextN", s.name, size, s.exp)
	}
	took := time.Since(start)
	b.stats.lease(size, took, tries, err)
	if err != nil && errors.Is(ctx.Err(), context.Canceled) {
		// Close cancelled the lease in flight: DynamoDB may have applied it.
		b.stats.interrupted.Add(size)
	}

	b.mu.Lock()
	b.refills[f]()
	delete(b.refills, f)
	b.mu.Unlock()

	s.mu.Lock()
	s.refill = nil
	s.latency = took
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
		r.refillAt.Store(min(int64(float64(size)*b.opts.refillThreshold), size-1))
		if s.rate > 0 {
			// A caller waited for this range: lease the next one, larger,
			// as soon as this one is used.
			s.size = b.grownSize(s.size, s.rate, took)
			s.rate = 0
			r.refillAt.Store(0)
		}
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
	b.stats.errors.count(err)
	return &Error{Op: "Block.Next", Table: b.counter.table, Sequence: name, Err: err}
}

// Close stops the Block: leases in flight are cancelled and Close waits for
// their goroutines to end, so none outlives it. Afterwards Next returns
// ErrClosed, also to callers that were waiting for a lease.
//
// Then Close hands back the numbers it holds unused, name by name: one
// UpdateItem sets the counter to the last number handed out, on the
// condition that it still holds the end of this Block's last lease. A
// process that starts again after a clean Close so continues without a
// gap. When another Block or Counter leased from the name since, the
// condition fails and the numbers are lost, as they are when a process
// stops without Close. The hand-backs take up to RefillTimeout in all.
//
// Close is safe to call more than once and from any goroutine; only the
// first call hands back. It returns an error only when a hand-back failed
// for another reason than another lease (the numbers of that name are then
// lost); the Block is closed all the same.
func (b *Block) Close() error {
	b.mu.Lock()
	first := !b.closed.Swap(true)
	for _, cancel := range b.refills {
		cancel()
	}
	b.mu.Unlock()
	b.wg.Wait()
	if !first {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.opts.RefillTimeout)
	defer cancel()
	var errs []error
	b.seqs.Range(func(_, v any) bool {
		if err := b.handBack(ctx, v.(*blockSeq)); err != nil {
			errs = append(errs, err)
		}
		return true
	})
	return errors.Join(errs...)
}

// handBack takes the ranges of s out of use and hands their unused numbers
// back to the counter when no other lease came after this Block's last.
func (b *Block) handBack(ctx context.Context, s *blockSeq) error {
	end, back, unused := s.release()
	if back == end {
		b.stats.abandoned.Add(unused)
		return nil
	}
	pk, err := b.counter.key(s.name)
	if err == nil {
		b.stats.roundTrips.Add(1)
		// Sent once, never resent by the SDK: a resend of an applied
		// hand-back would pass its condition again after another process
		// had leased exactly the numbers handed back (the counter back at
		// end), and hand them out a second time. A hand-back whose answer
		// is lost was applied or not; either way no number is handed out
		// twice. A ReplicatedWriteConflict of the one attempt wrote
		// nothing, so updateItem may send it again.
		_, err = b.counter.updateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                aws.String(b.counter.table),
			Key:                      b.counter.itemKey(pk),
			UpdateExpression:         aws.String("SET #v = :back"),
			ConditionExpression:      aws.String("#v = :end"),
			ExpressionAttributeNames: b.counter.names,
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":back": &types.AttributeValueMemberN{Value: strconv.FormatInt(back, 10)},
				":end":  &types.AttributeValueMemberN{Value: strconv.FormatInt(end, 10)},
			},
		}, func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	}
	var ccf *types.ConditionalCheckFailedException
	switch {
	case err == nil:
		returned := (end - back) / b.counter.stride
		b.stats.handedBack.Add(returned)
		b.stats.abandoned.Add(unused - returned)
		return nil
	case errors.As(err, &ccf): // another lease came after ours
		b.stats.abandoned.Add(unused)
		return nil
	}
	b.stats.abandoned.Add(unused)
	return &Error{Op: "Block.Close", Table: b.counter.table, Sequence: s.name,
		Err: fmt.Errorf("hand-back of %d numbers (lost or handed back; none is handed out twice): %w", unused, classify(err))}
}

// release takes the ranges of s out of use, for Close: later claims fall
// past their end. It returns the last number this Block leased for s (end),
// the number the counter can be set back to (back, end when none), and how
// many numbers s holds that were not handed out.
func (s *blockSeq) release() (end, back, unused int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, next := s.cur.Load(), s.next
	s.cur.Store(nil)
	s.next = nil
	if cur != nil {
		used := min(cur.taken.Swap(sealed), cur.n)
		s.handed += used
		unused = cur.n - used
		end, back = cur.last(), cur.first+(used-1)*cur.step
	}
	if next != nil {
		unused += next.n
		if cur == nil || cur.last()+cur.step != next.first {
			back = next.first - next.step // another lease came between: only next goes back
		}
		end = next.last()
	}
	return end, back, unused
}

// handedOut returns how many numbers of s were handed out.
func (s *blockSeq) handedOut() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.handed
	if cur := s.cur.Load(); cur != nil {
		n += min(cur.taken.Load(), cur.n)
	}
	return n
}

// Stats returns the Block's cumulative figures. It reads a few atomic
// counters, and the ranges of every name under their locks: cheap enough
// to call every second from any goroutine, and it does not slow Next down.
// Figures read while calls are running may be a moment apart from each
// other.
func (b *Block) Stats() Stats { return b.figures().stats() }

// figures are the Block's figures in full.
func (b *Block) figures() blockFigures {
	st := &b.stats
	out := blockFigures{
		Errors:        st.errors.stats(),
		RoundTrips:    st.roundTrips.Load(),
		Leases:        st.leases.Load(),
		LeasedNumbers: st.leasedNumbers.Load(),
		FailedLeases:  st.failedLeases.Load(),
		LeaseTime:     time.Duration(st.leaseNanos.Load()),
		MaxLeaseTime:  st.maxLease.load(),
		Waits:         st.waits.Load(),
		WaitTime:      time.Duration(st.waitNanos.Load()),
		HandedBack:    st.handedBack.Load(),
		Abandoned:     st.abandoned.Load(),
		Interrupted:   st.interrupted.Load(),
	}
	b.seqs.Range(func(_, v any) bool {
		out.Numbers += v.(*blockSeq).handedOut()
		return true
	})
	out.Calls = out.Numbers + out.Errors.Total()
	return out
}
