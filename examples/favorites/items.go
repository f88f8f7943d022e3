package favorites

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Attributes of saved items and of the tag links that copy them.
const (
	attrID         = "id"
	attrTagID      = "tagId"
	attrCreator    = "creator"
	attrTitle      = "title"
	attrThumbnail  = "thumbnailUrl"
	attrContent    = "contentUrl"
	attrKind       = "kind"
	attrClipTime   = "clipTime"
	attrTitleWords = "titleWords"
	attrTagCount   = "tagCount"
	attrTagVersion = "tagVersion"
)

// Save stores a new saved item of user. It takes the next item id of the
// user from the Counter at {pk: FavoriteData#<user>, sk: COUNTER} (one
// UpdateItem) and sets
// it.ID, then writes the item with one PutItem. The id is unique per user;
// ids increase in the order they were taken. If the PutItem fails, it.ID
// keeps the id taken, which no other item will get (after a timeout the
// item may or may not have been stored: List or ItemTags tells); a Save
// that is never completed leaves a gap in the user's ids, which nothing
// relies on.
//
// Cost: two round trips; the PutItem costs one write unit per KB for the
// table and again for the item's two index entries (lsiOne and gsiOne).
func (s *Service) Save(ctx context.Context, user string, it *Item) error {
	fail := func(err error) error { return &Error{Op: "Service.Save", User: user, Err: err} }
	if err := checkUser(user); err != nil {
		return fail(err)
	}
	if it == nil {
		return fail(invalidf("nil item"))
	}
	if !it.Kind.valid() {
		return fail(invalidf("kind %q: want one of %v", it.Kind, Kinds))
	}
	if it.ClipTime.IsZero() {
		return fail(invalidf("no clip time"))
	}
	clip, err := TimeKey(it.ClipTime)
	if err != nil {
		return fail(err)
	}
	id, err := s.ids.Next(ctx, itemsPK(user))
	if err != nil {
		return fail(err)
	}
	it.ID = id
	item := itemAttrs(it, clip)
	item[attrPK] = str(itemsPK(user))
	item[attrSK] = str(itemSK(id))
	item[attrLSIOneSK] = str(Key(clip, IDKey(id)))
	item[attrGSIOnePK] = str(kindPK(user, it.Kind))
	item[attrGSIOneSK] = str(Key(clip, IDKey(id)))
	item[attrTitleWords] = str(titleWords(it.Title))
	item[attrTagCount] = num(0)
	item[attrTagVersion] = num(0)
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(s.table),
		Item:                item,
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	if err != nil {
		return fail(err)
	}
	return nil
}

// itemAttrs returns the attributes an item and its tag links share.
func itemAttrs(it *Item, clip string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		attrID:        num(it.ID),
		attrCreator:   str(it.Creator),
		attrTitle:     str(it.Title),
		attrThumbnail: str(it.ThumbnailURL),
		attrContent:   str(it.ContentURL),
		attrKind:      str(string(it.Kind)),
		attrClipTime:  str(clip),
	}
}

// decodeItem reads an Item from a saved item or a tag link.
func decodeItem(m map[string]types.AttributeValue) (Item, error) {
	var it Item
	var err error
	it.ID, err = numAttr(m, attrID)
	if err != nil {
		return it, err
	}
	it.Creator = strAttr(m, attrCreator)
	it.Title = strAttr(m, attrTitle)
	it.ThumbnailURL = strAttr(m, attrThumbnail)
	it.ContentURL = strAttr(m, attrContent)
	it.Kind = Kind(strAttr(m, attrKind))
	if it.ClipTime, err = parseTimeKey(strAttr(m, attrClipTime)); err != nil {
		return it, fmt.Errorf("item %d: clip time: %w", it.ID, err)
	}
	return it, nil
}

// Remove deletes the saved item id of user and all its tag links in one
// TransactWriteItems, so that no link outlives its item. It first reads the
// item and its links with one strongly consistent Query (they share a
// partition and a key prefix), then deletes them on the condition that the
// item's tagVersion has not changed: a tag added or removed meanwhile
// cancels the transaction and Remove starts over (after a short random
// pause; at most 10 tries, then ErrConflict). It returns ErrNotFound when
// there is no such item.
//
// Cost: two round trips; the transaction costs two write units per item
// deleted (the item and each link, plus their index entries).
func (s *Service) Remove(ctx context.Context, user string, id int64) error {
	fail := func(err error) error { return &Error{Op: "Service.Remove", User: user, Err: err} }
	if err := checkUser(user); err != nil {
		return fail(err)
	}
	for attempt := range maxAttempts {
		if err := pause(ctx, attempt); err != nil {
			return fail(err)
		}
		rows, err := s.queryAll(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(s.table),
			KeyConditionExpression:    aws.String("pk = :pk AND begins_with(sk, :sk)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(itemsPK(user)), ":sk": str(itemSK(id))},
			ProjectionExpression:      aws.String("pk, sk, tagVersion"),
			ConsistentRead:            aws.Bool(true),
		})
		if err != nil {
			return fail(err)
		}
		if len(rows) == 0 || strAttr(rows[0], attrSK) != itemSK(id) {
			return fail(fmt.Errorf("%w: item %d", ErrNotFound, id))
		}
		// The item's sk is a prefix of its links' sks, so it comes first.
		acts := []types.TransactWriteItem{{Delete: &types.Delete{
			TableName:                 aws.String(s.table),
			Key:                       keyOf(rows[0]),
			ConditionExpression:       aws.String("tagVersion = :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": rows[0][attrTagVersion]},
		}}}
		for _, link := range rows[1:] {
			acts = append(acts, types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(s.table), Key: keyOf(link)}})
		}
		_, err = s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: acts})
		if err == nil {
			return nil
		}
		if !retryable(err) {
			return fail(err)
		}
	}
	return fail(fmt.Errorf("%w: item %d", ErrConflict, id))
}

// maxAttempts bounds the tries of a transaction cancelled by concurrent
// changes to the same items.
const maxAttempts = 10

// pause waits before try number attempt (from 0) of a cancelled
// transaction: not at all before the first, then a random time up to 2ms,
// 4ms, 8ms... (at most 100ms), so that writers that collided do not
// collide again. It returns the context's error if ctx ends first.
func pause(ctx context.Context, attempt int) error {
	if attempt == 0 {
		return ctx.Err()
	}
	limit := min(2*time.Millisecond<<attempt, 100*time.Millisecond)
	t := time.NewTimer(rand.N(limit))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// retryable reports whether a cancelled transaction lost a race (a condition
// on a version, or another transaction in flight) and may be tried again.
func retryable(err error) bool {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		var tcf *types.TransactionConflictException
		return errors.As(err, &tcf)
	}
	for _, r := range tce.CancellationReasons {
		if c := aws.ToString(r.Code); c != "" && c != "None" && c != "ConditionalCheckFailed" && c != "TransactionConflict" {
			return false
		}
	}
	return true
}

// List returns a page of user's saved items, newest clip time first: one
// Query of the local index lsiOne (sorted by <clip>#<id>), descending, with
// Limit. Cost: one round trip, one read unit per 4 KB read (half with the
// eventually consistent read used here).
func (s *Service) List(ctx context.Context, user string, req PageRequest) (Page, error) {
	if err := checkUser(user); err != nil {
		return Page{}, &Error{Op: "Service.List", User: user, Err: err}
	}
	return s.page(ctx, "Service.List", user, req, indexLSIOne, attrPK, itemsPK(user))
}

// ListByKind returns a page of user's saved items of kind, newest first:
// one Query of the global index gsiOne, whose partition key
// FavoriteData#<user>#<kind> holds only items of that kind, descending.
// Like every read of a global index it is eventually consistent: an item
// saved a moment ago may be missing. Cost: as List.
func (s *Service) ListByKind(ctx context.Context, user string, kind Kind, req PageRequest) (Page, error) {
	if err := checkUser(user); err != nil {
		return Page{}, &Error{Op: "Service.ListByKind", User: user, Err: err}
	}
	if !kind.valid() {
		return Page{}, &Error{Op: "Service.ListByKind", User: user, Err: invalidf("kind %q: want one of %v", kind, Kinds)}
	}
	return s.page(ctx, "Service.ListByKind", user, req, indexGSIOne, attrGSIOnePK, kindPK(user, kind))
}

// page runs one descending Query of index for the partition pkAttr = pk and
// decodes the items it returns.
func (s *Service) page(ctx context.Context, op, user string, req PageRequest, index, pkAttr, pk string) (Page, error) {
	fail := func(err error) (Page, error) { return Page{}, &Error{Op: op, User: user, Err: err} }
	limit, err := req.limit()
	if err != nil {
		return fail(err)
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(index),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": pkAttr},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(pk)},
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(limit),
	}
	if in.ExclusiveStartKey, err = decodeCursor(req.Cursor, pkAttr, pk); err != nil {
		return fail(err)
	}
	out, err := s.client.Query(ctx, in)
	if err != nil {
		return fail(err)
	}
	p := Page{Items: make([]Item, 0, len(out.Items))}
	for _, m := range out.Items {
		it, err := decodeItem(m)
		if err != nil {
			return fail(err)
		}
		p.Items = append(p.Items, it)
	}
	if p.Next, err = encodeCursor(out.LastEvaluatedKey); err != nil {
		return fail(err)
	}
	return p, nil
}

func (r PageRequest) limit() (int32, error) {
	switch {
	case r.Limit == 0:
		return 20, nil
	case r.Limit < 0 || r.Limit > 100:
		return 0, invalidf("page limit %d: want 1 to 100", r.Limit)
	}
	return r.Limit, nil
}

// Search returns a page of user's saved items whose title contains every
// word of query as the start of a word, case-insensitively ("sun" finds
// "Sunset at sea"), newest first.
//
// It runs a Query of lsiOne over the user's items, newest first, with a
// FilterExpression contains(titleWords, " <word>") per word, on the
// attribute titleWords that Save fills with the title's lower-cased words
// between spaces, and reads on (1 MB per round trip) until the page is full
// or the items run out. DynamoDB charges for what the Query reads, not for
// what the filter keeps: a search that finds few matches reads all of the
// user's items, about one read unit per 8 KB of items (eventually
// consistent). For users with tens of thousands of items, a word index (an
// item per word and saved item) would make it one small Query per word, at
// the cost of a write per word on every Save and Remove.
func (s *Service) Search(ctx context.Context, user, query string, req PageRequest) (Page, error) {
	fail := func(err error) (Page, error) { return Page{}, &Error{Op: "Service.Search", User: user, Err: err} }
	if err := checkUser(user); err != nil {
		return fail(err)
	}
	words := splitWords(query)
	switch {
	case len(words) == 0:
		return fail(invalidf("query %q has no words", query))
	case len(words) > 10:
		return fail(invalidf("query has %d words, at most 10", len(words)))
	}
	limit, err := req.limit()
	if err != nil {
		return fail(err)
	}
	pk := itemsPK(user)
	values := map[string]types.AttributeValue{":pk": str(pk)}
	var filter []string
	for i, w := range words {
		v := fmt.Sprintf(":w%d", i)
		values[v] = str(" " + w)
		filter = append(filter, fmt.Sprintf("contains(titleWords, %s)", v))
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(indexLSIOne),
		KeyConditionExpression:    aws.String("pk = :pk"),
		FilterExpression:          aws.String(strings.Join(filter, " AND ")),
		ExpressionAttributeValues: values,
		ScanIndexForward:          aws.Bool(false),
	}
	if in.ExclusiveStartKey, err = decodeCursor(req.Cursor, attrPK, pk); err != nil {
		return fail(err)
	}
	var p Page
	for {
		out, err := s.client.Query(ctx, in)
		if err != nil {
			return fail(err)
		}
		for i, m := range out.Items {
			it, err := decodeItem(m)
			if err != nil {
				return fail(err)
			}
			p.Items = append(p.Items, it)
			if int32(len(p.Items)) == limit {
				if i == len(out.Items)-1 && out.LastEvaluatedKey == nil {
					return p, nil // the last match of the last page
				}
				// Resume after this item: its keys are a valid start key.
				p.Next, err = encodeCursor(pick(m, attrPK, attrSK, attrLSIOneSK))
				if err != nil {
					return fail(err)
				}
				return p, nil
			}
		}
		if out.LastEvaluatedKey == nil {
			return p, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// splitWords returns the lower-cased words of s: runs of letters and digits.
func splitWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// titleWords is the search attribute of a title: its words between spaces,
// " sunset at sea ", so that contains(titleWords, " sun") matches words
// that start with "sun".
func titleWords(title string) string {
	return " " + strings.Join(splitWords(title), " ") + " "
}

// queryAll runs a Query to the end, following LastEvaluatedKey.
func (s *Service) queryAll(ctx context.Context, in *dynamodb.QueryInput) ([]map[string]types.AttributeValue, error) {
	var rows []map[string]types.AttributeValue
	for {
		out, err := s.client.Query(ctx, in)
		if err != nil {
			return nil, err
		}
		rows = append(rows, out.Items...)
		if out.LastEvaluatedKey == nil {
			return rows, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
func num(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

func strAttr(m map[string]types.AttributeValue, name string) string {
	if v, ok := m[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func numAttr(m map[string]types.AttributeValue, name string) (int64, error) {
	v, ok := m[name].(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("attribute %q is missing or not a Number", name)
	}
	return strconv.ParseInt(v.Value, 10, 64)
}

// keyOf returns the table key of an item.
func keyOf(m map[string]types.AttributeValue) map[string]types.AttributeValue {
	return pick(m, attrPK, attrSK)
}

func pick(m map[string]types.AttributeValue, names ...string) map[string]types.AttributeValue {
	k := make(map[string]types.AttributeValue, len(names))
	for _, n := range names {
		k[n] = m[n]
	}
	return k
}
