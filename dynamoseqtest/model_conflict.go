package dynamoseqtest

import "time"

// hold counts the requests in flight on an item: transactions (which make
// other writes conflict) and single-item writes (which make only
// TransactGetItems conflict), and the transactions themselves, which a
// single write may cancel in the narrow conflict model.
type hold struct {
	transact, single int
	txns             []*admission
}

// conflicts returns the indexes of the targets whose items are held by a
// request in flight that this one conflicts with, or nil. As AWS
// documents: a write or a transactional write of an item that a
// TransactWriteItems in flight includes, and a TransactGetItems of an
// item that any write in flight includes; a GetItem or Query never
// conflicts. In the narrow model (Service.Conflicts) a meeting conflicts
// by chance, and a single write that meets a transaction still preparing
// cancels the transaction instead of being refused. m.mu must be held.
func (m *model) conflicts(req *request) []int {
	if req.op == opGet || req.op == opQuery {
		return nil
	}
	single := req.op == opPut || req.op == opUpdate || req.op == opDelete
	var bad []int
	for i := range req.targets {
		h := m.holds[req.targets[i].table.name+"\x00"+req.targets[i].item]
		if h == nil || (h.transact == 0 && !(req.op == opTransactGet && h.single > 0)) {
			continue
		}
		if m.rules.conflicts > 0 && m.crnd.Float64() >= m.rules.conflicts {
			continue
		}
		if single && m.rules.conflicts > 0 && m.doom(h, req.targets[i].table.name+"\x00"+req.targets[i].item) {
			continue
		}
		bad = append(bad, i)
	}
	return bad
}

// doom cancels the transactions holding item h that are still preparing
// (Service.Conflicts): a single write got to the item first. It says
// whether there was one. m.mu must be held.
func (m *model) doom(h *hold, key string) bool {
	now := time.Now()
	doomed := false
	for _, a := range h.txns {
		if now.Before(a.prepared) {
			for i, k := range a.keys {
				if k == key {
					a.doomed = append(a.doomed, i)
				}
			}
			doomed = true
		}
	}
	return doomed
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
			if m.rules.conflicts > 0 {
				h.txns = append(h.txns, a)
				a.keys = append(a.keys, k)
			}
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
			for j, x := range h.txns {
				if x == a {
					h.txns = append(h.txns[:j], h.txns[j+1:]...)
					break
				}
			}
		} else {
			h.single--
		}
		if h.transact == 0 && h.single == 0 {
			delete(m.holds, k)
		}
	}
}

// doomedBody is the answer of a transaction that a single write cancelled
// while it was preparing (Service.Conflicts), counted and charged as a
// transaction cancelled for a conflict; nil if none did. m.mu must not be
// held.
func (m *model) doomedBody(req *request, a *admission) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(a.doomed) == 0 {
		return nil
	}
	for _, p := range m.partsAt(req, a.doomed) {
		p.stats.Conflicts++
	}
	o := m.op(req.op)
	o.ConflictCancellations++
	o.Cancellations++
	actual := make([]float64, len(req.targets))
	for i := range actual {
		actual[i] = a.est[i] * m.rules.cancelledShare
	}
	m.account(req, a, actual, true)
	return cancelBody(len(req.targets), a.doomed, "TransactionConflict", msgConflictReason)
}
