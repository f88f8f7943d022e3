package dynamoseq

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/internal/engine"
)

// Idempotency keys (AppendOnce, NextOnce): a caller's key, such as an HTTP
// request's Idempotency-Key, names the number of the first call that
// passed it on a sequence, for Table.KeyWindow. A key item per (sequence,
// key) holds that number, a hash of the call's content and the end of
// the window; it is stored with a condition that the key is free (absent,
// or its window over), in the same transaction as a SortKey's or a
// Latest's item, after a Counter's update. docs/idempotency.md has the
// design and its costs.

// keySeparator joins a sequence's name and a key into the partition key
// value of the key item, KeyPrefix+name+keySeparator+key. Names and keys
// may not hold it, so that no key item has a sequence's partition key, and
// no two (name, key) pairs share one.
const keySeparator = "\x1f"

// keyAttrPrefix starts the names of the attributes of a key item that the
// library writes (engine.KeyAttribute is one).
const keyAttrPrefix = "dynamoseq_"

// The attributes of a key item beside its key and its TTL attribute.
const (
	keyHashAttr   = engine.KeyAttribute // the hash of the first call's content
	keyNumberAttr = "dynamoseq_n"       // the number of the first call
	keySeqAttr    = "dynamoseq_seq"     // the sequence the number is in (a period's, for an IDMinter)
	keyAtAttr     = "dynamoseq_at"      // an IDMinter's instant that dates the ID, Unix nanoseconds
	keyTokenAttr  = "dynamoseq_tok"     // the token of the request that stored the key item
	keyKindAttr   = "dynamoseq_kind"    // the kind of caller that stored it (keyKind*)
)

// The kinds of callers whose keys are kept apart: a key item's partition
// key is KeyPrefix+name+keySeparator+kind+keySeparator+key, and the item
// stores its kind, so that a Counter and a Latest sharing a table (and a
// name) never read each other's key items. An IDMinter's keys (over a
// Counter, a Block or a SortKey) span the periods of its sequence: a key
// used on New Year's Eve and again after midnight names the first ID.
const (
	keyKindCounter = "c"
	keyKindSortKey = "s"
	keyKindLatest  = "l"
	keyKindID      = "id"
)

// keyClock is the clock of the keys' window, set by the tests.
type keyClock struct{ now func() time.Time }

// read returns the clock's function, time.Now for a nil clock.
func (c *keyClock) read() func() time.Time {
	if c == nil || c.now == nil {
		return time.Now
	}
	return c.now
}

// idemKey is the idempotency key of one call, as its write carries it.
type idemKey struct {
	key    string // as the caller passed it, for messages
	kind   string // the kind of caller (keyKind*)
	pk     string // the key item's partition key value
	hash   string // the hash of the call's content (contentHash)
	seq    string // the sequence the number goes to
	at     int64  // for an IDMinter, the instant that dates its ID, Unix nanoseconds; else 0
	window time.Duration
	ttl    string           // Table.KeyTTLAttribute
	now    func() time.Time // the clock of the window
}

// newIdemKey checks key and returns the idempotency key of a call with
// content (its attributes, nil for none) on the sequence seq, whose keys
// are kept under the name and the kind of caller (keyKind*).
func newIdemKey(t *Table, name, kind, seq, key string, content map[string]types.AttributeValue) (*idemKey, error) {
	pk := t.KeyPrefix + name + keySeparator + kind + keySeparator + key
	switch {
	case key == "":
		return nil, invalidf("empty idempotency key")
	case !utf8.ValidString(key):
		return nil, invalidf("idempotency key is not valid UTF-8")
	case strings.Contains(key, keySeparator):
		return nil, invalidf("idempotency key holds the byte 0x1f, which the library reserves")
	case len(pk) > maxKeyBytes:
		return nil, invalidf("key prefix, name and idempotency key are %d bytes with a separator, DynamoDB's limit for a partition key is %d", len(pk), maxKeyBytes)
	}
	return &idemKey{key: key, kind: kind, pk: pk, hash: contentHash(content), seq: seq, window: t.KeyWindow, ttl: t.KeyTTLAttribute, now: t.clock.read()}, nil
}

// bytes is the key item's size at most, but for its sort key.
func (k *idemKey) bytes(pkAttr string) int {
	return len(pkAttr) + len(k.pk) + len(keyHashAttr) + len(k.hash) + len(keyNumberAttr) + maxNumberBytes +
		len(keySeqAttr) + len(k.seq) + len(keyAtAttr) + maxNumberBytes + len(keyTokenAttr) + engine.TokenBytes +
		len(keyKindAttr) + len(k.kind) + len(k.ttl) + maxNumberBytes
}

// put is the conditional Put of the key item, at key (its partition key,
// pkAttr, and in a table with one, its sort key), naming the number n and carrying
// the request's token. Its condition holds when the key is free: no item,
// or one whose window ended (by k's clock; the library enforces the window
// itself; TTL deletes late), or one this request stored already (a resend
// of a write that was applied). A failed condition returns the key item in
// the way (engine.KeyItems).
func (k *idemKey) put(table, pkAttr string, key map[string]types.AttributeValue, n int64, token string) *types.Put {
	now := k.now()
	item := make(map[string]types.AttributeValue, len(key)+7)
	for a, v := range key {
		item[a] = v
	}
	item[keyHashAttr] = &types.AttributeValueMemberS{Value: k.hash}
	item[keyNumberAttr] = number(n)
	item[keySeqAttr] = &types.AttributeValueMemberS{Value: k.seq}
	if k.at != 0 {
		item[keyAtAttr] = number(k.at)
	}
	item[keyTokenAttr] = &types.AttributeValueMemberS{Value: token}
	item[keyKindAttr] = &types.AttributeValueMemberS{Value: k.kind}
	item[k.ttl] = number(now.Add(k.window).Unix())
	return &types.Put{
		TableName:           aws.String(table),
		Item:                item,
		ConditionExpression: aws.String("attribute_not_exists(#pk) OR #exp < :now OR #tok = :tok"),
		ExpressionAttributeNames: map[string]string{
			"#pk": pkAttr, "#exp": k.ttl, "#tok": keyTokenAttr,
		},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":now": number(now.Unix()), ":tok": &types.AttributeValueMemberS{Value: token},
		},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
}

// keyRecord is what a key item says of the call that stored it.
type keyRecord struct {
	n        int64  // its number
	seq      string // the sequence of the number
	at       int64  // an IDMinter's instant, Unix nanoseconds; 0 for none
	replayed bool   // false when the item is the calling request's own
}

// settle reads the key item that holds k, returned by a failed condition:
// the first call's number when its content's hash is k's, else
// ErrKeyReused. token is the token of the calling request's last write ("" if
// unknown): an item that carries it is the call's own (not a replay).
func (k *idemKey) settle(item map[string]types.AttributeValue, token string) (keyRecord, error) {
	h, _ := item[keyHashAttr].(*types.AttributeValueMemberS)
	n, nerr := parseNumber(item[keyNumberAttr])
	seq, _ := item[keySeqAttr].(*types.AttributeValueMemberS)
	kind, _ := item[keyKindAttr].(*types.AttributeValueMemberS)
	if h == nil || seq == nil || kind == nil || nerr != nil || n < 1 {
		return keyRecord{}, fmt.Errorf("%w: the key item of idempotency key %.40q is not one the library wrote", ErrTableMismatch, k.key)
	}
	if kind.Value != k.kind {
		return keyRecord{}, fmt.Errorf("%w: the key item of idempotency key %.40q was stored by another kind of caller (%q, not %q) sharing the table", ErrTableMismatch, k.key, kind.Value, k.kind)
	}
	if h.Value != k.hash {
		return keyRecord{}, fmt.Errorf("%w: idempotency key %.40q names number %d", ErrKeyReused, k.key, n)
	}
	rec := keyRecord{n: n, seq: seq.Value, replayed: true}
	if at, ok := item[keyAtAttr]; ok {
		rec.at, _ = parseNumber(at)
	}
	if tok, ok := item[keyTokenAttr].(*types.AttributeValueMemberS); ok && token != "" && tok.Value == token {
		rec.replayed = false
	}
	return rec, nil
}

// parseNumber reads an int64 out of a Number attribute.
func parseNumber(av types.AttributeValue) (int64, error) {
	nv, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		return 0, errors.New("not a Number")
	}
	return strconv.ParseInt(nv.Value, 10, 64)
}

// keyHeldError is the outcome of a call whose key item was found held by
// another call (engine.KeyTaken): the run leaves it, and the caller reads
// the item (idemKey.settle) outside the run.
type keyHeldError struct {
	item map[string]types.AttributeValue
}

func (e *keyHeldError) Error() string { return "dynamoseq: the idempotency key is held" }

// heldKeys sets a keyHeldError as the outcome of the calls of a write whose
// key items came back with err, a KeyTaken refusal, and returns the others,
// to write again (none, the calls failed, when no call's key came back).
func heldKeys(calls []*engine.Call[appendReq, int64], pkAttr string, err error) []*engine.Call[appendReq, int64] {
	held := map[string]map[string]types.AttributeValue{}
	for _, item := range engine.KeyItems(err) {
		if pk, ok := item[pkAttr].(*types.AttributeValueMemberS); ok {
			held[pk.Value] = item
		}
	}
	var kept []*engine.Call[appendReq, int64]
	for _, c := range calls {
		if k := c.Req.key; k != nil && held[k.pk] != nil {
			c.Err = &keyHeldError{item: held[k.pk]}
			continue
		}
		kept = append(kept, c)
	}
	if len(kept) == len(calls) {
		// A key item that no call of the write holds: writing again would
		// meet it again.
		engine.Fail(calls, fmt.Errorf("%w: a key item came back that no call of the write holds: %w", ErrTableMismatch, err))
		return nil
	}
	return kept
}

// contentHash is the hash of an item's attributes that a key item keeps:
// SHA-256 over a canonical encoding, in which a map's attributes and a
// set's members are sorted, so that the same content hashes alike
// whatever the order of its fields. Numbers are compared as written.
func contentHash(attrs map[string]types.AttributeValue) string {
	h := sha256.New()
	writeMap(h, attrs)
	return "sha256:" + base64.RawStdEncoding.EncodeToString(h.Sum(nil))
}

func writeString(h hash.Hash, tag byte, s string) {
	var n [9]byte
	n[0] = tag
	binary.BigEndian.PutUint64(n[1:], uint64(len(s)))
	h.Write(n[:])
	h.Write([]byte(s))
}

func writeMap(h hash.Hash, m map[string]types.AttributeValue) {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	writeString(h, 'M', strconv.Itoa(len(names)))
	for _, name := range names {
		writeString(h, 'k', name)
		writeValue(h, m[name])
	}
}

func writeSet(h hash.Hash, tag byte, members []string) {
	sorted := slices.Sorted(slices.Values(members))
	writeString(h, tag, strconv.Itoa(len(sorted)))
	for _, m := range sorted {
		writeString(h, 'e', m)
	}
}

func writeValue(h hash.Hash, av types.AttributeValue) {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		writeString(h, 'S', v.Value)
	case *types.AttributeValueMemberN:
		writeString(h, 'N', v.Value)
	case *types.AttributeValueMemberB:
		writeString(h, 'B', string(v.Value))
	case *types.AttributeValueMemberBOOL:
		writeString(h, 'T', strconv.FormatBool(v.Value))
	case *types.AttributeValueMemberNULL:
		writeString(h, '0', "")
	case *types.AttributeValueMemberSS:
		writeSet(h, 's', v.Value)
	case *types.AttributeValueMemberNS:
		writeSet(h, 'n', v.Value)
	case *types.AttributeValueMemberBS:
		bs := make([]string, len(v.Value))
		for i, b := range v.Value {
			bs[i] = string(b)
		}
		writeSet(h, 'b', bs)
	case *types.AttributeValueMemberL:
		writeString(h, 'L', strconv.Itoa(len(v.Value)))
		for _, e := range v.Value {
			writeValue(h, e)
		}
	case *types.AttributeValueMemberM:
		writeMap(h, v.Value)
	default:
		writeString(h, '?', fmt.Sprintf("%T%v", av, av))
	}
}

// keyedIndex is the index in calls of the call that the action at index i
// of a transaction concerns, where the key items follow the calls' items
// in the order of the calls that have a key; -1 for none.
func keyedIndex(calls []*engine.Call[appendReq, int64], i int) int {
	if i < len(calls) {
		return i
	}
	i -= len(calls)
	for j, c := range calls {
		if c.Req.key != nil {
			if i == 0 {
				return j
			}
			i--
		}
	}
	return -1
}
