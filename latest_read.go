package dynamoseq

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/internal/engine"
)

// readVersion returns the version the 'latest' item of base holds, 0 when
// there is none, with one strongly consistent GetItem.
func (l *Latest) readVersion(ctx context.Context, base string) (int64, error) {
	v, _, err := l.readHead(ctx, l.reads, base)
	return v, err
}

// readHead is readVersion, which also returns the end of the turn of the
// write that moved 'latest' there, if any (see turns), read with client
// (l.client in a run, l.reads otherwise).
func (l *Latest) readHead(ctx context.Context, client Client, base string) (int64, engine.Turn, error) {
	out, err := client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:                aws.String(l.table),
		Key:                      l.layout.latestKey(base),
		ConsistentRead:           aws.Bool(true),
		ProjectionExpression:     aws.String("#v, #tok"),
		ExpressionAttributeNames: map[string]string{"#v": l.opts.VersionAttribute, "#tok": l.opts.TokenAttribute},
	})
	if err != nil {
		return 0, engine.Turn{}, l.readError(err)
	}
	if out.Item == nil {
		return 0, engine.Turn{}, nil
	}
	v, err := l.version(out.Item)
	return v, engine.TurnOfItem(out.Item, l.opts.TokenAttribute), err
}

// version reads the version attribute of an item.
func (l *Latest) version(item map[string]types.AttributeValue) (int64, error) {
	name := l.opts.VersionAttribute
	av, ok := item[name]
	if !ok {
		return 0, fmt.Errorf("%w: the item has no attribute %q", ErrTableMismatch, name)
	}
	nv, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("%w: attribute %q holds a %s, want a Number", ErrTableMismatch, name, typeName(av))
	}
	v, err := strconv.ParseInt(nv.Value, 10, 64)
	if err != nil || v < 1 {
		return 0, fmt.Errorf("%w: attribute %q holds %s, want a positive integer", ErrTableMismatch, name, nv.Value)
	}
	return v, nil
}

// versionOf is version for an item that may be absent.
func (l *Latest) versionOf(item map[string]types.AttributeValue) (int64, bool) {
	if item == nil {
		return 0, false
	}
	v, err := l.version(item)
	return v, err == nil
}

// readError explains a failed read.
func (l *Latest) readError(err error) error {
	if engine.IsValidation(err) {
		return fmt.Errorf("%w: want %s: %w", ErrTableMismatch, l.layout.schema(), err)
	}
	return classify(err)
}

// GetLatest reads the newest version of the document name into out and
// returns its number, with one strongly consistent GetItem of the 'latest'
// item (1 read unit per 4 KB). out is what attributevalue.UnmarshalMap
// accepts, a *map[string]types.AttributeValue, or nil to read only the
// number; it receives the attributes given to Append, without the key
// attributes and the version attribute. It returns ErrNotFound when the
// document has no version. Without transactions (see Latest) it also reads
// the version after the one 'latest' holds (a second GetItem), returns that
// version if it exists and copies it to 'latest' (one PutItem).
func (l *Latest) GetLatest(ctx context.Context, name string, out any) (int64, error) {
	fail := func(err error) (int64, error) {
		return 0, &Error{Op: "Latest.GetLatest", Table: l.table, Sequence: name, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	base, err := l.base(name)
	if err != nil {
		return fail(err)
	}
	var item map[string]types.AttributeValue
	if l.single {
		item, err = l.readNewest(ctx, base) // 'latest' may be one version behind
	} else {
		item, err = l.getItem(ctx, l.layout.latestKey(base))
	}
	if err != nil {
		return fail(err)
	}
	v, err := l.version(item)
	if err != nil {
		return fail(err)
	}
	if err := l.decode(item, out); err != nil {
		return fail(err)
	}
	return v, nil
}

// Get reads version of the document name into out (as GetLatest does),
// with one strongly consistent GetItem. It returns ErrNotFound when that
// version does not exist, and ErrInvalidArgument for a version below 1.
func (l *Latest) Get(ctx context.Context, name string, version int64, out any) error {
	fail := func(err error) error {
		return &Error{Op: "Latest.Get", Table: l.table, Sequence: name, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	base, err := l.base(name)
	if err != nil {
		return fail(err)
	}
	if version < 1 {
		return fail(invalidf("version is %d, want at least 1", version))
	}
	if version > l.maxVersion {
		return fail(fmt.Errorf("%w: version %d", ErrNotFound, version))
	}
	item, err := l.getItem(ctx, l.layout.versionKey(base, version))
	if err != nil {
		return fail(err)
	}
	if err := l.decode(item, out); err != nil {
		return fail(err)
	}
	return nil
}

// getItem reads one item, strongly consistent, waiting out throttles;
// ErrNotFound when absent.
func (l *Latest) getItem(ctx context.Context, key map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	out, err := l.reads.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(l.table),
		Key:            key,
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, l.readError(err)
	}
	if out.Item == nil {
		return nil, ErrNotFound
	}
	return out.Item, nil
}

// attributes returns item without the attributes the library wrote.
func (l *Latest) attributes(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	return withoutAttributes(item, l.reserved)
}

// decode stores the caller's attributes of item in out.
func (l *Latest) decode(item map[string]types.AttributeValue, out any) error {
	return decodeAttributes(l.attributes(item), out)
}

// Versions lists the versions of the document name, newest first: at most
// limit of them (1 to 1000), starting below before (0 for the newest).
// next is the cursor for the following page (pass it as before), or 0 when
// no older version remains:
//
//	for before := int64(0); ; {
//		page, next, err := docs.Versions(ctx, "doc1", before, 50)
//		// use page
//		if err != nil || next == 0 {
//			break
//		}
//		before = next
//	}
//
// A document with no version gives an empty page and no error. A page is
// one strongly consistent Query with LayoutSortKey (1 read unit per 4 KB);
// with LayoutPartitionKey, one GetItem per version, up to 8 at a time.
func (l *Latest) Versions(ctx context.Context, name string, before int64, limit int) (page []Item, next int64, err error) {
	return l.versions(ctx, "Latest.Versions", name, before, limit, NewestFirst)
}

// All returns an iterator over the versions of the document name in order,
// each with a nil error, for a range loop:
//
//	for v, err := range docs.All(ctx, "contract-1001", dynamoseq.NewestFirst) {
//		if err != nil {
//			return err
//		}
//		// use v.Number and v.Item, or v.Decode
//	}
//
// An error (a bad name or order, a failed read, ctx ending) comes with the
// last iteration. It pages as Versions does, a page read when the loop
// reaches it, 16 versions first and twice as many each time up to 1000;
// versions appended meanwhile show up OldestFirst only. Each range lists
// from the start again. docs/latest.md gives the reads of each layout.
func (l *Latest) All(ctx context.Context, name string, order Order) iter.Seq2[Item, error] {
	return pages(ctx, func(cursor int64, limit int) ([]Item, int64, error) {
		return l.versions(ctx, "Latest.All", name, cursor, limit, order)
	}, func(err error) error {
		return &Error{Op: "Latest.All", Table: l.table, Sequence: name, Err: err}
	})
}

// versions is a page of Versions, in order, after the version cursor in
// that order (0 for the first page); its errors name the operation op.
func (l *Latest) versions(ctx context.Context, op, name string, cursor int64, limit int, order Order) (page []Item, next int64, err error) {
	fail := func(err error) ([]Item, int64, error) {
		return nil, 0, &Error{Op: op, Table: l.table, Sequence: name, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	base, err := l.base(name)
	if err != nil {
		return fail(err)
	}
	switch {
	case cursor < 0:
		return fail(invalidf("before is %d, want 0 (the newest) or a version", cursor))
	case limit < 1 || limit > 1000:
		return fail(invalidf("limit is %d, want 1 to 1000", limit))
	case order != NewestFirst && order != OldestFirst:
		return fail(invalidf("order is %v, want NewestFirst or OldestFirst", order))
	}
	lo, hi := int64(1), l.maxVersion
	switch {
	case cursor == 0:
	case order == NewestFirst:
		hi = min(cursor-1, l.maxVersion)
	default:
		lo = cursor + 1
	}
	if lo > hi {
		return nil, 0, nil
	}
	if d, ok := l.layout.(sortKeyLayout); ok {
		page, next, err = l.queryVersions(ctx, d, base, lo, hi, limit, order)
	} else {
		page, next, err = l.getVersions(ctx, base, lo, hi, limit, order, cursor == 0 || order == OldestFirst)
	}
	if err != nil {
		return fail(err)
	}
	return page, next, nil
}

// queryVersions is a page of versions lo to hi with LayoutSortKey.
func (l *Latest) queryVersions(ctx context.Context, d sortKeyLayout, base string, lo, hi int64, limit int, order Order) ([]Item, int64, error) {
	out, err := l.reads.Query(ctx, &dynamodb.QueryInput{
		TableName:                aws.String(l.table),
		KeyConditionExpression:   aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi"),
		ExpressionAttributeNames: map[string]string{"#pk": d.pk, "#sk": d.sk},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: base},
			":lo": d.codec.key(lo),
			":hi": d.codec.key(hi),
		},
		ScanIndexForward: aws.Bool(order == OldestFirst),
		ConsistentRead:   aws.Bool(true),
		Limit:            aws.Int32(int32(limit)),
	})
	if err != nil {
		return nil, 0, l.readError(err)
	}
	page := make([]Item, 0, len(out.Items))
	for _, item := range out.Items {
		v, err := l.version(item)
		if err != nil {
			return nil, 0, err
		}
		page = append(page, Item{Number: v, Item: l.attributes(item)})
	}
	var next int64
	if len(page) > 0 {
		next = cursorAfter(page[len(page)-1].Number, out.LastEvaluatedKey != nil, order)
	}
	return page, next, nil
}

// getVersions is a page of versions lo to hi with LayoutPartitionKey, at
// most limit of them; readHead bounds hi by the newest version first.
func (l *Latest) getVersions(ctx context.Context, base string, lo, hi int64, limit int, order Order, readHead bool) ([]Item, int64, error) {
	if readHead {
		newest, err := l.readVersion(ctx, base)
		if err != nil {
			return nil, 0, err
		}
		if l.single && newest < l.maxVersion {
			newest++ // 'latest' may be one version behind the newest
		}
		hi = min(hi, newest)
	}
	n := min(int64(limit), hi-lo+1)
	if n <= 0 {
		return nil, 0, nil
	}
	first, step, last := hi, int64(-1), hi-n+1 // NewestFirst
	if order == OldestFirst {
		first, step, last = lo, 1, lo+n-1
	}
	page, err := l.getEach(ctx, base, first, step, int(n))
	var next int64
	if order == NewestFirst && last > lo || order == OldestFirst && last < hi {
		next = last
	}
	return page, next, err
}

// getEach reads the n versions first, first+step, ... of base, up to 8 at
// a time, and returns those that exist, in that order.
func (l *Latest) getEach(ctx context.Context, base string, first, step int64, n int) ([]Item, error) {
	page := make([]Item, n)
	errs := make([]error, n)
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			v := first + int64(i)*step
			item, err := l.getItem(ctx, l.layout.versionKey(base, v))
			if err != nil {
				errs[i] = err
				return
			}
			page[i] = Item{Number: v, Item: l.attributes(item)}
		}()
	}
	wg.Wait()
	// A missing version can only be one deleted by hand, or the one above
	// 'latest' with single-item writes: leave it out.
	kept := page[:0]
	for i, err := range errs {
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return nil, err
		default:
			kept = append(kept, page[i])
		}
	}
	return kept, nil
}
