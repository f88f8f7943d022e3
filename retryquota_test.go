package dynamoseq_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// firstGetFails is an http.RoundTripper that fails the first attempt of
// every GetItem as a broken connection, so that the SDK's retryer must
// spend a token of its retry quota on the second.
type firstGetFails struct{ base http.RoundTripper }

func (f firstGetFails) RoundTrip(req *http.Request) (*http.Response, error) {
	if strings.HasSuffix(req.Header.Get("X-Amz-Target"), ".GetItem") && strings.HasPrefix(req.Header.Get("Amz-Sdk-Request"), "attempt=1;") {
		return nil, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	}
	return f.base.RoundTrip(req)
}

// TestModelRetryQuota: while the library floods throttled names, an
// unrelated GetItem on the same client, which needs one retry, still gets
// it: the library's throttles do not spend the client's retry quota (the
// SDK's standard retryer, in its legacy mode and with
// AWS_NEW_RETRIES_2026, and a user's adaptive retryer). The same flood of
// raw PutItems, which the SDK retries, exhausts the quota, and the GetItem
// fails: the check can fail (but for the adaptive retryer, whose client-side
// rate limiter holds a raw flood back before its quota runs out).
//
// It does not run in parallel: AWS_NEW_RETRIES_2026 is read from the
// process's environment, when the retryer is made and at each retry.
func TestModelRetryQuota(t *testing.T) {
	for _, mode := range []string{"legacy", "AWS_NEW_RETRIES_2026", "adaptive"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "AWS_NEW_RETRIES_2026" {
				t.Setenv("AWS_NEW_RETRIES_2026", "true")
			}
			srv := starved(t, dynamoseqtest.ThrottleOnDemand)
			table := srv.NewTable(t, dynamoseq.SortKeyTable("quota"))
			other := srv.NewTable(t, dynamoseq.CounterTable("other"))
			newClient := func() *dynamodb.Client {
				// The standard retryer, with its quota, without its
				// backoff, so that a flood spends the quota in a moment.
				noBackoff := func(so *retry.StandardOptions) {
					so.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
				}
				return srv.Client(dynamoseqtest.WithTransport(firstGetFails{http.DefaultTransport}), func(o *dynamodb.Options) {
					o.Retryer = retry.NewStandard(noBackoff)
					if mode == "adaptive" {
						o.Retryer = retry.NewAdaptiveMode(func(ao *retry.AdaptiveModeOptions) {
							ao.StandardOptions = append(ao.StandardOptions, noBackoff)
						})
					}
				})
			}
			get := func(client *dynamodb.Client) error {
				_, err := client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(other),
					Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "x"}}})
				return err
			}

			// A Counter, each goroutine on a name of its own, so that
			// many throttled requests are sent (the callers of one name
			// share its updates, and its waits).
			client := newClient()
			c, err := dynamoseq.NewCounter(client, other)
			require.NoError(t, err)
			// As many throttles as would spend the whole quota, had the
			// library's retries been paid from it.
			enough := int64(retry.DefaultRetryRateTokens / retry.DefaultThrottlingRetryCost)
			if mode == "adaptive" {
				// The adaptive retryer's own rate limiter holds back the
				// requests of a throttled client (the library's too): few
				// reach the model.
				enough = 0
			}
			checks, took := flood(t, func(ctx context.Context, g int) error {
				_, err := c.Next(ctx, "hot-"+strconv.Itoa(g))
				return err
			}, func() error { return get(client) }, func() bool { return c.Figures().Throttled > enough })
			require.Greater(t, c.Figures().Throttled, enough, "throttled requests of the library when the flood stopped: the test proves little with fewer")
			t.Logf("through the library: %d throttled requests in %v; each of %d GetItems got its retry", c.Figures().Throttled, took.Round(time.Millisecond), checks)

			if mode == "adaptive" {
				// Its rate limiter also holds back a raw flood before the
				// quota runs out: there is no failing control to run.
				return
			}
			raw := newClient()
			exceeded := false
			checks, took = flood(t, func(ctx context.Context, g int) error {
				_, err := raw.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
					"pk": &types.AttributeValueMemberS{Value: "raw"}, "sk": &types.AttributeValueMemberN{Value: "1"}}})
				return err
			}, func() error {
				err := get(raw)
				exceeded = exceeded || (err != nil && strings.Contains(err.Error(), "retry quota exceeded"))
				return nil
			}, func() bool { return exceeded })
			require.True(t, exceeded, "a GetItem that finds the retry quota spent by a raw flood, as the check needs to be able to fail; none did up to the test's deadline")
			t.Logf("a raw flood: GetItem %d found the retry quota spent after %v", checks, took.Round(time.Millisecond))
		})
	}
}

// flood calls call from 16 goroutines, with a short deadline each (their
// errors are expected), until done holds; meanwhile it calls check every
// 50ms, which fails t on an error, and once more after done held, with the
// flood stopped (what it spent of the retry quota stays spent; the adaptive
// retryer's rate limiter held that call back 5-45 s behind the flood). It
// fails t when done does not hold before the test's deadline (giveUpAt).
// It returns how many checks it made and how long it ran.
func flood(t *testing.T, call func(ctx context.Context, g int) error, check func() error, done func() bool) (checks int, took time.Duration) {
	t.Helper()
	start := time.Now()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
				_ = call(ctx, g)
				cancel()
			}
		}()
	}
	stopFlood := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer stopFlood()
	end := giveUpAt(t)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		met := done()
		if met {
			stopFlood()
		}
		checks++
		if err := check(); err != nil {
			t.Errorf("GetItem during the flood: %v", err)
			return checks, time.Since(start)
		}
		if met {
			return checks, time.Since(start)
		}
		if !end.IsZero() && time.Now().After(end) {
			t.Errorf("the flood ran until %v, near the test's deadline, and what it waited for never came", end.Format(time.TimeOnly))
			return checks, time.Since(start)
		}
		<-tick.C
	}
}
