package dynamoseqtest

import (
	"context"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Faults says which answers a FaultTransport loses: of the writes only
// (PutItem, UpdateItem, DeleteItem, TransactWriteItems, BatchWriteItem).
// The zero Faults loses none.
type Faults struct {
	// LoseAnswers is the share, from 0 to 1, of requests that are sent to
	// DynamoDB, applied there, and whose answer is then dropped and
	// replaced by a connection reset. The SDK's retryer sends such a
	// request again, as it does when a real connection breaks.
	LoseAnswers float64

	// StallAnswers is the share of requests that are sent and applied and
	// whose answer is held back until the request's context ends (the
	// caller's deadline passes while its write was applied), or until
	// StallFor has passed, when it fails as a read timeout (which the
	// SDK's retryer resends).
	StallAnswers float64

	// StallFor bounds how long a stalled answer is held. Default 2s.
	StallFor time.Duration

	// Seed seeds the random choice of the requests that fail, so that a
	// run can be repeated (as far as the order of concurrent requests
	// allows).
	Seed uint64
}

var writeOperations = []string{"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"}

// FaultTransport is an http.RoundTripper for a DynamoDB client that loses
// answers as Faults says, below the SDK, so that the SDK's own retryer
// resends and the code under test sees what a broken network shows it. It
// counts what it did. It is safe for concurrent use.
type FaultTransport struct {
	base   http.RoundTripper
	faults Faults
	ops    map[string]bool

	mu  sync.Mutex // protects rnd
	rnd *rand.Rand

	unreachable atomic.Bool
	counts      struct {
		requests, forwarded, lost, stalled, refused atomic.Int64
	}
}

// faultCounts are the cumulative figures of a FaultTransport.
type faultCounts struct {
	Requests    int64 // requests the client made, resends included
	Forwarded   int64 // requests that reached DynamoDB
	LostAnswers int64 // answers replaced by a connection reset
	Stalled     int64 // answers held back
	Refused     int64 // requests refused while unreachable, never sent
}

// NewFaultTransport returns a FaultTransport that sends requests through
// http.DefaultTransport.
func NewFaultTransport(f Faults) *FaultTransport {
	if f.StallFor <= 0 {
		f.StallFor = 2 * time.Second
	}
	t := &FaultTransport{
		base:   http.DefaultTransport,
		faults: f,
		ops:    map[string]bool{},
		rnd:    rand.New(rand.NewPCG(f.Seed, 0x5eed)),
	}
	for _, op := range writeOperations {
		t.ops[op] = true
	}
	return t
}

// SetUnreachable makes every later request fail as a refused connection,
// without sending it (on is true), or go through again (on is false): a
// network partition, or a server that is down, for as long as it lasts.
func (t *FaultTransport) SetUnreachable(on bool) { t.unreachable.Store(on) }

// allCounts returns every figure of the transport so far.
func (t *FaultTransport) allCounts() faultCounts {
	c := &t.counts
	return faultCounts{
		Requests:    c.requests.Load(),
		Forwarded:   c.forwarded.Load(),
		LostAnswers: c.lost.Load(),
		Stalled:     c.stalled.Load(),
		Refused:     c.refused.Load(),
	}
}

// RoundTrip implements http.RoundTripper.
func (t *FaultTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.counts.requests.Add(1)
	if t.unreachable.Load() {
		t.counts.refused.Add(1)
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	}
	// The target header reads "DynamoDB_20120810.PutItem".
	target := req.Header.Get("X-Amz-Target")
	op := target[strings.LastIndexByte(target, '.')+1:]
	lose, stall := t.draw(op)
	resp, err := t.base.RoundTrip(req)
	t.counts.forwarded.Add(1)
	if err != nil || (!lose && !stall) {
		return resp, err
	}
	// The request was applied; now lose its answer.
	resp.Body.Close()
	if lose {
		t.counts.lost.Add(1)
		return nil, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	}
	t.counts.stalled.Add(1)
	return t.stall(req.Context())
}

// draw decides whether the answer to a request of operation op is lost or
// stalled.
func (t *FaultTransport) draw(op string) (lose, stall bool) {
	if !t.ops[op] {
		return false, false
	}
	t.mu.Lock()
	r := t.rnd.Float64()
	t.mu.Unlock()
	return r < t.faults.LoseAnswers, r >= t.faults.LoseAnswers && r < t.faults.LoseAnswers+t.faults.StallAnswers
}

// stall holds a lost answer until ctx ends, and returns ctx's error as a
// client timeout would, or until StallFor has passed, and returns a read
// timeout.
func (t *FaultTransport) stall(ctx context.Context) (*http.Response, error) {
	timer := time.NewTimer(t.faults.StallFor)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		return nil, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ETIMEDOUT)}
	}
}

// WithTransport makes a client send its requests through rt, such as a
// FaultTransport:
//
//	ft := dynamoseqtest.NewFaultTransport(dynamoseqtest.Faults{LoseAnswers: 0.2})
//	client := srv.Client(dynamoseqtest.WithTransport(ft))
func WithTransport(rt http.RoundTripper) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.HTTPClient = &http.Client{Transport: rt}
	}
}
