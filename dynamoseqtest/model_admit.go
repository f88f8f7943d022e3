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
	if bad := m.throttled(req, a, now); bad != nil {
		a.refusal, a.latency = m.throttleBody(req, a, bad), m.draw(m.rules.read, 0)
		return a
	}
	if !a.replay {
		if bad := m.conflicts(req); bad != nil {
			a.refusal, a.latency = m.conflictBody(req, a, bad), m.draw(m.rules.read, 0)
			return a
		}
	}
	for i := range req.targets {
		p := m.part(&req.targets[i])
		if a.read {
			p.read.tokens -= a.est[i]
		} else {
			p.write.tokens -= a.est[i]
		}
	}
	m.hold(req, a)
	// A replay leaves its token as it was, settled: settleToken does not
	// change it again, so that marking it in flight here would refuse
	// every later resend with TransactionInProgressException.
	if req.op == opTransactWrite && req.token != "" && !a.replay {
		m.tokens[req.token] = &tokenState{inFlight: true}
	}
	a.latency = m.latencyOf(req)
	return a
}

// throttled returns the indexes of the targets whose partition's bucket
// does not admit the request's cost there, or nil.
func (m *model) throttled(req *request, a *admission, now time.Time) []int {
	cost := map[*partState]float64{}
	for i := range req.targets {
		cost[m.part(&req.targets[i])] += a.est[i]
	}
	for p := range cost {
		p.stats.Requests++
	}
	var bad []int
	for i := range req.targets {
		p := m.part(&req.targets[i])
		b, rate, depth := &p.write, m.rules.writeRate, m.rules.writeDepth
		if a.read {
			b, rate, depth = &p.read, m.rules.readRate, m.rules.readDepth
		}
		b.fill(now, rate, depth)
		if !b.admits(cost[p], depth) {
			bad = append(bad, i)
		}
	}
	return bad
}

// conflicts returns the indexes of the targets whose items are held by a
// request in flight that this one conflicts with, or nil. As AWS
// documents: a write or a transactional write of an item that a
// TransactWriteItems in flight includes, and a TransactGetItems of an
// item that any write in flight includes; a GetItem or Query never
// conflicts.
func (m *model) conflicts(req *request) []int {
	if req.op == opGet || req.op == opQuery {
		return nil
	}
	var bad []int
	for i := range req.targets {
		h := m.holds[req.targets[i].table.name+"\x00"+req.targets[i].item]
		if h != nil && (h.transact > 0 || (req.op == opTransactGet && h.single > 0)) {
			bad = append(bad, i)
		}
	}
	return bad
}

// hold marks the items of an admitted write as in flight. m.mu must be
// held.
func (m *model) hold(req *request, a *admission) {
	if a.read {
		return
	}
	for i := range req.targets {
		k := req.targets[i].table.name + "\x00" + req.targets[i].item
		h := m.holds[k]
		if h == nil {
			h = &hold{}
			m.holds[k] = h
		}
		if req.op == opTransactWrite {
			h.transact++
		} else {
			h.single++
		}
	}
	a.held = true
}

// release ends the holds of an answered request, and its token's flight:
// until its answer leaves, the request is in flight on the service.
func (m *model) release(req *request, a *admission) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.settleToken(req, a, a.ok)
	if !a.held {
		return
	}
	for i := range req.targets {
		k := req.targets[i].table.name + "\x00" + req.targets[i].item
		h := m.holds[k]
		if req.op == opTransactWrite {
			h.transact--
		} else {
			h.single--
		}
		if h.transact == 0 && h.single == 0 {
			delete(m.holds, k)
		}
	}
}
