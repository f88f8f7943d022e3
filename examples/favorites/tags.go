package favorites

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Attributes of tags and tag names.
const (
	attrName         = "name"
	attrCreatedAt    = "createdAt"
	attrLastAccessAt = "lastAccessAt"
)

// CreateTag creates a tag called name for user and returns it. The tag id
// is the next of the user's Counter at {pk: Tag#<user>, sk: COUNTER} (one
// UpdateItem); the
// tag and a TagName#<user> item that reserves its name are then written in
// one TransactWriteItems, which fails with ErrTagExists when the user has a
// tag of that name already (names are unique per user, case-sensitively).
// The id taken for a refused name is not reused.
//
// Cost: two round trips; the transaction costs two write units per item (the
// tag with its three index entries, and the name).
func (s *Service) CreateTag(ctx context.Context, user, name string) (Tag, error) {
	fail := func(err error) (Tag, error) { return Tag{}, &Error{Op: "Service.CreateTag", User: user, Err: err} }
	if err := checkUser(user); err != nil {
		return fail(err)
	}
	if err := checkName(name); err != nil {
		return fail(err)
	}
	now := s.now()
	at, err := TimeKey(now)
	if err != nil {
		return fail(err)
	}
	id, err := s.ids.Next(ctx, tagsPK(user))
	if err != nil {
		return fail(err)
	}
	tag := map[string]types.AttributeValue{
		attrPK:           str(tagsPK(user)),
		attrSK:           str(tagSK(id)),
		attrTagID:        num(id),
		attrName:         str(name),
		attrCreatedAt:    str(at),
		attrLastAccessAt: str(at),
		attrLSIOneSK:     str(strings.ToLower(name)),
		attrLSITwoSK:     str(Key(at, IDKey(id))),
		attrLSIThreeSK:   str(Key(at, IDKey(id))),
	}
	_, err = s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(s.table), Item: tag, ConditionExpression: aws.String("attribute_not_exists(pk)")}},
		{Put: s.namePut(user, name, id)},
	}})
	if conditionFailed(err, 1) {
		return fail(fmt.Errorf("%w: %q", ErrTagExists, name))
	}
	if err != nil {
		return fail(err)
	}
	return decodeTag(tag)
}

// namePut reserves name for the tag id.
func (s *Service) namePut(user, name string, id int64) *types.Put {
	return &types.Put{
		TableName:           aws.String(s.table),
		Item:                map[string]types.AttributeValue{attrPK: str(tagNamesPK(user)), attrSK: str(name), attrTagID: num(id)},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	}
}

// nameDelete releases name, on the condition that the tag id holds it.
func (s *Service) nameDelete(user, name string, id int64) *types.Delete {
	return &types.Delete{
		TableName:                 aws.String(s.table),
		Key:                       map[string]types.AttributeValue{attrPK: str(tagNamesPK(user)), attrSK: str(name)},
		ConditionExpression:       aws.String("tagId = :id"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":id": num(id)},
	}
}

// RenameTag renames the tag id of user to name. It reads the tag (one
// strongly consistent GetItem), then in one TransactWriteItems updates the
// tag on the condition that its name is still the one read, releases the
// old name and reserves the new one: ErrTagExists when the user has a tag
// called name, ErrNotFound when the tag does not exist. Links refer to tags
// by id, so no link changes. Renaming a tag to its own name does nothing.
//
// Cost: two round trips and about six write units.
func (s *Service) RenameTag(ctx context.Context, user string, id int64, name string) error {
	fail := func(err error) error { return &Error{Op: "Service.RenameTag", User: user, Err: err} }
	if err := checkUser(user); err != nil {
		return fail(err)
	}
	if err := checkName(name); err != nil {
		return fail(err)
	}
	for attempt := range maxAttempts {
		if err := pause(ctx, attempt); err != nil {
			return fail(err)
		}
		tag, err := s.getTag(ctx, user, id)
		if err != nil {
			return fail(err)
		}
		if tag.Name == name {
			return nil
		}
		_, err = s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{
				TableName:                 aws.String(s.table),
				Key:                       tagKey(user, id),
				UpdateExpression:          aws.String("SET #n = :new, lsiOneSk = :lower"),
				ConditionExpression:       aws.String("#n = :old"),
				ExpressionAttributeNames:  map[string]string{"#n": attrName},
				ExpressionAttributeValues: map[string]types.AttributeValue{":new": str(name), ":lower": str(strings.ToLower(name)), ":old": str(tag.Name)},
			}},
			{Delete: s.nameDelete(user, tag.Name, id)},
			{Put: s.namePut(user, name, id)},
		}})
		switch {
		case err == nil:
			return nil
		case conditionFailed(err, 2):
			return fail(fmt.Errorf("%w: %q", ErrTagExists, name))
		case !retryable(err):
			return fail(err)
		}
		// Renamed or deleted meanwhile: read it again.
	}
	return fail(fmt.Errorf("%w: tag %d", ErrConflict, id))
}

// DeleteTag deletes the tag id of user and its links. The tag and its name
// go first, in one TransactWriteItems, so that no new link can be made to
// it (AddTag checks the tag in its own transaction). Then each link found
// in gsiOne (TagLink#<user>#<tag>) is deleted together with an update of
// its item's tag count and version, one TransactWriteItems per link: a tag
// on many items is more than one transaction can hold, so the sweep is not
// atomic, but it is safe to repeat, and a link left behind by an
// interrupted sweep (or, on real DynamoDB, one too recent for the global
// index to show) points to a tag that is gone, which ItemTags skips and
// Remove deletes with its item. A DeleteTag of a tag that no longer exists
// still sweeps, then returns ErrNotFound if it found nothing to delete.
//
// Cost: three round trips plus one per link; about four write units per
// link.
func (s *Service) DeleteTag(ctx context.Context, user string, id int64) error {
	fail := func(err error) error { return &Error{Op: "Service.DeleteTag", User: user, Err: err} }
	if err := checkUser(user); err != nil {
		return fail(err)
	}
	found := false
	for attempt := 0; ; attempt++ {
		if attempt == maxAttempts {
			return fail(fmt.Errorf("%w: tag %d", ErrConflict, id))
		}
		if err := pause(ctx, attempt); err != nil {
			return fail(err)
		}
		tag, err := s.getTag(ctx, user, id)
		if errors.Is(err, ErrNotFound) {
			break
		}
		if err != nil {
			return fail(err)
		}
		_, err = s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Delete: &types.Delete{
				TableName:                 aws.String(s.table),
				Key:                       tagKey(user, id),
				ConditionExpression:       aws.String("#n = :name"),
				ExpressionAttributeNames:  map[string]string{"#n": attrName},
				ExpressionAttributeValues: map[string]types.AttributeValue{":name": str(tag.Name)},
			}},
			{Delete: s.nameDelete(user, tag.Name, id)},
		}})
		if err == nil {
			found = true
			break
		}
		if !retryable(err) {
			return fail(err)
		}
	}
	links, err := s.queryAll(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(indexGSIOne),
		KeyConditionExpression:    aws.String("gsiOnePk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(tagLinksPK(user, id))},
		ProjectionExpression:      aws.String("pk, sk, id"),
	})
	if err != nil {
		return fail(err)
	}
	for _, link := range links {
		item, err := numAttr(link, attrID)
		if err != nil {
			return fail(err)
		}
		if err := s.unlink(ctx, user, item, id); err != nil && !errors.Is(err, ErrNotFound) {
			return fail(err)
		}
	}
	if !found && len(links) == 0 {
		return fail(fmt.Errorf("%w: tag %d", ErrNotFound, id))
	}
	return nil
}

// TagOrder is the order of ListTags.
type TagOrder int

// The orders of ListTags.
const (
	TagsByName       TagOrder = iota // by name, case-insensitively, A to Z (lsiOne)
	TagsByCreated                    // newest first (lsiTwo)
	TagsByLastAccess                 // most recently accessed first (lsiThree)
)

// ListTags returns all of user's tags in order: one strongly consistent
// Query of the local index that sorts them that way (lsiOne: lower-cased
// name; lsiTwo: <created>#<tag>; lsiThree: <accessed>#<tag>), following
// pages to the end. Cost: one round trip per MB of tags, one read unit per
// 4 KB.
func (s *Service) ListTags(ctx context.Context, user string, order TagOrder) ([]Tag, error) {
	fail := func(err error) ([]Tag, error) { return nil, &Error{Op: "Service.ListTags", User: user, Err: err} }
	if err := checkUser(user); err != nil {
		return fail(err)
	}
	var index string
	forward := false
	switch order {
	case TagsByName:
		index, forward = indexLSIOne, true
	case TagsByCreated:
		index = indexLSITwo
	case TagsByLastAccess:
		index = indexLSIThree
	default:
		return fail(invalidf("tag order %d", order))
	}
	rows, err := s.queryAll(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(index),
		KeyConditionExpression:    aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(tagsPK(user))},
		ScanIndexForward:          aws.Bool(forward),
		ConsistentRead:            aws.Bool(true),
	})
	if err != nil {
		return fail(err)
	}
	tags := make([]Tag, 0, len(rows))
	for _, r := range rows {
		t, err := decodeTag(r)
		if err != nil {
			return fail(err)
		}
		tags = append(tags, t)
	}
	return tags, nil
}

// getTag reads a tag with one strongly consistent GetItem.
func (s *Service) getTag(ctx context.Context, user string, id int64) (Tag, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.table),
		Key:            tagKey(user, id),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return Tag{}, err
	}
	if out.Item == nil {
		return Tag{}, fmt.Errorf("%w: tag %d", ErrNotFound, id)
	}
	return decodeTag(out.Item)
}

// touchTag records an access to the tag: one UpdateItem of lastAccessAt and
// its index key, on the condition that the tag exists.
func (s *Service) touchTag(ctx context.Context, user string, id int64) error {
	at, err := TimeKey(s.now())
	if err != nil {
		return err
	}
	_, err = s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       tagKey(user, id),
		UpdateExpression:          aws.String("SET lastAccessAt = :at, lsiThreeSk = :k"),
		ConditionExpression:       aws.String("attribute_exists(pk)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":at": str(at), ":k": str(Key(at, IDKey(id)))},
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return fmt.Errorf("%w: tag %d", ErrNotFound, id)
	}
	return err
}

func tagKey(user string, id int64) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrPK: str(tagsPK(user)), attrSK: str(tagSK(id))}
}

func decodeTag(m map[string]types.AttributeValue) (Tag, error) {
	var t Tag
	var err error
	if t.ID, err = numAttr(m, attrTagID); err != nil {
		return t, err
	}
	t.Name = strAttr(m, attrName)
	if t.CreatedAt, err = parseTimeKey(strAttr(m, attrCreatedAt)); err != nil {
		return t, fmt.Errorf("tag %d: %w", t.ID, err)
	}
	if t.LastAccessAt, err = parseTimeKey(strAttr(m, attrLastAccessAt)); err != nil {
		return t, fmt.Errorf("tag %d: %w", t.ID, err)
	}
	return t, nil
}

func checkName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return invalidf("empty tag name")
	case !utf8.ValidString(name):
		return invalidf("tag name is not valid UTF-8")
	case utf8.RuneCountInString(name) > maxNameLen:
		return invalidf("tag name has %d characters, at most %d", utf8.RuneCountInString(name), maxNameLen)
	}
	return nil
}

// conditionFailed reports whether err is a cancelled transaction whose
// action i failed its condition.
func conditionFailed(err error, i int) bool {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || i >= len(tce.CancellationReasons) {
		return false
	}
	return aws.ToString(tce.CancellationReasons[i].Code) == "ConditionalCheckFailed"
}
