package dynamoseq

import (
	"context"
	"fmt"
	"iter"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/internal/engine"
)

// Get reads the item stored under number n of the sequence name into out,
// with one strongly consistent GetItem (1 read unit per 4 KB). out is what
// attributevalue.UnmarshalMap accepts, a *map[string]types.AttributeValue,
// or nil to check only that n exists; it receives the attributes given to
// Append, without the key attributes. It returns ErrNotFound when n is not
// stored and ErrInvalidArgument for n below 1.
func (s *SortKey) Get(ctx context.Context, name string, n int64, out any) error {
	fail := func(err error) error {
		return &Error{Op: "SortKey.Get", Table: s.table, Sequence: name, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	pk, err := partitionValue(s.opts.KeyPrefix, name)
	if err != nil {
		return fail(err)
	}
	switch {
	case n < 1:
		return fail(invalidf("number is %d, want at least 1", n))
	case n > s.max:
		return fail(fmt.Errorf("%w: number %d is above %d, the largest the sort key holds", ErrNotFound, n, s.max))
	}
	got, err := s.reads.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.table),
		Key:            map[string]types.AttributeValue{s.opts.PartitionKey: &types.AttributeValueMemberS{Value: pk}, s.opts.SortKey: s.codec.key(n)},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return fail(s.readError(err))
	}
	if got.Item == nil {
		return fail(fmt.Errorf("%w: number %d", ErrNotFound, n))
	}
	if err := decodeAttributes(s.attributes(got.Item), out); err != nil {
		return fail(err)
	}
	return nil
}

// Item is one numbered item of a sequence, as SortKey.Items lists it, or
// one version of a document, as Latest.Versions lists it.
type Item struct {
	Number int64  // the item's number, or the version's
	ID     string // the readable ID, as SortKeyIDMinter.All lists it; "" elsewhere
	// Item holds the attributes given to Append, without the key
	// attributes, the write token and a Latest's version attribute.
	Item map[string]types.AttributeValue
}

// Decode unmarshals the item's attributes into out, as SortKey.Get and
// Latest.Get do.
func (it Item) Decode(out any) error {
	return decodeAttributes(it.Item, out)
}

// Items lists the items of the sequence name in order, at most limit of
// them (1 to 1000), starting after the number cursor in that order (0 for
// the first page). next is the cursor of the following page, or 0 when no
// item remains:
//
//	for cursor := int64(0); ; {
//		page, next, err := tickets.Items(ctx, "projectA", cursor, 50, dynamoseq.OldestFirst)
//		// use page
//		if err != nil || next == 0 {
//			break
//		}
//		cursor = next
//	}
//
// When the last page is exactly full, the page after it is empty. Items
// appended meanwhile show up on later OldestFirst pages only. A page is one
// strongly consistent Query (1 read unit per 4 KB); other items of the
// partition (a String sort key "META") are not listed.
func (s *SortKey) Items(ctx context.Context, name string, cursor int64, limit int, order Order) (page []Item, next int64, err error) {
	return s.items(ctx, "SortKey.Items", name, cursor, limit, order)
}

// All returns an iterator over the items of the sequence name in order,
// each with a nil error, for a range loop:
//
//	for it, err := range tickets.All(ctx, "projectA", dynamoseq.OldestFirst) {
//		if err != nil {
//			return err
//		}
//		// use it.Number and it.Item, or it.Decode
//	}
//
// An error (a bad name or order, a failed Query, ctx ending) comes with the
// last iteration. It pages as Items does, one Query per page when the loop
// reaches it, 16 items first and twice as many each time up to 1000, so a
// loop that stops early reads little; items appended meanwhile show up
// OldestFirst only. Each range lists from the start again.
func (s *SortKey) All(ctx context.Context, name string, order Order) iter.Seq2[Item, error] {
	return pages(ctx, func(cursor int64, limit int) ([]Item, int64, error) {
		return s.items(ctx, "SortKey.All", name, cursor, limit, order)
	}, func(err error) error {
		return &Error{Op: "SortKey.All", Table: s.table, Sequence: name, Err: err}
	})
}

// items is a page of Items, its errors naming the operation op.
func (s *SortKey) items(ctx context.Context, op, name string, cursor int64, limit int, order Order) (page []Item, next int64, err error) {
	fail := func(err error) ([]Item, int64, error) {
		return nil, 0, &Error{Op: op, Table: s.table, Sequence: name, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	pk, err := partitionValue(s.opts.KeyPrefix, name)
	if err != nil {
		return fail(err)
	}
	switch {
	case cursor < 0:
		return fail(invalidf("cursor is %d, want 0 (the first page) or a number", cursor))
	case limit < 1 || limit > 1000:
		return fail(invalidf("limit is %d, want 1 to 1000", limit))
	case order != NewestFirst && order != OldestFirst:
		return fail(invalidf("order is %v, want NewestFirst or OldestFirst", order))
	}
	lo, hi := int64(1), s.max
	switch {
	case cursor == 0:
	case order == NewestFirst:
		hi = min(cursor-1, s.max)
	default:
		lo = cursor + 1
	}
	if lo > hi {
		return nil, 0, nil
	}
	out, err := s.reads.Query(ctx, s.rangeQuery(pk, s.codec.key(lo), s.codec.key(hi), order, int32(limit)))
	if err != nil {
		return fail(s.readError(err))
	}
	page = make([]Item, 0, len(out.Items))
	for _, item := range out.Items {
		n, err := s.codec.parse(item[s.opts.SortKey])
		if err != nil {
			return fail(err)
		}
		page = append(page, Item{Number: n, Item: s.attributes(item)})
	}
	if len(page) > 0 {
		next = cursorAfter(page[len(page)-1].Number, out.LastEvaluatedKey != nil, order)
	}
	return page, next, nil
}

// rangeQuery is a strongly consistent Query of the items of pk whose sort
// keys lie from lo to hi, in order, at most limit of them.
func (s *SortKey) rangeQuery(pk string, lo, hi types.AttributeValue, order Order, limit int32) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		TableName:                aws.String(s.table),
		KeyConditionExpression:   aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
		ExpressionAttributeNames: s.qNames,
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: pk},
			":lo": lo,
			":hi": hi,
		},
		ScanIndexForward: aws.Bool(order == OldestFirst),
		ConsistentRead:   aws.Bool(true),
		Limit:            aws.Int32(limit),
	}
}

// attributes returns a stored item without the attributes the SortKey
// wrote.
func (s *SortKey) attributes(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	return withoutAttributes(item, s.owned())
}

// readError explains a failed read: DynamoDB refuses a key or a key
// condition that does not fit the table's key schema.
func (s *SortKey) readError(err error) error {
	if engine.IsValidation(err) {
		return fmt.Errorf("%w: want partition key %q of type S and sort key %q of type %s: %w",
			ErrTableMismatch, s.opts.PartitionKey, s.opts.SortKey, s.codec.typ, err)
	}
	return classify(err)
}
