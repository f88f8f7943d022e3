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
// With IDMinterOptions.TTL, every item also carries a Time to Live, so
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
	retention time.Duration // TTL.Retention
}

// NewSortKeyIDMinter returns a SortKeyIDMinter that writes IDs with format
// and stores their items in s, starting a new sequence each period. It
// makes no call to DynamoDB and refuses what NewIDMinter refuses, with
// ErrInvalidArgument: a nil s or period, an invalid format, a date layout
// that does not tell the periods apart, an option out of range, a
// PeriodTTL.Attribute that is one of the SortKey's own attributes, a TTL on
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
	if o.TTL != nil {
		if err := checkItemTTL(&s.opts, o.TTL); err != nil {
			return fail(err)
		}
		m.ttlAttr, m.retention = o.TTL.Attribute, o.TTL.Retention
	}
	if err := m.setClock(o.Location, o.Now); err != nil {
		return fail(err)
	}
	return m, nil
}

// checkItemTTL refuses a TTL attribute that the SortKey writes itself, or
// a TTL on a table without Time to Live.
func checkItemTTL(so *SortKeyOptions, ttl *PeriodTTL) error {
	switch ttl.Attribute {
	case so.PartitionKey, so.SortKey, so.TokenAttribute:
		return optionErrorf("TTL.Attribute", ttl.Attribute, "an attribute the SortKey writes itself")
	}
	if so.GlobalTable == GlobalTableMRSC {
		return optionErrorf("TTL", *ttl, "refused with a SortKey on GlobalTableMRSC: multi-Region strongly consistent tables do not support Time to Live")
	}
	return nil
}

// withTTL returns item's attributes with the TTL of the period ending at
// end, or item itself without a TTL.
func (m *SortKeyIDMinter) withTTL(item any, end time.Time) (any, error) {
	if m.ttlAttr == "" {
		return item, nil
	}
	attrs, _, err := marshalItem(item, 0, m.ttlAttr)
	if err != nil {
		return nil, err
	}
	attrs[m.ttlAttr] = &types.AttributeValueMemberN{Value: strconv.FormatInt(ceilUnix(end.Add(m.retention)), 10)}
	return attrs, nil
}

// Append stores item under the next number of the current period's
// sequence of name and returns its ID, as SortKey.Append does with the
// sequence SequenceAt names ("orders#2026"): an ID is returned only once
// its item is stored. item is what SortKey.Append takes; nil stores an
// item with no attributes (but the TTL, when set).
//
// When the error wraps ErrUnknownOutcome, the ID returned with it is the
// one that may hold the item (Get tells). Errors: ErrInvalidArgument for a
// bad name or item (one that sets the TTL attribute), and SortKey.Append's.
func (m *SortKeyIDMinter) Append(ctx context.Context, name string, item any) (string, error) {
	t, seq, end, err := m.current(ctx, name)
	if err == nil {
		item, err = m.withTTL(item, end)
	}
	if err != nil {
		return m.fail("SortKeyIDMinter.Append", seq, err)
	}
	n, err := m.sortKey.Append(ctx, seq, item)
	if err != nil {
		var e *Error
		if errors.Is(err, ErrUnknownOutcome) && errors.As(err, &e) && e.Number > 0 {
			return m.format.ID(t, e.Number), err
		}
		return m.fail("SortKeyIDMinter.Append", seq, err)
	}
	return m.format.ID(t, n), nil
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

// SequenceAt returns the name of the sequence that Append uses for name at
// the instant t, such as "orders#2026"; SortKey.Last on it tells the last
// number of that period, and SortKey.All lists its items.
func (m *SortKeyIDMinter) SequenceAt(name string, t time.Time) (string, error) {
	return m.sequenceAt("SortKeyIDMinter.SequenceAt", name, t)
}
