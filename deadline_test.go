package dynamoseq_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/deadline"
)

// The tests of this file check that the caller's deadline bounds every
// call (Retry.ResolveTimeout left at 0), on the service model: a write
// whose answer is held past the deadline, a name throttled past it, and
// the errors a request handler maps (RetryAfter).

// deadlineSlack is what a loaded machine may add to a call's deadline and
// one round trip (a grace of 10ms to a few tens of milliseconds here).
const deadlineSlack = 250 * time.Millisecond

// TestModelDeadlineStalledAnswer: callers whose writes are applied but
// whose answers are held until their deadline passes return within about
// one round trip of it: with ErrUnknownOutcome, the number that may hold
// their item and context.DeadlineExceeded when their write was in flight,
// or context.DeadlineExceeded alone when it was not sent; and none is
// misled (the item is at the number told, or nowhere). The deadline
// passes once a write's answer is held, however long the machine took to
// get there.
func TestModelDeadlineStalledAnswer(t *testing.T) {
	t.Parallel()
	for _, strategy := range []string{"SortKey", "Latest", "SortKey/NoTransactions", "Latest/NoTransactions"} {
		for _, callers := range []int{1, 8} {
			t.Run(strategy+"/callers="+string(rune('0'+callers)), func(t *testing.T) {
				t.Parallel()
				srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{}))
				hold := newHeldAnswers()
				table := srv.NewTable(t, dynamoseq.SortKeyTable("stall"))
				noTx := strings.HasSuffix(strategy, "/NoTransactions")
				appendFn, _, _ := modelAppender(t, strings.TrimSuffix(strategy, "/NoTransactions"), srv.Client(dynamoseqtest.WithTransport(hold), dbtest.FastRetries()), table, noTx)
				results, took := appendByDeadline(appendFn, "s", callers, hold.held)
				var unknown int
				for i, r := range results {
					require.Less(t, took[i], deadlineSlack, "caller %d returned %v after its deadline passed, want within about a round trip: %v", i, took[i], r.err)
					require.ErrorIs(t, r.err, context.DeadlineExceeded, "caller %d", i)
					if errors.Is(r.err, dynamoseq.ErrUnknownOutcome) {
						unknown++
						var e *dynamoseq.Error
						require.ErrorAs(t, r.err, &e, "caller %d", i)
						require.Positive(t, e.Number, "caller %d: ErrUnknownOutcome without a number: %v", i, r.err)
						_, retry := dynamoseq.RetryAfter(r.err)
						require.False(t, retry, "caller %d: RetryAfter(%v) = true, want false for an unknown outcome", i, r.err)
					}
				}
				require.Positive(t, unknown, "no caller was told ErrUnknownOutcome, though a write was in flight at the deadline: %v", results)
				t.Logf("the callers returned %v after the deadline at most; %d answers held", slices.Max(took), hold.count.Load())
				checkAppends(t, srv.Client(), table, "s", results, true)
			})
		}
	}
}

// appendByDeadline makes callers appends of unique bodies to name at
// once, under one deadline that passes when held is closed (a write's
// answer is held), and returns what each was told and how long after the
// deadline each returned.
func appendByDeadline(appendFn appender, name string, callers int, held <-chan struct{}) ([]appendResult, []time.Duration) {
	results := make([]appendResult, callers)
	returned := make([]time.Time, callers)
	ctx, pass := deadline.New()
	var calling, wg sync.WaitGroup
	for i := range callers {
		calling.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := name + "/" + string(rune('a'+i))
			calling.Done()
			n, err := appendFn(ctx, name, map[string]types.AttributeValue{"body": &types.AttributeValueMemberS{Value: body}})
			returned[i] = time.Now()
			results[i] = appendResult{body: body, n: n, err: err}
		}()
	}
	calling.Wait()
	<-held
	passed := time.Now()
	pass()
	wg.Wait()
	took := make([]time.Duration, callers)
	for i, r := range returned {
		took[i] = r.Sub(passed)
	}
	return results, took
}

// heldAnswers is an http.RoundTripper that sends every request to DynamoDB
// and holds the answer of each write (applied there) until the request's
// context ends, as a network that stalls does, and then fails as a client
// timeout would. held is closed once the first answer is held; count
// counts them.
type heldAnswers struct {
	held  chan struct{}
	once  sync.Once
	count atomic.Int64
}

func newHeldAnswers() *heldAnswers { return &heldAnswers{held: make(chan struct{})} }

func (h *heldAnswers) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	target := req.Header.Get("X-Amz-Target") // "DynamoDB_20120810.PutItem"
	op := target[strings.LastIndexByte(target, '.')+1:]
	if err != nil || (op != "PutItem" && op != "UpdateItem" && op != "TransactWriteItems") {
		return resp, err
	}
	resp.Body.Close()
	h.count.Add(1)
	h.once.Do(func() { close(h.held) })
	<-req.Context().Done()
	return nil, req.Context().Err()
}

// TestModelDeadlineStalledCounter: a Counter's update whose answer is held
// until the caller's deadline passes returns at the deadline with its
// error (a number may be lost, none is handed out twice); retrying is
// safe.
func TestModelDeadlineStalledCounter(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{}))
	hold := newHeldAnswers()
	c, err := dynamoseq.NewCounter(srv.Client(dynamoseqtest.WithTransport(hold), dbtest.FastRetries()), srv.NewTable(t, dynamoseq.CounterTable("stall")))
	require.NoError(t, err)
	ctx, pass := deadline.New()
	done := make(chan error, 1)
	go func() { _, err := c.Next(ctx, "n"); done <- err }()
	<-hold.held
	passed := time.Now()
	pass()
	err = <-done
	require.Less(t, time.Since(passed), deadlineSlack, "Next returned that long after its deadline passed, want within about a round trip: %v", err)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	_, retry := dynamoseq.RetryAfter(err)
	require.True(t, retry, "RetryAfter(%v) = false, want true", err)
}

// starved is a model whose partitions admit one write and then, for about
// a hundred seconds, none: every later write to a name is throttled. It
// answers at once (no latency).
func starved(t *testing.T, form dynamoseqtest.ThrottleForm) *dynamoseqtest.Server {
	return dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{WriteUnits: 0.01, Throttle: form, NoLatency: true}))
}

// passAtThrottle is an http.RoundTripper that sends every request to the
// model and passes the deadline once the SDK has read the answer of the
// second throttle (an exception, or a transaction cancelled for one) and
// closed it. The call was then put back to wait once (it carries the
// first throttle as its cause), and the second answer is on its way from
// the SDK to the library: the deadline passes as the call waits out a
// throttle, however slow the machine is. The second throttle is the
// library's second send because the SDK does not retry throttles for it
// (engine.OwnBackpressure); throttles counts them.
type passAtThrottle struct {
	pass      func()
	throttles atomic.Int64
}

// newPassAtThrottle returns a passAtThrottle and the deadline it passes.
func newPassAtThrottle() (*passAtThrottle, context.Context) {
	ctx, pass := deadline.New()
	return &passAtThrottle{pass: pass}, ctx
}

func (p *passAtThrottle) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusBadRequest {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	throttle := bytes.Contains(body, []byte("Throttl")) || bytes.Contains(body, []byte("ProvisionedThroughputExceeded"))
	if throttle && p.throttles.Add(1) == 2 {
		resp.Body = closeFunc{Reader: bytes.NewReader(body), close: p.pass}
	}
	return resp, nil
}

// closeFunc is a body that calls close when it is closed.
type closeFunc struct {
	io.Reader
	close func()
}

func (c closeFunc) Close() error { c.close(); return nil }

// TestModelDeadlineThrottled: a call to a name that DynamoDB keeps
// throttling returns at its deadline with an error that matches both
// ErrThrottled and context.DeadlineExceeded, and nothing stored; with a
// context without deadline it returns after Retry.MaxWait, with
// ErrThrottled. RetryAfter says to retry later, and suggests a wait. The
// deadline passes as the call waits out a throttle (passAtThrottle).
func TestModelDeadlineThrottled(t *testing.T) {
	t.Parallel()
	for _, form := range throttleForms {
		t.Run(form.name, func(t *testing.T) {
			t.Parallel()
			srv := starved(t, form.form)
			sortKeyTable := srv.NewTable(t, dynamoseq.SortKeyTable("starved"))
			counterTable := srv.NewTable(t, dynamoseq.CounterTable("starved"))
			for _, strategy := range []string{"SortKey", "Latest", "SortKey/NoTransactions", "Latest/NoTransactions", "Counter"} {
				t.Run(strategy, func(t *testing.T) {
					t.Parallel()
					next := starvedNext(t, strategy, sortKeyTable, counterTable)
					_, err := next(context.Background(), srv.Client(), 0)
					require.NoError(t, err, "the first write (the bucket is full)")

					// Up to 3 tries: the one race left (SortKey's and Latest's
					// writes, not the Counter's) is the caller's grace (a round
					// trip, 10ms at least) lapsing before the library has the
					// throttle that the SDK has read; the write is then in
					// flight for the caller. At load 10, 4 times in 1,000 calls.
					var rt *passAtThrottle
					for try := 1; try <= 3; try++ {
						var ctx context.Context
						rt, ctx = newPassAtThrottle()
						_, err = next(ctx, srv.Client(dynamoseqtest.WithTransport(rt)), 0)
						if errors.Is(err, dynamoseq.ErrThrottled) {
							break
						}
						t.Logf("try %d: want ErrThrottled once the deadline passed (the write in flight for the caller?), got %v", try, err)
					}
					require.ErrorIs(t, err, dynamoseq.ErrThrottled)
					require.ErrorIs(t, err, context.DeadlineExceeded, "the transport saw %d throttles; it passes the deadline at the second", rt.throttles.Load())
					require.NotErrorIs(t, err, dynamoseq.ErrUnknownOutcome, "the deadline passed with no request in flight")
					wait, retry := dynamoseq.RetryAfter(err)
					require.True(t, retry, "RetryAfter(%v)", err)
					require.Positive(t, wait)

					// Up to 3 tries: a loaded machine can hold one request past
					// the slack; a library that waits past MaxWait does every time.
					var took300 time.Duration
					for try := 1; try <= 3; try++ {
						start := time.Now()
						_, err = next(context.Background(), srv.Client(), 300*time.Millisecond)
						if took300 = time.Since(start); took300 < 300*time.Millisecond+deadlineSlack {
							break
						}
						t.Logf("try %d with MaxWait 300ms took %v", try, took300)
					}
					require.Less(t, took300, 300*time.Millisecond+deadlineSlack, "with MaxWait 300ms and no deadline, the best of 3 tries")
					require.ErrorIs(t, err, dynamoseq.ErrThrottled)
					require.NotErrorIs(t, err, context.DeadlineExceeded)
					_, retry = dynamoseq.RetryAfter(err)
					require.True(t, retry, "RetryAfter(%v)", err)
					t.Logf("at the deadline: %v", err)
				})
			}
		})
	}
}

// starvedNext returns a call that appends to (or takes the next number of)
// a name of its own in the strategy's table, through client, with maxWait
// as its Retry.MaxWait (0 for the default); the call returns the number.
func starvedNext(t *testing.T, strategy, sortKeyTable, counterTable string) func(ctx context.Context, client *dynamodb.Client, maxWait time.Duration) (int64, error) {
	t.Helper()
	noTx := strings.HasSuffix(strategy, "/NoTransactions")
	name := strings.ReplaceAll(strategy, "/", "-")
	return func(ctx context.Context, client *dynamodb.Client, maxWait time.Duration) (int64, error) {
		retry := func(r *dynamoseq.Retry) { r.MaxWait = maxWait }
		switch strings.TrimSuffix(strategy, "/NoTransactions") {
		case "SortKey":
			s, err := dynamoseq.NewSortKey(client, sortKeyTable, func(o *dynamoseq.SortKeyOptions) { retry(&o.Retry); o.NoTransactions = noTx })
			require.NoError(t, err)
			return s.Next(ctx, name)
		case "Latest":
			l, err := dynamoseq.NewLatest(client, sortKeyTable, func(o *dynamoseq.LatestOptions) { retry(&o.Retry); o.NoTransactions = noTx })
			require.NoError(t, err)
			return l.Next(ctx, name)
		}
		c, err := dynamoseq.NewCounter(client, counterTable, func(o *dynamoseq.CounterOptions) { retry(&o.Retry) })
		require.NoError(t, err)
		return c.Next(ctx, name)
	}
}

// TestModelReadsThrottled: reads that DynamoDB keeps throttling (the
// partition admits one read and then none for about a hundred seconds)
// are waited out until the caller's deadline: SortKey.Last and an Append
// whose writer must read the last number first return ErrThrottled with
// context.DeadlineExceeded, and nothing is stored.
func TestModelReadsThrottled(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{ReadUnits: 0.01, NoLatency: true}))
	table := srv.NewTable(t, dynamoseq.SortKeyTable("starved"))
	s, err := dynamoseq.NewSortKey(srv.Client(), table)
	require.NoError(t, err)
	_, err = s.Next(context.Background(), "r")
	require.NoError(t, err)
	// The reads of the empty collection may have cost nothing; a read of
	// the item takes what the bucket holds, and the next ones wait. Each
	// try is a SortKey of its own (a cold one: it knows nothing of "r"),
	// whose deadline passes as it waits out a throttle (passAtThrottle);
	// a Last whose read the bucket admitted succeeds: then try again (a
	// Next that succeeded would have stored an item, checked below).
	var cold *dynamoseq.SortKey
	untilThrottled := func(call func(ctx context.Context, s *dynamoseq.SortKey) error) (err error) {
		for range 3 {
			rt, ctx := newPassAtThrottle()
			cold, err = dynamoseq.NewSortKey(srv.Client(dynamoseqtest.WithTransport(rt)), table)
			require.NoError(t, err)
			if err = call(ctx, cold); err != nil {
				break
			}
		}
		return err
	}
	err = untilThrottled(func(ctx context.Context, s *dynamoseq.SortKey) error { _, err := s.Last(ctx, "r"); return err })
	require.ErrorIs(t, err, dynamoseq.ErrThrottled)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	err = untilThrottled(func(ctx context.Context, s *dynamoseq.SortKey) error { _, err := s.Next(ctx, "r"); return err })
	require.ErrorIs(t, err, dynamoseq.ErrThrottled)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Len(t, collection(t, dynamoseqtest.Start(t).Client(), table, "r"), 1, "nothing stored by the throttled call (read past the model)")
	require.Positive(t, cold.Figures().Throttled, "the cold writer's throttled Query")
}

// TestRetryAfter: the errors a request handler maps to "retry later",
// and those it must not.
func TestRetryAfter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err   error
		retry bool
	}{
		{nil, false},
		{&dynamoseq.Error{Err: dynamoseq.ErrThrottled}, true},
		{&dynamoseq.Error{Err: dynamoseq.ErrContention}, true},
		{&dynamoseq.Error{Err: context.DeadlineExceeded}, true},
		{&dynamoseq.Error{Err: errors.Join(dynamoseq.ErrUnknownOutcome, context.DeadlineExceeded), Number: 3}, false},
		{&dynamoseq.Error{Err: dynamoseq.ErrInvalidArgument}, false},
		{&dynamoseq.Error{Err: dynamoseq.ErrTableNotFound}, false},
		{&dynamoseq.Error{Err: dynamoseq.ErrExhausted}, false},
		{&dynamoseq.Error{Err: errors.New("something else")}, false},
		{&dynamoseq.Error{Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}}, true},
		{&dynamoseq.Error{Err: &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset")}}, false},
	}
	for _, tt := range tests {
		wait, retry := dynamoseq.RetryAfter(tt.err)
		if retry != tt.retry || (retry && wait <= 0) {
			t.Errorf("RetryAfter(%v) = %v, %v; want %v and a wait", tt.err, wait, retry, tt.retry)
		}
	}
}
