package dynamoseqtest

import (
	"encoding/json"
	"strings"
)

// errPrefix is the namespace of the service's error types in "__type".
const errPrefix = "com.amazonaws.dynamodb.v20120810#"

// The messages of the service's refusals, as the SDK's documentation of
// TransactionCanceledException and of the exceptions gives them.
const (
	msgOnDemand = "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically " +
		"scaling your table or index so please try again shortly. If exceptions persist, check if you have " +
		"a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html."
	msgProvisioned = "The level of configured provisioned throughput for the table was exceeded. " +
		"Consider increasing your provisioning level with the UpdateTable API."
	msgConflictReason    = "Transaction is ongoing for the item."
	msgConflictException = "Operation was rejected because there is an ongoing transaction for the item."
	msgInProgress        = "Transaction with the given request token is already in progress."
)

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps of strings and numbers are marshalled here
	}
	return b
}

// onDemand says whether a throttle on table t takes the on-demand form.
func (m *model) onDemand(t *tableInfo) bool {
	return m.rules.throttle == ThrottleOnDemand || (m.rules.throttle == "" && t.onDemand)
}

// throttleBody counts a throttled request and returns its answer: the
// exception of the table's form, or for a transaction its cancellation
// with the form's reason at the throttled items. table says the table's
// own ceiling refused it, not its partitions'. m.mu must be held.
func (m *model) throttleBody(req *request, a *admission, bad []int, table bool) []byte {
	t := req.targets[bad[0]].table
	onDemand := m.onDemand(t)
	for _, p := range m.partsAt(req, bad) {
		p.stats.Throttled++
	}
	o := m.op(req.op)
	if table {
		o.TableThrottled++
	}
	if req.op == opTransactWrite || req.op == opTransactGet {
		o.ThrottledCancellations++
		o.Cancellations++
		if onDemand {
			return cancelBody(len(req.targets), bad, "ThrottlingError", msgOnDemand)
		}
		return cancelBody(len(req.targets), bad, "ProvisionedThroughputExceeded", msgProvisioned)
	}
	o.Throttled++
	kind := "Write"
	if a.read {
		kind = "Read"
	}
	reasons := []map[string]string{{"reason": "Table" + kind + throttleLimit(table, onDemand), "resource": t.arn}}
	if onDemand {
		return mustJSON(map[string]any{
			"__type": errPrefix + "ThrottlingException", "message": msgOnDemand, "throttlingReasons": reasons,
		})
	}
	return mustJSON(map[string]any{
		"__type": errPrefix + "ProvisionedThroughputExceededException", "message": msgProvisioned, "ThrottlingReasons": reasons,
	})
}

// conflictBody counts a request refused for a conflict and returns its
// answer. A cancelled TransactWriteItems reached its items, so it is
// charged CancelledShare of its units. m.mu must be held.
func (m *model) conflictBody(req *request, a *admission, bad []int) []byte {
	for _, p := range m.partsAt(req, bad) {
		p.stats.Conflicts++
	}
	o := m.op(req.op)
	switch req.op {
	case opTransactWrite:
		actual := make([]float64, len(req.targets))
		for i := range actual {
			actual[i] = a.est[i] * m.rules.cancelledShare
		}
		m.account(req, a, actual, false)
		fallthrough
	case opTransactGet:
		o.ConflictCancellations++
		o.Cancellations++
		return cancelBody(len(req.targets), bad, "TransactionConflict", msgConflictReason)
	}
	o.Conflicts++
	return mustJSON(map[string]string{"__type": errPrefix + "TransactionConflictException", "message": msgConflictException})
}

// throttleLimit is the LimitType of a throttle's reason, as AWS documents
// them in ThrottlingReason: a partition key value's limit in either mode,
// or the table's own ceiling, provisioned or on-demand maximum.
func throttleLimit(table, onDemand bool) string {
	switch {
	case !table:
		return "KeyRangeThroughputExceeded"
	case onDemand:
		return "MaxOnDemandThroughputExceeded"
	}
	return "ProvisionedThroughputExceeded"
}

func inProgressBody() []byte {
	return mustJSON(map[string]string{"__type": errPrefix + "TransactionInProgressException", "Message": msgInProgress})
}

// cancelBody is a TransactionCanceledException with code at the indexes
// bad and None at the others, as the service sends it.
func cancelBody(n int, bad []int, code, msg string) []byte {
	reasons := make([]map[string]string, n)
	codes := make([]string, n)
	for i := range reasons {
		reasons[i], codes[i] = map[string]string{"Code": "None"}, "None"
	}
	for _, i := range bad {
		reasons[i], codes[i] = map[string]string{"Code": code, "Message": msg}, code
	}
	return mustJSON(map[string]any{
		"__type":              errPrefix + "TransactionCanceledException",
		"Message":             "Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]",
		"CancellationReasons": reasons,
	})
}

// partsAt returns the partitions of the targets at the indexes idx, each
// once. m.mu must be held.
func (m *model) partsAt(req *request, idx []int) []*partState {
	var ps []*partState
	for _, i := range idx {
		p := m.part(&req.targets[i])
		dup := false
		for _, q := range ps {
			dup = dup || q == p
		}
		if !dup {
			ps = append(ps, p)
		}
	}
	return ps
}

// account charges the targets actual units: it takes from their buckets
// what was not taken at admission (taken: the estimate was) and adds to
// the figures. m.mu must be held.
func (m *model) account(req *request, a *admission, actual []float64, taken bool) {
	o := m.op(req.op)
	d := make([]float64, len(req.targets))
	for i := range req.targets {
		p := m.part(&req.targets[i])
		d[i] = actual[i]
		if taken {
			d[i] -= a.est[i]
		}
		if a.read {
			p.stats.ReadUnits += actual[i]
			o.ReadUnits += actual[i]
		} else {
			p.stats.WriteUnits += actual[i]
			o.WriteUnits += actual[i]
		}
	}
	m.take(req, a.read, d, nil)
}

// forwardBody is the request as the model sends it to DynamoDB Local: it
// asks for the consumed capacity, and a single-item write for the item
// that fails its condition, so that the model learns what to charge.
func (req *request) forwardBody() []byte {
	top := make(map[string]json.RawMessage, len(req.top)+2)
	for k, v := range req.top {
		top[k] = v
	}
	top["ReturnConsumedCapacity"] = json.RawMessage(`"TOTAL"`)
	if req.op == opPut || req.op == opUpdate || req.op == opDelete {
		top["ReturnValuesOnConditionCheckFailure"] = json.RawMessage(`"ALL_OLD"`)
	}
	return mustJSON(top)
}

// settle charges an answered request what it cost and returns the answer
// for the caller: ConsumedCapacity as the model charged it when the caller
// asked for it, nothing the caller did not ask for.
func (m *model) settle(req *request, a *admission, status int, body []byte) []byte {
	var top map[string]json.RawMessage
	_ = json.Unmarshal(body, &top)
	var typ string
	_ = json.Unmarshal(top["__type"], &typ)
	typ = typ[strings.LastIndexByte(typ, '#')+1:]
	actual := make([]float64, len(req.targets))
	changed := false
	switch {
	case status == 200:
		m.actualOK(req, a, top, actual)
		changed = true
		if req.rcc == "TOTAL" || req.rcc == "INDEXES" {
			top["ConsumedCapacity"] = consumed(req, a, actual)
		} else {
			delete(top, "ConsumedCapacity")
		}
	case typ == "ConditionalCheckFailedException" && len(req.targets) == 1:
		var old map[string]attr
		_ = json.Unmarshal(top["Item"], &old)
		actual[0] = writeUnits(max(req.targets[0].size, itemSize(old)))
		if _, ok := top["Item"]; ok && !req.askedOld {
			delete(top, "Item")
			changed = true
		}
	case typ == "TransactionCanceledException" && req.op == opTransactWrite:
		for i := range actual {
			actual[i] = a.est[i] * m.rules.cancelledShare
		}
	}
	m.mu.Lock()
	m.account(req, a, actual, true)
	if typ == "TransactionCanceledException" {
		m.op(req.op).Cancellations++
	}
	m.mu.Unlock()
	a.ok = status == 200
	if !changed {
		return body
	}
	return mustJSON(top)
}
