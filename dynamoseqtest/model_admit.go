package dynamoseqtest

import (
	"time"
)

// admission is the model's decision on a request, and what it charged.
type admission struct {
	refusal []byte        // the error answer; nil: admitted
	latency time.Duration // when to answer, after arrival
	est     []float64     // units charged per target at admission
	read    bool          // charged to the read buckets
	replay  bool          // a TransactWriteItems replayed by its token
	held    bool          // the targets' items are held until release
	ok      bool          // DynamoDB Local carried the request out
	// credit holds the partitions whose burst credit admitted the request.
	credit map[*partState]bool
	// In the narrow conflict model, a transaction's item keys (table and
	// key), the end of its prepare (on the real clock; until then a single
	// write cancels it), after how long it is carried out, and the
	// indexes of its items that single writes got to first.
	keys     []string
	prepared time.Time
	prepare  time.Duration
	doomed   []int
}

// cost is a target's estimated units, known before the request runs:
// writes from the request's sizes, reads at the least a read costs.
func (req *request) cost(t *target, replay bool) float64 {
	switch req.op {
	case opPut, opUpdate, opDelete:
		return writeUnits(t.size)
	case opGet, opQuery:
		return readUnits(0, req.consistent)
	case opTransactGet:
		return 2 * readUnits(0, true)
	}
	if replay {
		return 2 * readUnits(t.size, true)
	}
	return 2 * writeUnits(t.size)
}

func (req *request) reads() bool {
	return req.op == opGet || req.op == opQuery || req.op == opTransactGet
}

// admit applies the rules to a request at m.now: an in-flight token, then
// the partitions' capacity, then the items held by requests in flight. An
// admitted request is charged its estimate and holds its items; a refused
// one gets its error answer.
func (m *model) admit(req *request) *admission {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if m.origin.IsZero() {
		m.origin = now
	}
	a := &admission{read: req.reads()}
	if req.op == opTransactWrite && req.token != "" {
		st := m.tokens[req.token]
		switch {
		case st != nil && st.inFlight:
			m.op(req.op).InProgress++
			a.refusal, a.latency = inProgressBody(), m.draw(m.rules.read, 0)
			return a
		case st != nil && st.ok && now.Sub(st.done) < m.rules.tokenWindow:
			a.replay, a.read = true, true
		}
	}
	a.est = make([]float64, len(req.targets))
	for i := range req.targets {
		a.est[i] = req.cost(&req.targets[i], a.replay)
	}
	if bad, table := m.throttled(req, a, now); bad != nil {
		a.refusal, a.latency = m.throttleBody(req, a, bad, table), m.draw(m.rules.read, 0)
		return a
	}
	if !a.replay {
		if bad := m.conflicts(req); bad != nil {
			a.refusal, a.latency = m.conflictBody(req, a, bad), m.draw(m.rules.read, 0)
			return a
		}
	}
	m.take(req, a.read, a.est, a.credit)
	m.hold(req, a)
	if req.op == opTransactWrite && req.token != "" {
		m.tokens[req.token] = &tokenState{inFlight: true}
	}
	a.latency = m.latencyOf(req)
	if req.op == opTransactWrite && m.rules.conflicts > 0 {
		a.prepare = a.latency / 2
		a.prepared = time.Now().Add(a.prepare)
	}
	return a
}
