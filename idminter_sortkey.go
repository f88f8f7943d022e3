package dynamoseq

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// SortKeyIDMinter mints readable IDs such as "ORD-2026-000123" over a
// SortKey and stores an item under each: the IDs of a period are
// gap-free and increasing, and an ID exists only if its item does. The
// period's sequence is an item collection (KeyPrefix+"orders#2026")
// holding the items under their numbers.
//
// IDs are unique as long as every process minting for a name uses the same
// Format, Period and Location. Each call reads the clock once and takes
// both the period and the ID's date from that instant.
//
// With IDMinterOptions.TTLAttribute, every item also carries a Time to Live, so
// that DynamoDB deletes the items of past periods. Cost: what
// SortKey.Append costs, one conditional PutItem when warm; the first call
// of a period one Query more.
//
// A SortKeyIDMinter is safe for concurrent use by any number of
// goroutines. docs/readable-ids.md has the details.
type SortKeyIDMinter struct {
	idScheme
	sortKey   *SortKey
	ttlAttr   string        // "" when no TTL is written
	retention time.Duration // TTLRetention
	timeAttr  string        // TimeAttribute, "" when no instant is written
}

// NewSortKeyIDMinter returns a SortKeyIDMinter that writes IDs with format
// and stores their items in s, starting a new sequence each period. It
// makes no call to DynamoDB and refuses what NewIDMinter refuses, with
// ErrInvalidArgument: a nil s or period, an invalid format, a date layout
// that does not tell the periods apart or writes more than one date in a
// period (a day in a yearly period), an option out of range, a
// TTLAttribute that is one of the SortKey's own attributes, a TTL on
// GlobalTableMRSC.
func NewSortKeyIDMinter(s *SortKey, format Format, period Period, optFns ...func(*IDMinterOptions)) (*SortKeyIDMinter, error) {
	m := &SortKeyIDMinter{sortKey: s}
	fail := func(err error) (*SortKeyIDMinter, error) {
		return nil, &Error{Op: "NewSortKeyIDMinter", Table: m.table, Err: err}
	}
	if s == nil {
		return fail(invalidf("nil *SortKey"))
	}
	m.table = s.table
	if err := m.setFormat(format, period); err != nil {
		return fail(err)
	}
	o := apply(optFns)
	if err := o.resolve(); err != nil {
		return fail(err)
	}
	if o.TTLAttribute != "" {
		if err := checkItemTTL(&s.opts, o.TTLAttribute); err != nil {
			return fail(err)
		}
		m.ttlAttr, m.retention = o.TTLAttribute, o.TTLRetention
	}
	if o.TimeAttribute != "" {
		if err := checkItemTime(&s.opts, o.TimeAttribute, o.TTLAttribute); err != nil {
			return fail(err)
		}
		m.timeAttr = o.TimeAttribute
	}
	if err := m.setClock(o.Location, o.Now); err != nil {
		return fail(err)
	}
	if err := checkOneDate(m.format, m.period, m.now().In(m.loc)); err != nil {
		return fail(err)
	}
	return m, nil
}

// checkItemTTL refuses a TTL attribute that the SortKey writes itself, or
// a TTL on a table without Time to Live.
func checkItemTTL(so *SortKeyOptions, attr string) error {
	switch attr {
	case so.PartitionKey, so.SortKey, so.TokenAttribute:
		return optionErrorf("TTLAttribute", attr, "an attribute the SortKey writes itself")
	}
	if so.GlobalTable == GlobalTableMRSC {
		return optionErrorf("TTLAttribute", attr, "refused with a SortKey on GlobalTableMRSC: multi-Region strongly consistent tables do not support Time to Live")
	}
	return nil
}

// checkItemTime refuses a TimeAttribute that the SortKey or the TTL
// writes.
func checkItemTime(so *SortKeyOptions, attr, ttl string) error {
	switch attr {
	case so.PartitionKey, so.SortKey, so.TokenAttribute, ttl:
		return optionErrorf("TimeAttribute", attr, "an attribute the SortKey or the TTL writes")
	}
	return nil
}

// withStamps returns item's attributes with the TTL of the period ending
// at end and the instant t that dated its ID, each when set, or item
// itself when neither is.
func (m *SortKeyIDMinter) withStamps(item any, t, end time.Time) (any, error) {
	if m.ttlAttr == "" && m.timeAttr == "" {
		return item, nil
	}
	var reserved []string
	for _, a := range []string{m.ttlAttr, m.timeAttr} {
		if a != "" {
			reserved = append(reserved, a)
		}
	}
	attrs, _, err := marshalItem(item, 0, reserved...)
	if err != nil {
		return nil, err
	}
	if m.ttlAttr != "" {
		attrs[m.ttlAttr] = &types.AttributeValueMemberN{Value: strconv.FormatInt(ceilUnix(end.Add(m.retention)), 10)}
	}
	if m.timeAttr != "" {
		attrs[m.timeAttr] = &types.AttributeValueMemberS{Value: t.Format(time.RFC3339Nano)}
	}
	return attrs, nil
}

// Append is AppendAt at the instant the clock (IDMinterOptions.Now)
// reads.
func (m *SortKeyIDMinter) Append(ctx context.Context, name string, item any) (string, error) {
	return m.appendAt(ctx, "SortKeyIDMinter.Append", name, m.now(), item)
}

// AppendAt stores item under the next number of name's sequence in the
// period that holds t and returns its ID, dated t: pass the instant that
// item records (its created_at), so both name the same period, even on New
// Year's Eve. It is SortKey.Append on that period's sequence
// ("orders#2026"): an ID is returned only once its item is stored; nil
// stores an item with no attributes (but the TTL, when set).
//
// When the error wraps ErrUnknownOutcome, the ID returned with it is the
// one that may hold the item (Get tells). Errors: ErrInvalidArgument for a
// bad name or item (one that sets the TTL attribute), a zero t, or with a
// TTL, a t whose period ended more than TTLRetention ago (its items may be
// gone, and numbering would restart); and SortKey.Append's.
func (m *SortKeyIDMinter) AppendAt(ctx context.Context, name string, t time.Time, item any) (string, error) {
	return m.appendAt(ctx, "SortKeyIDMinter.AppendAt", name, t, item)
}

// appendAt is AppendAt for the operation op.
func (m *SortKeyIDMinter) appendAt(ctx context.Context, op, name string, t time.Time, item any) (string, error) {
	t = t.In(m.loc)
	seq, end, err := m.periodOf(ctx, name, t)
	if err == nil {
		item, err = m.withStamps(item, t, end)
	}
	if err != nil {
		return m.fail(op, seq, err)
	}
	n, err := m.sortKey.Append(ctx, seq, item)
	if err != nil {
		var e *Error
		if errors.Is(err, ErrUnknownOutcome) && errors.As(err, &e) && e.Number > 0 {
			return m.format.ID(t, e.Number), err
		}
		return m.fail(op, seq, err)
	}
	return m.format.ID(t, n), nil
}

// periodOf checks an append's arguments and returns the sequence of name
// in the period that holds t, and the period's end.
func (m *SortKeyIDMinter) periodOf(ctx context.Context, name string, t time.Time) (string, time.Time, error) {
	switch {
	case ctx.Err() != nil:
		return name, time.Time{}, ctx.Err()
	case name == "":
		return name, time.Time{}, invalidf("empty sequence name")
	case t.IsZero():
		return name, time.Time{}, invalidf("zero instant: want the one that decides the ID's period")
	}
	seq, end, err := m.sequence(name, t)
	if err == nil && m.ttlAttr != "" && !end.Add(m.retention).After(m.now()) {
		err = invalidf("instant %s is in a period that ended at %s, more than the TTL's retention (%s) ago: its items may be deleted",
			t.Format(time.RFC3339Nano), end.Format(time.RFC3339Nano), m.retention)
	}
	return seq, end, err
}

// Get reads the item stored under the ID id of the sequence name into out,
// as SortKey.Get does: one strongly consistent GetItem in the sequence of
// the period whose date id carries. It returns ErrNotFound when no item
// has that ID, and ErrInvalidArgument for an id that Parse refuses.
func (m *SortKeyIDMinter) Get(ctx context.Context, name, id string, out any) error {
	fail := func(seq string, err error) error {
		_, err = m.fail("SortKeyIDMinter.Get", seq, err)
		return err
	}
	if name == "" {
		return fail(name, invalidf("empty sequence name"))
	}
	parts, err := m.format.parse(id, m.loc)
	if err != nil {
		return fail(name, err)
	}
	seq, _, err := m.sequence(name, parts.Date)
	if err != nil {
		return fail(name, err)
	}
	return fail(seq, m.sortKey.Get(ctx, seq, parts.Number, out))
}
