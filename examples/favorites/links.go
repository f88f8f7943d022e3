package favorites

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// AddTag puts the tag tagID on user's saved item itemID. It reads the item
// (one strongly consistent GetItem) and writes, in one TransactWriteItems, a
// link that copies the item's attributes (items never change, so the copy
// stays true) keyed for the tag's lists in gsiOne and gsiTwo, an update of
// the item's tag count and version, and a check that the tag exists. Adding
// a tag the item already has does nothing. It returns ErrNotFound when the
// item or the tag does not exist, and ErrTooManyTags when the item has
// MaxTagsPerItem tags.
//
// Cost: two round trips; the transaction costs two write units per KB of
// each of the link (with its two index entries) and the item, and a read
// unit for the check.
func (s *Service) AddTag(ctx context.Context, user string, itemID, tagID int64) error {
	fail := func(err error) error { return &Error{Op: "Service.AddTag", User: user, Err: err} }
	if err := checkUser(user); err != nil {
		return fail(err)
	}
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.table),
		Key:            itemKey(user, itemID),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return fail(err)
	}
	if out.Item == nil {
		return fail(fmt.Errorf("%w: item %d", ErrNotFound, itemID))
	}
	it, err := decodeItem(out.Item)
	if err != nil {
		return fail(err)
	}
	clip := strAttr(out.Item, attrClipTime)
	link := itemAttrs(&it, clip)
	link[attrPK] = str(itemsPK(user))
	link[attrSK] = str(linkSK(itemID, tagID))
	link[attrTagID] = num(tagID)
	link[attrGSIOnePK] = str(tagLinksPK(user, tagID))
	link[attrGSIOneSK] = str(Key(clip, IDKey(itemID)))
	link[attrGSITwoPK] = str(tagKindLinksPK(user, tagID, it.Kind))
	link[attrGSITwoSK] = str(Key(clip, IDKey(itemID)))
	for attempt := range maxAttempts {
		if err := pause(ctx, attempt); err != nil {
			return fail(err)
		}
		_, err = s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(s.table), Item: link, ConditionExpression: aws.String("attribute_not_exists(pk)")}},
			{Update: &types.Update{
				TableName:                           aws.String(s.table),
				Key:                                 itemKey(user, itemID),
				UpdateExpression:                    aws.String("SET tagVersion = tagVersion + :one, tagCount = tagCount + :one"),
				ConditionExpression:                 aws.String("attribute_exists(pk) AND tagCount < :max"),
				ExpressionAttributeValues:           map[string]types.AttributeValue{":one": num(1), ":max": num(MaxTagsPerItem)},
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
			}},
			{ConditionCheck: &types.ConditionCheck{
				TableName:           aws.String(s.table),
				Key:                 tagKey(user, tagID),
				ConditionExpression: aws.String("attribute_exists(pk)"),
			}},
		}})
		switch {
		case err == nil:
			return nil
		case conditionFailed(err, 2):
			return fail(fmt.Errorf("%w: tag %d", ErrNotFound, tagID))
		case conditionFailed(err, 0):
			return nil // already tagged, even when the item is full
		case conditionFailed(err, 1):
			if itemGone(err, 1) {
				return fail(fmt.Errorf("%w: item %d", ErrNotFound, itemID))
			}
			return fail(fmt.Errorf("%w: item %d has the maximum, %d", ErrTooManyTags, itemID, MaxTagsPerItem))
		case !retryable(err):
			return fail(err)
		}
	}
	return fail(fmt.Errorf("%w: item %d", ErrConflict, itemID))
}

// RemoveTag takes the tag tagID off user's saved item itemID: one
// TransactWriteItems deletes the link and updates the item's tag count and
// version. It returns ErrNotFound when the item does not have the tag.
// Cost: one round trip, about four write units.
func (s *Service) RemoveTag(ctx context.Context, user string, itemID, tagID int64) error {
	if err := checkUser(user); err != nil {
		return &Error{Op: "Service.RemoveTag", User: user, Err: err}
	}
	if err := s.unlink(ctx, user, itemID, tagID); err != nil {
		return &Error{Op: "Service.RemoveTag", User: user, Err: err}
	}
	return nil
}

func (s *Service) unlink(ctx context.Context, user string, itemID, tagID int64) error {
	for attempt := range maxAttempts {
		if err := pause(ctx, attempt); err != nil {
			return err
		}
		_, err := s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Delete: &types.Delete{
				TableName:           aws.String(s.table),
				Key:                 map[string]types.AttributeValue{attrPK: str(itemsPK(user)), attrSK: str(linkSK(itemID, tagID))},
				ConditionExpression: aws.String("attribute_exists(pk)"),
			}},
			{Update: &types.Update{
				TableName:                 aws.String(s.table),
				Key:                       itemKey(user, itemID),
				UpdateExpression:          aws.String("SET tagVersion = tagVersion + :one, tagCount = tagCount - :one"),
				ConditionExpression:       aws.String("attribute_exists(pk)"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":one": num(1)},
			}},
		}})
		switch {
		case err == nil:
			return nil
		case conditionFailed(err, 0) || conditionFailed(err, 1):
			return fmt.Errorf("%w: item %d, tag %d", ErrNotFound, itemID, tagID)
		case !retryable(err):
			return err
		}
	}
	return fmt.Errorf("%w: item %d", ErrConflict, itemID)
}

// ItemTags returns the tags on user's saved item itemID, sorted by name. A
// strongly consistent Query of the item's key prefix returns the item and
// its links (sk Data#<id>#Tag#<tag>), then one BatchGetItem per 100 tags
// reads their current names (a rename touches only the tag). Links to a tag
// that was deleted are skipped. It returns ErrNotFound when there is no
// such item. Cost: two round trips, one read unit per 4 KB read.
func (s *Service) ItemTags(ctx context.Context, user string, itemID int64) ([]Tag, error) {
	fail := func(err error) ([]Tag, error) { return nil, &Error{Op: "Service.ItemTags", User: user, Err: err} }
	if err := checkUser(user); err != nil {
		return fail(err)
	}
	rows, err := s.queryAll(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("pk = :pk AND begins_with(sk, :sk)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(itemsPK(user)), ":sk": str(itemSK(itemID))},
		ProjectionExpression:      aws.String("sk, tagId"),
		ConsistentRead:            aws.Bool(true),
	})
	if err != nil {
		return fail(err)
	}
	if len(rows) == 0 || strAttr(rows[0], attrSK) != itemSK(itemID) {
		return fail(fmt.Errorf("%w: item %d", ErrNotFound, itemID))
	}
	var keys []map[string]types.AttributeValue
	for _, r := range rows[1:] {
		id, err := numAttr(r, attrTagID)
		if err != nil {
			return fail(err)
		}
		keys = append(keys, tagKey(user, id))
	}
	tags := []Tag{}
	for chunk := range slices.Chunk(keys, 100) {
		got, err := s.batchGet(ctx, chunk)
		if err != nil {
			return fail(err)
		}
		for _, m := range got {
			t, err := decodeTag(m)
			if err != nil {
				return fail(err)
			}
			tags = append(tags, t)
		}
	}
	slices.SortFunc(tags, func(a, b Tag) int {
		return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
	})
	return tags, nil
}

// batchGet reads up to 100 items with BatchGetItem, strongly consistent,
// retrying the keys DynamoDB leaves unprocessed.
func (s *Service) batchGet(ctx context.Context, keys []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	req := map[string]types.KeysAndAttributes{s.table: {Keys: keys, ConsistentRead: aws.Bool(true)}}
	for attempt := 0; len(req) > 0; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Duration(attempt) * 10 * time.Millisecond):
			}
		}
		out, err := s.client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
		if err != nil {
			return nil, err
		}
		items = append(items, out.Responses[s.table]...)
		req = out.UnprocessedKeys
	}
	return items, nil
}

// ListByTag returns a page of user's saved items under the tag tagID,
// newest clip time first: one Query of gsiOne, whose partition
// TagLink#<user>#<tag> holds the tag's links sorted by <clip>#<id>, read
// descending. The first page records an access to the tag (one
// UpdateItem of its lastAccessAt, for ListTags by last access) and returns
// ErrNotFound when the tag does not exist. Global index reads are
// eventually consistent. Cost: two round trips for the first page, one
// for the next ones.
func (s *Service) ListByTag(ctx context.Context, user string, tagID int64, req PageRequest) (Page, error) {
	if err := s.openTag(ctx, "Service.ListByTag", user, tagID, req); err != nil {
		return Page{}, err
	}
	return s.page(ctx, "Service.ListByTag", user, req, indexGSIOne, attrGSIOnePK, tagLinksPK(user, tagID))
}

// ListByTagAndKind returns a page of user's saved items of kind under the
// tag tagID, newest first: as ListByTag, on gsiTwo, whose partition
// TagLink#<user>#<tag>#<kind> holds only that kind's links.
func (s *Service) ListByTagAndKind(ctx context.Context, user string, tagID int64, kind Kind, req PageRequest) (Page, error) {
	if !kind.valid() {
		return Page{}, &Error{Op: "Service.ListByTagAndKind", User: user, Err: invalidf("kind %q: want one of %v", kind, Kinds)}
	}
	if err := s.openTag(ctx, "Service.ListByTagAndKind", user, tagID, req); err != nil {
		return Page{}, err
	}
	return s.page(ctx, "Service.ListByTagAndKind", user, req, indexGSITwo, attrGSITwoPK, tagKindLinksPK(user, tagID, kind))
}

// openTag checks the user and, on a first page, records the access.
func (s *Service) openTag(ctx context.Context, op, user string, tagID int64, req PageRequest) error {
	if err := checkUser(user); err != nil {
		return &Error{Op: op, User: user, Err: err}
	}
	if req.Cursor != "" {
		return nil
	}
	if err := s.touchTag(ctx, user, tagID); err != nil {
		return &Error{Op: op, User: user, Err: err}
	}
	return nil
}

func itemKey(user string, id int64) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrPK: str(itemsPK(user)), attrSK: str(itemSK(id))}
}

// itemGone reports whether action i of a cancelled transaction failed
// because its item does not exist (DynamoDB returned no old item).
func itemGone(err error, i int) bool {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || i >= len(tce.CancellationReasons) {
		return false
	}
	return tce.CancellationReasons[i].Item == nil
}
