package dynamoseqtest_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// rig is a service model on a clock the test moves (SetModelClock), no
// latency, a table of its own and a client that answers the first
// refusal: what the self-tests of the model's capacity shapes measure on.
type rig struct {
	t     *testing.T
	srv   *dynamoseqtest.Server
	clock *modelClock
	c     *dynamodb.Client
	table string
}

func newRig(t *testing.T, svc dynamoseqtest.Service, def *dynamodb.CreateTableInput) *rig {
	t.Helper()
	svc.NoLatency = true
	srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(svc))
	clock := &modelClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	dynamoseqtest.SetModelClock(srv, clock.Now)
	if def == nil {
		def = table()
	}
	c := srv.Client(noRetries, func(o *dynamodb.Options) { o.HTTPClient = bufferedBodies{&http.Client{}} })
	return &rig{t: t, srv: srv, clock: clock, c: c, table: srv.NewTable(t, def)}
}

// bufferedBodies sends requests with their bodies read into memory first.
// The SDK closes a request's body as soon as the answer's header has
// come; an answer that comes before net/http has made its last read of
// the body (a refusal without latency, on a busy machine) then makes
// net/http close the connection under the answer ("use of closed network
// connection"). A body of its own is never closed under net/http.
type bufferedBodies struct{ c *http.Client }

func (b bufferedBodies) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.Body != http.NoBody {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	return b.c.Do(r)
}

// flood puts items of size bytes on each key in turn, each until its
// first throttle (the clock stands still meanwhile), and returns the
// write units admitted and the last throttle. Any other error fails the
// test.
func (r *rig) flood(size int, keys ...string) (units float64, last error) {
	r.t.Helper()
	before := r.srv.ModelStats().WriteUnits
	for _, k := range keys {
		for range 100000 {
			err := putSized(context.Background(), r.c, r.table, k, size)
			if err == nil {
				continue
			}
			require.True(r.t, throttled(err), "a put of the flood on %q: got %v, want stored or throttled", k, err)
			last = err
			break
		}
	}
	return r.srv.ModelStats().WriteUnits - before, last
}

// run moves the clock on by step, floods the keys with 1 KB puts (1 write
// unit each), and again, for d, and returns the write units admitted.
func (r *rig) run(d, step time.Duration, keys ...string) float64 {
	r.t.Helper()
	var units float64
	for range d / step {
		r.clock.Advance(step)
		u, _ := r.flood(1000, keys...)
		units += u
	}
	return units
}

// reason returns the reason of a throttle's first ThrottlingReason, in
// either form, or "".
func reason(err error) string {
	var od *types.ThrottlingException
	var pv *types.ProvisionedThroughputExceededException
	var rs []types.ThrottlingReason
	switch {
	case errors.As(err, &od):
		rs = od.ThrottlingReasons
	case errors.As(err, &pv):
		rs = pv.ThrottlingReasons
	}
	if len(rs) == 0 {
		return ""
	}
	return aws.ToString(rs[0].Reason)
}
