package dynamoseqtest

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
)

// The operations the model applies its rules to; every other one is
// passed through to DynamoDB Local unchanged.
const (
	opPut           = "PutItem"
	opUpdate        = "UpdateItem"
	opDelete        = "DeleteItem"
	opGet           = "GetItem"
	opQuery         = "Query"
	opTransactWrite = "TransactWriteItems"
	opTransactGet   = "TransactGetItems"
)

func modelled(op string) bool {
	switch op {
	case opPut, opUpdate, opDelete, opGet, opQuery, opTransactWrite, opTransactGet:
		return true
	}
	return false
}

// keyedInput holds the fields of a single-item request, or of one action
// of a transaction, that the model reads.
type keyedInput struct {
	TableName                           string
	Key                                 map[string]attr
	Item                                map[string]attr
	ExpressionAttributeValues           map[string]attr
	ExpressionAttributeNames            map[string]string
	ConsistentRead                      bool
	ReturnConsumedCapacity              string
	ReturnValuesOnConditionCheckFailure string
	IndexName                           string
	KeyConditionExpression              string
	KeyConditions                       map[string]struct {
		AttributeValueList []attr
		ComparisonOperator string
	}
}

type transactInput struct {
	TransactItems []struct {
		Put, Update, Delete, ConditionCheck, Get *keyedInput
	}
	ClientRequestToken     string
	ReturnConsumedCapacity string
}

// target is one item a request touches (for a Query, its partition).
type target struct {
	table *tableInfo
	part  string // the partition key value, as keyString
	item  string // the whole key; "" for a Query
	size  int    // the item's size as far as the request tells
	exact bool   // size is the item written (a Put)
	check bool   // a ConditionCheck: charged, not written
}

// request is a modelled request as the model sees it.
type request struct {
	op         string
	top        map[string]json.RawMessage // the body, to rewrite
	targets    []target
	consistent bool
	rcc        string // the ReturnConsumedCapacity the caller asked for
	askedOld   bool   // the caller asked for ReturnValuesOnConditionCheckFailure
	token      string // ClientRequestToken
}

var errUnmodelled = errors.New("dynamoseqtest: request not modelled")

// parse reads a modelled request's body. It returns errUnmodelled for a
// request the model leaves to DynamoDB Local as it is (a Query of an
// index, a table it cannot describe, a body it cannot read: DynamoDB
// Local answers those).
func (m *model) parse(op string, body []byte) (*request, error) {
	r := &request{op: op}
	if err := json.Unmarshal(body, &r.top); err != nil {
		return nil, errUnmodelled
	}
	if op == opTransactWrite || op == opTransactGet {
		return r, m.parseTransact(r, body)
	}
	var in keyedInput
	if err := json.Unmarshal(body, &in); err != nil || in.IndexName != "" {
		return nil, errUnmodelled
	}
	r.rcc, r.consistent = in.ReturnConsumedCapacity, in.ConsistentRead
	r.askedOld = in.ReturnValuesOnConditionCheckFailure != ""
	t, err := m.target(op, &in)
	if err != nil {
		return nil, err
	}
	r.targets = []target{t}
	return r, nil
}

func (m *model) parseTransact(r *request, body []byte) error {
	var in transactInput
	if err := json.Unmarshal(body, &in); err != nil || len(in.TransactItems) == 0 {
		return errUnmodelled
	}
	r.rcc, r.token, r.consistent = in.ReturnConsumedCapacity, in.ClientRequestToken, true
	for _, a := range in.TransactItems {
		op, k := opPut, a.Put
		switch {
		case a.Update != nil:
			op, k = opUpdate, a.Update
		case a.Delete != nil:
			op, k = opDelete, a.Delete
		case a.ConditionCheck != nil:
			op, k = opDelete, a.ConditionCheck // a key, as a DeleteItem's
		case a.Get != nil:
			op, k = opGet, a.Get
		}
		if k == nil {
			return errUnmodelled
		}
		t, err := m.target(op, k)
		if err != nil {
			return err
		}
		t.check = a.ConditionCheck != nil
		r.targets = append(r.targets, t)
	}
	return nil
}

// target finds the item (or partition) a single-item request or an action
// touches, and what the request tells of its size.
func (m *model) target(op string, in *keyedInput) (target, error) {
	tab, err := m.table(in.TableName)
	if err != nil {
		return target{}, errUnmodelled
	}
	t := target{table: tab}
	if op == opQuery {
		v, ok := queryPartition(in, tab.pk)
		if !ok {
			return target{}, errUnmodelled
		}
		t.part, _ = v.keyString()
		return t, nil
	}
	key := in.Key
	switch op {
	case opPut:
		key, t.size, t.exact = in.Item, itemSize(in.Item), true
	case opUpdate:
		t.size = itemSize(in.Key) + itemSize(in.ExpressionAttributeValues)
	default:
		t.size = itemSize(in.Key)
	}
	pk, ok := key[tab.pk]
	if !ok {
		return target{}, errUnmodelled
	}
	t.part, _ = pk.keyString()
	t.item = t.part
	if tab.sk != "" {
		sk, ok := key[tab.sk]
		if !ok {
			return target{}, errUnmodelled
		}
		s, _ := sk.keyString()
		t.item += "\x00" + s
	}
	return t, nil
}

// eqClause finds "name = :value" in a key condition expression.
var eqClause = regexp.MustCompile(`(#?[A-Za-z0-9_.\-]+)\s*=\s*(:[A-Za-z0-9_]+)`)

// queryPartition is the partition key value a Query reads, from its
// KeyConditionExpression or its legacy KeyConditions.
func queryPartition(in *keyedInput, pk string) (attr, bool) {
	for _, m := range eqClause.FindAllStringSubmatch(in.KeyConditionExpression, -1) {
		name := m[1]
		if strings.HasPrefix(name, "#") {
			name = in.ExpressionAttributeNames[name]
		}
		if name == pk {
			v, ok := in.ExpressionAttributeValues[m[2]]
			return v, ok
		}
	}
	if kc, ok := in.KeyConditions[pk]; ok && kc.ComparisonOperator == "EQ" && len(kc.AttributeValueList) == 1 {
		return kc.AttributeValueList[0], true
	}
	return attr{}, false
}
