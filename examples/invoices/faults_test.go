package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// TestConcurrentPostsLosingAnswers sends many POSTs at once to the service
// on the service model, through a transport that loses 30% of DynamoDB's
// answers to writes after they were applied (the SDK resends). Each
// request is sent twice at once, as a client that retries too early does,
// and the answer to the first POST of each key is lost after the service
// handled it, as at a load balancer's timeout: the clients send again
// with the same Idempotency-Key until they get an invoice. Each key must
// end with one invoice, the same for both senders, and CheckSequence
// checks that each tenant's year is gap-free, that no request is stored
// twice and that every invoice answered is stored with its request.
func TestConcurrentPostsLosingAnswers(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{}))
	ft := dynamoseqtest.NewFaultTransport(dynamoseqtest.Faults{LoseAnswers: 0.3, Seed: 27})
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	lost := &resets{next: ft}
	f := newFixture(t, srv, srv.Client(dynamoseqtest.WithTransport(lost), fastRetries), func() time.Time { return now })
	f.faulty = true
	lossy := &loseFirstAnswer{seen: map[string]bool{}}
	client := &http.Client{Transport: lossy}

	const goroutines, perGoroutine = 16, 10
	tenants := []string{"acme", "globex"}
	var mu sync.Mutex
	told := map[string]map[string]int64{} // tenant -> Idempotency-Key -> number
	codes := map[int]int{}                // status -> answers
	sendings := map[int]int{}             // sends -> requests that took that many
	var wg sync.WaitGroup
	for g := range goroutines {
		for i := range perGoroutine {
			tenant, key := tenants[(g+i)%len(tenants)], fmt.Sprintf("g%02d-%02d", g, i)
			for range 2 { // the request and its twin
				wg.Add(1)
				go func() {
					defer wg.Done()
					code, inv, sent := postUntilAnswered(t, client, f.http.URL+"/tenants/"+tenant+"/invoices", key)
					mu.Lock()
					defer mu.Unlock()
					codes[code]++
					sendings[sent]++
					if told[tenant] == nil {
						told[tenant] = map[string]int64{}
					}
					n := number(t, inv.ID)
					if was, ok := told[tenant][key]; ok {
						assert.Equal(t, was, n, "%s, key %s: the two senders were told different invoices", tenant, key)
					}
					told[tenant][key] = n
				}()
			}
		}
	}
	wg.Wait()
	t.Logf("answers: %v; sends per request: %v; HTTP answers lost: %d; DynamoDB answers lost: %d",
		codes, sendings, lossy.lost.Load(), lost.n.Load())
	require.Positive(t, lost.n.Load(), "DynamoDB answers the transport lost")
	require.Equal(t, int64(goroutines*perGoroutine), lossy.lost.Load(), "HTTP answers lost, one per key")
	assert.Equal(t, 2*goroutines*perGoroutine, codes[http.StatusCreated]+codes[http.StatusOK], "invoices answered (%v)", codes)

	check, err := dynamoseq.NewSortKey(srv.Client(), f.invoices)
	require.NoError(t, err)
	keys := 0
	for _, tenant := range tenants {
		keys += len(told[tenant])
		dynamoseqtest.CheckSequence(t, check, tenant+"#2026", "request_key", told[tenant])
	}
	assert.Equal(t, goroutines*perGoroutine, keys, "keys told an invoice")
	checkAudit(t, f.audit.String(), keys)
}

// postUntilAnswered posts an invoice with key until the service answers
// with one (201 or 200), sending again after a lost answer or a 503, as a
// client of the API does, and returns the answer and the number of sends.
// It runs on a goroutine of its own: it reports with t.Errorf.
func postUntilAnswered(t *testing.T, client *http.Client, url, key string) (int, Invoice, int) {
	for sent := 1; sent <= 20; sent++ {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(invoiceBody(key)))
		if err != nil {
			t.Error(err)
			return 0, Invoice{}, sent
		}
		req.Header.Set("Idempotency-Key", key)
		resp, err := client.Do(req)
		if err != nil {
			continue // the answer was lost: send again
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case err != nil, resp.StatusCode == http.StatusServiceUnavailable:
			continue
		case resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK:
			t.Errorf("POST with key %s: %d %s, want 201 or 200", key, resp.StatusCode, b)
			return resp.StatusCode, Invoice{}, sent
		}
		var inv Invoice
		if err := json.Unmarshal(b, &inv); err != nil {
			t.Errorf("POST with key %s: body %q: %v", key, b, err)
		}
		return resp.StatusCode, inv, sent
	}
	t.Errorf("POST with key %s: no invoice after 20 sends", key)
	return 0, Invoice{}, 20
}

// checkAudit checks the audit log of a run whose requests carried keys
// keys: each event numbered has a number of its own, and no invoice was
// created twice.
func checkAudit(t *testing.T, log string, keys int) {
	t.Helper()
	seen := map[int64]string{}
	created := map[string]bool{}
	failed := 0
	for _, e := range auditEvents(t, log) {
		if e.Error != "" {
			// Its Block's lease met lost answers past auditTimeout (a
			// busy machine): the event is logged without a number, which
			// is the service's answer to that, and numbers none twice.
			failed++
			continue
		}
		assert.NotContains(t, seen, e.Event, "audit event %d of %s was also %s", e.Event, e.Invoice, seen[e.Event])
		seen[e.Event] = e.Invoice
		if e.Msg == "invoice created" {
			assert.False(t, created[e.Tenant+" "+e.Invoice], "%s of %s created twice", e.Invoice, e.Tenant)
			created[e.Tenant+" "+e.Invoice] = true
		}
	}
	assert.LessOrEqual(t, len(created), keys, "invoices created")
	assert.NotEmpty(t, seen, "audit events numbered (%d not numbered)", failed)
	t.Logf("audit: %d events numbered, %d not (their lease outlived auditTimeout), %d invoices created (a request whose outcome was unknown leaves its retry a replay)", len(seen), failed, len(created))
}

// loseFirstAnswer is an http.RoundTripper for the clients of the service
// that loses the answer to the first POST of each Idempotency-Key after
// the service handled it, as a timeout at a load balancer does.
type loseFirstAnswer struct {
	mu   sync.Mutex // protects seen
	seen map[string]bool
	lost atomic.Int64
}

func (l *loseFirstAnswer) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || req.Method != http.MethodPost {
		return resp, err
	}
	key := req.Header.Get("Idempotency-Key")
	l.mu.Lock()
	first := !l.seen[key]
	l.seen[key] = true
	l.mu.Unlock()
	if !first {
		return resp, nil
	}
	_, _ = io.Copy(io.Discard, resp.Body) // the service answered in full
	resp.Body.Close()
	l.lost.Add(1)
	return nil, errors.New("the answer was lost on its way")
}

// number returns the number part of an invoice ID (0 when it has none,
// reported with t.Errorf).
func number(t *testing.T, id string) int64 {
	t.Helper()
	_, n, err := idFormat.Parse(id, time.UTC)
	assert.NoError(t, err, "invoice ID %q", id)
	return n
}

// fastRetries keeps the SDK's 3 attempts but backs off at most 20ms, with
// no retry quota: the quota would stop the resends of a test that loses
// many answers on purpose.
func fastRetries(o *dynamodb.Options) {
	o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxBackoff = 20 * time.Millisecond
		so.RateLimiter = ratelimit.None
	})
}

// resets counts the requests that next answered with an error: the
// answers the FaultTransport lost.
type resets struct {
	next http.RoundTripper
	n    atomic.Int64
}

func (r *resets) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		r.n.Add(1)
	}
	return resp, err
}
