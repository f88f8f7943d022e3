package dynamoseqtest

import (
	"bytes"
	"context"
	"encoding/json"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// model is the service model: an HTTP server on loopback that speaks
// DynamoDB's JSON protocol, applies the Service's rules to the requests
// it models and forwards them (and every other request, unchanged) to
// DynamoDB Local over kept-alive connections. It is safe for concurrent
// use; close stops it and waits for the requests it is answering.
type model struct {
	rules    rules
	upstream string // DynamoDB Local's endpoint
	srv      *httptest.Server
	fwd      *http.Transport
	ddb      *dynamodb.Client // to DynamoDB Local, for DescribeTable
	ctx      context.Context  // ends at close
	stop     context.CancelFunc
	once     sync.Once

	tablesMu sync.Mutex // protects tables
	tables   map[string]*tableInfo

	mu     sync.Mutex // protects the fields below
	rnd    *rand.Rand // latency draws
	crnd   *rand.Rand // conflict draws (Service.Conflicts)
	parts  map[partition]*partState
	tabs   map[string]*tableState
	holds  map[string]*hold
	tokens map[string]*tokenState
	ops    map[string]*opStats
	// pruneAt is the number of tokens at which the expired ones are
	// dropped next.
	pruneAt int
	// origin is when the model applied its rules to its first request,
	// on its clock: the capacity schedule's zero.
	origin time.Time
	// now is the clock that capacity refills and tokens' windows follow:
	// time.Now, or a test's (SetModelClock). Answers' latency follows the real
	// clock.
	now func() time.Time
}

// partState is a partition key value's capacity and figures.
type partState struct {
	write, read bucket
	stats       partStats
	heatState
}

// tokenState is what the model knows of a ClientRequestToken.
type tokenState struct {
	inFlight bool
	ok       bool      // the transaction succeeded
	done     time.Time // when it was answered
}

// tableInfo is what the model needs of a table: its key and billing mode.
type tableInfo struct {
	name, pk, sk, arn string
	onDemand          bool
}

func newModel(upstream string, svc Service) (*model, error) {
	r, err := svc.rules()
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	m := &model{
		rules:    r,
		upstream: strings.TrimRight(upstream, "/"),
		fwd: &http.Transport{
			MaxIdleConns:        256,
			MaxIdleConnsPerHost: 256,
			IdleConnTimeout:     90 * time.Second,
		},
		ctx:     ctx,
		stop:    stop,
		tables:  map[string]*tableInfo{},
		now:     time.Now,
		rnd:     rand.New(rand.NewPCG(r.seed, 0x5e41ce)),
		crnd:    rand.New(rand.NewPCG(r.seed, 0xc0f11c7)),
		parts:   map[partition]*partState{},
		tabs:    map[string]*tableState{},
		holds:   map[string]*hold{},
		tokens:  map[string]*tokenState{},
		ops:     map[string]*opStats{},
		pruneAt: 4096,
	}
	m.ddb = dynamodb.New(dynamodb.Options{
		BaseEndpoint:                    aws.String(m.upstream),
		Region:                          "us-east-1",
		Credentials:                     credentials.NewStaticCredentialsProvider("dynamoseq", "dynamoseq", ""),
		DisableValidateResponseChecksum: true,
		HTTPClient:                      &http.Client{Transport: m.fwd},
	})
	m.srv = httptest.NewServer(m)
	return m, nil
}

// close stops the model: it ends the waits of the requests in flight,
// closes the listener and waits for their handlers. Safe to call twice.
func (m *model) close() {
	m.once.Do(func() {
		m.stop()
		m.srv.Close()
		m.fwd.CloseIdleConnections()
	})
}

// ServeHTTP answers one request of DynamoDB's JSON protocol, whose
// operation is named by the header "X-Amz-Target:
// DynamoDB_20120810.PutItem".
func (m *model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	target := r.Header.Get("X-Amz-Target")
	op := target[strings.LastIndexByte(target, '.')+1:]
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.op(op).Requests++
	m.mu.Unlock()
	if modelled(op) {
		if req, err := m.parse(op, body); err == nil {
			m.serve(w, r, req, arrived)
			return
		}
	}
	resp, answer, err := m.forward(r, body)
	if err != nil {
		m.writeUnavailable(w, err)
		return
	}
	if op == "DeleteTable" || op == "CreateTable" || op == "UpdateTable" {
		m.forget(body)
	}
	writeAnswer(w, resp.StatusCode, resp.Header, answer)
}

// serve answers a modelled request: admitted by the rules or refused,
// forwarded, charged, and answered once its latency has passed since it
// arrived (on the real clock, whatever m.now reads). The items a request
// holds stay held until then.
func (m *model) serve(w http.ResponseWriter, r *http.Request, req *request, arrived time.Time) {
	a := m.admit(req)
	if a.refusal != nil {
		m.wait(arrived.Add(a.latency))
		writeAnswer(w, http.StatusBadRequest, jsonHeader(), a.refusal)
		return
	}
	if a.prepare > 0 {
		// The narrow conflict model: a transaction is carried out once
		// prepared, unless a single write got to one of its items first.
		m.wait(arrived.Add(a.prepare))
		if body := m.doomedBody(req, a); body != nil {
			m.wait(arrived.Add(a.latency))
			m.release(req, a)
			writeAnswer(w, http.StatusBadRequest, jsonHeader(), body)
			return
		}
	}
	resp, body, err := m.forward(r, req.forwardBody())
	if err != nil {
		m.settle(req, a, 0, nil)
		m.release(req, a)
		m.writeUnavailable(w, err)
		return
	}
	answer := m.settle(req, a, resp.StatusCode, body)
	m.overrun(req.op, arrived.Add(a.latency))
	m.wait(arrived.Add(a.latency))
	m.release(req, a)
	writeAnswer(w, resp.StatusCode, resp.Header, answer)
}

// forward sends a request to DynamoDB Local and reads its answer. It is
// not ended by the caller going away: the service, too, applies a request
// whose caller stopped waiting.
func (m *model) forward(r *http.Request, body []byte) (*http.Response, []byte, error) {
	out, err := http.NewRequestWithContext(m.ctx, http.MethodPost, m.upstream+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	out.Header = r.Header.Clone()
	out.Header.Del("Content-Length")
	out.Header.Set("Accept-Encoding", "identity")
	resp, err := m.fwd.RoundTrip(out)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

// overrun counts, for op, how long after due DynamoDB Local's answer came
// (see ModelStats.Overrun).
func (m *model) overrun(op string, due time.Time) {
	if late := time.Since(due); late > 0 && !m.rules.latencyOff {
		m.mu.Lock()
		m.op(op).Overrun += late
		m.mu.Unlock()
	}
}

// wait returns when until has come, or when the model closes.
func (m *model) wait(until time.Time) {
	d := time.Until(until)
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-m.ctx.Done():
	}
}

func (m *model) writeUnavailable(w http.ResponseWriter, err error) {
	body, _ := json.Marshal(map[string]string{
		"__type":  errPrefix + "InternalServerError",
		"message": "dynamoseqtest: the service model could not reach DynamoDB Local: " + err.Error(),
	})
	writeAnswer(w, http.StatusInternalServerError, jsonHeader(), body)
}

// writeAnswer writes an answer with its length and the CRC32 checksum the
// SDK checks unless DisableValidateResponseChecksum is set.
func writeAnswer(w http.ResponseWriter, status int, header http.Header, body []byte) {
	h := w.Header()
	for k, v := range header {
		if k != "Content-Length" && k != "X-Amz-Crc32" {
			h[k] = v
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func jsonHeader() http.Header {
	return http.Header{"Content-Type": {"application/x-amz-json-1.0"}}
}

// table describes a table once and keeps what the model needs of it.
func (m *model) table(name string) (*tableInfo, error) {
	m.tablesMu.Lock()
	t, ok := m.tables[name]
	m.tablesMu.Unlock()
	if ok {
		return t, nil
	}
	ctx, cancel := context.WithTimeout(m.ctx, 30*time.Second)
	defer cancel()
	out, err := m.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		return nil, err
	}
	t = &tableInfo{name: name, arn: aws.ToString(out.Table.TableArn)}
	for _, k := range out.Table.KeySchema {
		if k.KeyType == types.KeyTypeHash {
			t.pk = aws.ToString(k.AttributeName)
		} else {
			t.sk = aws.ToString(k.AttributeName)
		}
	}
	// DynamoDB Local may leave BillingModeSummary out; an on-demand table
	// has no provisioned write capacity.
	if bm := out.Table.BillingModeSummary; bm != nil {
		t.onDemand = bm.BillingMode == types.BillingModePayPerRequest
	} else if pt := out.Table.ProvisionedThroughput; pt != nil {
		t.onDemand = aws.ToInt64(pt.WriteCapacityUnits) == 0
	}
	m.tablesMu.Lock()
	m.tables[name] = t
	m.tablesMu.Unlock()
	return t, nil
}

// forget drops what the model knows of the table a CreateTable,
// UpdateTable or DeleteTable names.
func (m *model) forget(body []byte) {
	var in struct{ TableName string }
	if json.Unmarshal(body, &in) == nil {
		m.tablesMu.Lock()
		delete(m.tables, in.TableName)
		m.tablesMu.Unlock()
		m.mu.Lock()
		delete(m.tabs, in.TableName)
		m.mu.Unlock()
	}
}

// op returns the figures of an operation. m.mu must be held.
func (m *model) op(name string) *opStats {
	s := m.ops[name]
	if s == nil {
		s = &opStats{}
		m.ops[name] = s
	}
	return s
}

// part returns a partition key value's state. m.mu must be held.
func (m *model) part(t *target) *partState {
	k := partition{table: t.table.name, key: t.part}
	p := m.parts[k]
	if p == nil {
		p = &partState{}
		m.parts[k] = p
	}
	return p
}

// stats returns a copy of the model's figures.
func (m *model) stats() ModelStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := ModelStats{
		ops:   make(map[string]opStats, len(m.ops)),
		parts: make(map[partition]partStats, len(m.parts)),
	}
	for k, v := range m.ops {
		s.ops[k] = *v
		s.add(*v)
	}
	for k, v := range m.parts {
		s.parts[k] = v.stats
	}
	return s
}
