package dynamoseq_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/answer"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// slowThrottle is a transport to DynamoDB Local that adds latency to each
// request while slow is set and, while refusing is set, answers every
// PutItem as DynamoDB does when it refuses a write for want of capacity
// (at once, nothing written).
type slowThrottle struct {
	latency  time.Duration
	slow     atomic.Bool
	refusing atomic.Bool
	puts     atomic.Int64 // PutItems passed on to DynamoDB Local
}

func (s *slowThrottle) RoundTrip(req *http.Request) (*http.Response, error) {
	put := strings.HasSuffix(req.Header.Get("X-Amz-Target"), ".PutItem")
	if put && s.refusing.Load() {
		return answer.Status(400, "ProvisionedThroughputExceededException")(req)
	}
	if s.slow.Load() {
		time.Sleep(s.latency) // a slow network, the way there
	}
	if put {
		s.puts.Add(1)
	}
	return http.DefaultTransport.RoundTrip(req)
}

// TestSortKeyShortDeadlinesAfterThrottle: a name whose round trips were
// slow for a while, and whose last write DynamoDB then refused for want of
// capacity, still writes, once DynamoDB admits writes again and answers
// fast, for callers whose deadline is shorter than the round trips it
// measured: the calls held back while the name's writes are refused (see
// pacing.late) must not keep it refused for ever, since nothing sent, the
// round trips it measured and the refusal it saw stay as they were.
func TestSortKeyShortDeadlinesAfterThrottle(t *testing.T) {
	t.Parallel()
	for _, noTx := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoTransactions=%v", noTx), func(t *testing.T) {
			t.Parallel()
			shortDeadlinesAfterThrottle(t, noTx)
		})
	}
}

func shortDeadlinesAfterThrottle(t *testing.T, noTx bool) {
	const latency = 300 * time.Millisecond
	srv := dynamoseqtest.Start(t)
	table := srv.NewTable(t, dynamoseq.SortKeyTable("late"))
	link := &slowThrottle{latency: latency}
	s, err := dynamoseq.NewSortKey(srv.Client(dynamoseqtest.WithTransport(link), dbtest.FastRetries()), table, func(o *dynamoseq.SortKeyOptions) { o.NoTransactions = noTx })
	require.NoError(t, err)

	link.slow.Store(true)
	for range 2 {
		_, err = s.Next(context.Background(), "n") // round trips of 300 ms
		require.NoError(t, err)
	}
	link.slow.Store(false)
	link.refusing.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), latency)
	_, err = s.Next(ctx, "n")
	cancel()
	require.Error(t, err, "a call while every write is refused")
	link.refusing.Store(false)

	// The waits after the refusal and the pace after the first write
	// admitted since (the transactional path's) end well within maxCalls
	// calls of a deadline each; held, no call is ever sent.
	puts := link.puts.Load()
	const maxCalls, deadline = 40, latency / 3
	var errs []error
	for len(errs) < maxCalls && link.puts.Load() == puts {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		_, err := s.Next(ctx, "n")
		cancel()
		errs = append(errs, err)
	}
	throttled := 0
	for _, err := range errs {
		if errors.Is(err, dynamoseq.ErrThrottled) {
			throttled++
		}
	}
	sent := link.puts.Load() - puts
	t.Logf("once DynamoDB admitted writes again and answered fast: %d calls with a deadline of %v until a write was sent (%d sent), %d of them throttled; the last error %v", len(errs), deadline, sent, throttled, errs[len(errs)-1])
	require.Positive(t, sent, "%d calls with a deadline of %v once DynamoDB admitted writes again: writes sent %d, want some (%d callers told ErrThrottled)", len(errs), deadline, sent, throttled)
}
