package dynamoseqtest

import "encoding/json"

// actualOK fills in what a request DynamoDB Local carried out cost. For
// PutItem, UpdateItem, DeleteItem, GetItem, Query and the writes of a
// TransactWriteItems that is the consumed capacity DynamoDB Local reports,
// which follows AWS's rules (the larger of the item before and after a
// write, per KB; the items read, per 4 KB; twice per item in a
// transaction), spread over a transaction's writes in proportion to their
// estimates, and never less than a write's estimate (twice its new
// item's KB): DynamoDB Local charges the items of one item collection in
// a transaction as one. DynamoDB Local charges a ConditionCheck nothing; the service
// charges it as a write of the item, twice: the model charges 2 units per
// KB of its key (the item's size is not in the request). A
// TransactGetItems costs 2 read units per 4 KB per item read, a replayed
// TransactWriteItems 2 per 4 KB per item as the request gives it: AWS
// says the replay returns "the number of read capacity units consumed in
// reading the item"
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-apis-txwriteitems-idempotency).
func (m *model) actualOK(req *request, a *admission, top map[string]json.RawMessage, actual []float64) {
	copy(actual, a.est)
	switch {
	case a.replay:
		return
	case req.op == opTransactGet:
		var out struct {
			Responses []struct{ Item map[string]attr }
		}
		_ = json.Unmarshal(mustJSON(top), &out)
		for i := range actual {
			size := 0
			if i < len(out.Responses) {
				size = itemSize(out.Responses[i].Item)
			}
			actual[i] = 2 * readUnits(size, true)
		}
		return
	}
	var total float64
	if req.op == opTransactWrite {
		var cc []struct{ CapacityUnits float64 }
		if json.Unmarshal(top["ConsumedCapacity"], &cc) != nil || len(cc) == 0 {
			return
		}
		for _, c := range cc {
			total += c.CapacityUnits
		}
	} else {
		var cc struct{ CapacityUnits *float64 }
		if json.Unmarshal(top["ConsumedCapacity"], &cc) != nil || cc.CapacityUnits == nil {
			return
		}
		total = *cc.CapacityUnits
	}
	var est float64
	for i, e := range a.est {
		if !req.targets[i].check {
			est += e
		}
	}
	for i := range actual {
		if !req.targets[i].check {
			// At least the estimate: DynamoDB Local reports a transaction
			// of many items in one item collection as if it were one item
			// (2 units for 16 small items, where the service charges 32).
			actual[i] = max(a.est[i], total*a.est[i]/est)
		}
	}
}

// consumed is the ConsumedCapacity of an answer, per table, as the model
// charged it: an object for a single-item request, a list for a
// transaction; with ReturnConsumedCapacity INDEXES the table's own figures
// too (there are no indexes in the model).
func consumed(req *request, a *admission, actual []float64) json.RawMessage {
	var names []string
	units := map[string]float64{}
	for i := range req.targets {
		n := req.targets[i].table.name
		if _, ok := units[n]; !ok {
			names = append(names, n)
		}
		units[n] += actual[i]
	}
	kind := "WriteCapacityUnits"
	if a.read {
		kind = "ReadCapacityUnits"
	}
	list := make([]map[string]any, len(names))
	for i, n := range names {
		list[i] = map[string]any{"TableName": n, "CapacityUnits": units[n]}
		if req.rcc == "INDEXES" {
			list[i]["Table"] = map[string]float64{"CapacityUnits": units[n], kind: units[n]}
		}
	}
	if req.op == opTransactWrite || req.op == opTransactGet {
		return mustJSON(list)
	}
	return mustJSON(list[0])
}

// settleToken records how a TransactWriteItems with a ClientRequestToken
// ended, so that a later one with the same token is a replay (ok) or a
// new request. m.mu must be held.
func (m *model) settleToken(req *request, a *admission, ok bool) {
	if req.op != opTransactWrite || req.token == "" {
		return
	}
	if a.replay {
		m.op(req.op).Replays++
		return
	}
	now := m.now()
	m.tokens[req.token] = &tokenState{ok: ok, done: now}
	if len(m.tokens) > m.pruneAt {
		for k, st := range m.tokens {
			if !st.inFlight && now.Sub(st.done) >= m.rules.tokenWindow {
				delete(m.tokens, k)
			}
		}
		m.pruneAt = max(4096, 2*len(m.tokens))
	}
}
