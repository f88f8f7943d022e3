// Package favorites is a favorites ("saved items") service on one DynamoDB
// table: a user saves things of many kinds (images, videos, links, files,
// music, chat records, voice, notes, locations) and organises them with
// tags. Saved items, tags, tag names and the links between items and tags
// share the table (pk, sk, two global and three local secondary indexes),
// and so do the dynamoseq Counter items that mint item ids and tag ids per
// user.
//
// The layout, one line per entity (every key built with Key, so user ids
// and names may hold any character):
//
//	saved item  pk FavoriteData#<user>          sk Data#<id>
//	            lsiOneSk <clip>#<id>                          list, newest first; search
//	            gsiOnePk FavoriteData#<user>#<kind>  gsiOneSk <clip>#<id>   list by kind
//	tag link    pk FavoriteData#<user>          sk Data#<id>#Tag#<tag>   an item's tags
//	            gsiOnePk TagLink#<user>#<tag>         gsiOneSk <clip>#<id>   items under a tag
//	            gsiTwoPk TagLink#<user>#<tag>#<kind>  gsiTwoSk <clip>#<id>   by kind under a tag
//	tag         pk Tag#<user>                   sk <tag>
//	            lsiOneSk <lower-case name>  lsiTwoSk <created>#<tag>  lsiThreeSk <accessed>#<tag>
//	tag name    pk TagName#<user>               sk <name>              unique names
//	item ids    pk FavoriteData#<user>          sk COUNTER             a dynamoseq Counter
//	tag ids     pk Tag#<user>                   sk COUNTER             a dynamoseq Counter
//
// <id> and <tag> are zero-padded to 19 digits and times are fixed-width UTC
// strings (see IDKey and TimeKey), so that string order is numeric and time
// order. docs/favorites.md maps every operation to its key and index and
// gives its cost.
package favorites

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamoseq/dynamoseq"
)

// Client is the part of *dynamodb.Client the service uses.
type Client interface {
	dynamoseq.Client
	BatchGetItem(ctx context.Context, params *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
}

var _ Client = (*dynamodb.Client)(nil)

// The table's attribute and index names (testdata/table.json).
const (
	attrPK         = "pk"
	attrSK         = "sk"
	attrGSIOnePK   = "gsiOnePk"
	attrGSIOneSK   = "gsiOneSk"
	attrGSITwoPK   = "gsiTwoPk"
	attrGSITwoSK   = "gsiTwoSk"
	attrLSIOneSK   = "lsiOneSk"
	attrLSITwoSK   = "lsiTwoSk"
	attrLSIThreeSK = "lsiThreeSk"

	indexGSIOne   = "gsiOne"
	indexGSITwo   = "gsiTwo"
	indexLSIOne   = "lsiOne"
	indexLSITwo   = "lsiTwo"
	indexLSIThree = "lsiThree"
)

// Kind is the kind of a saved item.
type Kind string

// The kinds of saved items.
const (
	KindImage      Kind = "image"
	KindVideo      Kind = "video"
	KindLink       Kind = "link"
	KindFile       Kind = "file"
	KindMusic      Kind = "music"
	KindChatRecord Kind = "chat"
	KindVoice      Kind = "voice"
	KindNote       Kind = "note"
	KindLocation   Kind = "location"
)

// Kinds lists every Kind.
var Kinds = []Kind{KindImage, KindVideo, KindLink, KindFile, KindMusic, KindChatRecord, KindVoice, KindNote, KindLocation}

func (k Kind) valid() bool {
	for _, v := range Kinds {
		if k == v {
			return true
		}
	}
	return false
}

// Item is a saved item.
type Item struct {
	ID           int64 // minted by Save, per user
	Creator      string
	Title        string
	ThumbnailURL string
	ContentURL   string
	Kind         Kind
	ClipTime     time.Time // when it was saved; lists are newest first
}

// Tag is a user's tag.
type Tag struct {
	ID           int64 // minted by CreateTag, per user
	Name         string
	CreatedAt    time.Time
	LastAccessAt time.Time // CreatedAt, then the last time its items were listed
}

// PageRequest asks for one page of a list.
type PageRequest struct {
	// Limit is the most items the page holds. Default 20, at most 100.
	Limit int32
	// Cursor is the Next of the previous page; "" for the first page.
	Cursor string
}

// Page is one page of saved items.
type Page struct {
	Items []Item
	// Next is the cursor of the following page, or "" when this page is
	// the last. A page that ends exactly at the end of the list may still
	// return a Next; the page after it is then empty.
	Next string
}

// MaxTagsPerItem bounds the tags of one item, so that Remove can delete the
// item and all its links in one TransactWriteItems (at most 100 actions).
const MaxTagsPerItem = 50

// maxNameLen bounds a tag name, in characters.
const maxNameLen = 100

// Errors callers branch on with errors.Is. Every error the service returns
// is an *Error; dynamoseq's sentinels and the SDK's typed errors are also
// found inside it.
var (
	// ErrNotFound: the item, tag or link does not exist.
	ErrNotFound = errors.New("favorites: not found")
	// ErrTagExists: the user already has a tag of that name.
	ErrTagExists = errors.New("favorites: a tag of that name exists")
	// ErrTooManyTags: the item already has MaxTagsPerItem tags.
	ErrTooManyTags = errors.New("favorites: too many tags on the item")
	// ErrInvalidArgument: bad input; nothing was written.
	ErrInvalidArgument = errors.New("favorites: invalid argument")
	// ErrConflict: concurrent changes to the same item kept cancelling
	// the transaction; nothing was written.
	ErrConflict = errors.New("favorites: conflicting concurrent changes")
)

// Error is the error of every Service method: the operation and the user.
type Error struct {
	Op   string // "Service.Save"
	User string
	Err  error
}

func (e *Error) Error() string {
	cause := strings.TrimPrefix(e.Err.Error(), "favorites: ")
	return fmt.Sprintf("favorites: %s: user %q: %s", e.Op, e.User, cause)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))
}

// Options configures New.
type Options struct {
	// Now is the clock of tag creation and access times. Default time.Now.
	Now func() time.Time
}

// Service is the favorites service. It is safe for concurrent use.
type Service struct {
	client Client
	table  string
	ids    *dynamoseq.Counter // at sk CounterSK of the user's items and tags partitions
	now    func() time.Time
}

// CounterSK is the sort key of the Counter items that mint a user's ids: a
// user's item ids at {pk: FavoriteData#<user>, sk: COUNTER}, beside the
// items, and their tag ids at {pk: Tag#<user>, sk: COUNTER}, beside the
// tags. No other entity has this sort key (item sort keys start with
// "Data#", tag sort keys are digits), and the Counter items set no index
// attribute, so no index and no Query of the service sees them.
const CounterSK = "COUNTER"

// New returns a Service over table (testdata/table.json), which also holds
// the Counters of the ids. It makes no call to DynamoDB.
func New(client Client, table string, optFns ...func(*Options)) (*Service, error) {
	var o Options
	for _, fn := range optFns {
		fn(&o)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if client == nil || table == "" {
		return nil, &Error{Op: "New", Err: invalidf("nil client or empty table name")}
	}
	// The sequence name is the whole partition key value (Key escapes the
	// user id), so the Counter has no KeyPrefix.
	ids, err := dynamoseq.NewCounter(client, table, func(o *dynamoseq.CounterOptions) {
		o.SortKeyValue = CounterSK
	})
	if err != nil {
		return nil, &Error{Op: "New", Err: err}
	}
	return &Service{client: client, table: table, ids: ids, now: o.Now}, nil
}

// checkUser validates a user id: the service keys everything by it.
func checkUser(user string) error {
	switch {
	case user == "":
		return invalidf("empty user id")
	case !utf8.ValidString(user):
		return invalidf("user id is not valid UTF-8")
	case len(user) > 512:
		return invalidf("user id is %d bytes, the limit is 512", len(user))
	}
	return nil
}

// Key values of the layout above.

func itemsPK(user string) string               { return Key("FavoriteData", user) }
func itemSK(id int64) string                   { return Key("Data", IDKey(id)) }
func linkSK(id, tag int64) string              { return Key("Data", IDKey(id), "Tag", IDKey(tag)) }
func kindPK(user string, k Kind) string        { return Key("FavoriteData", user, string(k)) }
func tagLinksPK(user string, tag int64) string { return Key("TagLink", user, IDKey(tag)) }
func tagKindLinksPK(user string, tag int64, k Kind) string {
	return Key("TagLink", user, IDKey(tag), string(k))
}
func tagsPK(user string) string     { return Key("Tag", user) }
func tagSK(tag int64) string        { return IDKey(tag) }
func tagNamesPK(user string) string { return Key("TagName", user) }
