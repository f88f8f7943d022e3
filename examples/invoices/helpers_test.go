package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

func TestMain(m *testing.M) { dynamoseqtest.Main(m) }

// syncBuffer is a bytes.Buffer that a server writes while a test reads it.
type syncBuffer struct {
	mu sync.Mutex // protects b
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// clock is a settable clock for Config.Now.
type clock struct {
	mu sync.Mutex // protects t
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// fixture is a Service behind an httptest.Server, in tables of its own.
type fixture struct {
	svc      *Service
	http     *httptest.Server
	audit    *syncBuffer
	errors   *syncBuffer // the handlers' log of failed requests
	invoices string      // the invoices' table

	// faulty says that the client loses answers, so that Close may fail to
	// hand back the audit numbers: they are lost then, as after a crash.
	faulty bool
}

// newFixture serves a Service on client's tables of srv, with the clock
// now, and closes both when the test ends.
func newFixture(t *testing.T, srv *dynamoseqtest.Server, client dynamoseq.Client, now func() time.Time) *fixture {
	t.Helper()
	f := &fixture{audit: &syncBuffer{}, errors: &syncBuffer{}, invoices: srv.NewTable(t, dynamoseq.SortKeyTable("invoices"))}
	svc, err := NewService(Config{
		Client: client, Invoices: f.invoices, Counters: srv.NewTable(t, dynamoseq.CounterTable("counters")),
		Since: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Audit: f.audit, Now: now,
	})
	require.NoError(t, err)
	f.svc = svc
	f.http = httptest.NewServer(svc.Handler(slog.New(slog.NewTextHandler(f.errors, nil))))
	t.Cleanup(func() {
		f.http.Close()
		if t.Failed() {
			t.Logf("the handlers' log:\n%s", f.errors)
		}
		if err := svc.Close(); f.faulty {
			t.Logf("Service.Close: %v", err)
		} else {
			require.NoError(t, err, "Service.Close")
		}
	})
	return f
}

// answer is an HTTP answer, its body read.
type answer struct {
	code   int
	header http.Header
	body   string
}

// do sends a request to the fixture's server; key, when not "", is the
// Idempotency-Key.
func (f *fixture) do(t *testing.T, method, path, key, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, f.http.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := f.http.Client().Do(req)
	require.NoError(t, err, "%s %s", method, path)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{code: resp.StatusCode, header: resp.Header, body: string(b)}
}

// decode reads a JSON body into v, failing t if it cannot.
func decode[T any](t *testing.T, a answer) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal([]byte(a.body), &v), "body %q", a.body)
	return v
}

// invoiceBody is a request body for an invoice to customer.
func invoiceBody(customer string) string {
	return `{"customer":"` + customer + `","currency":"EUR","lines":[{"description":"Widgets","quantity":3,"unit_cents":1250}]}`
}

// auditEvent is a line of the audit log.
type auditEvent struct {
	Msg     string `json:"msg"`
	Tenant  string `json:"tenant"`
	Invoice string `json:"invoice"`
	Event   int64  `json:"event"`
	Error   string `json:"error"`
}

// auditEvents reads the audit log's events of invoices created or
// replayed.
func auditEvents(t *testing.T, log string) []auditEvent {
	t.Helper()
	var events []auditEvent
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		var e auditEvent
		require.NoError(t, json.Unmarshal([]byte(line), &e), "audit line %q", line)
		if strings.HasPrefix(e.Msg, "invoice ") {
			events = append(events, e)
		}
	}
	return events
}
