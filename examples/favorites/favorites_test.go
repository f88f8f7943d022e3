package favorites_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/examples/favorites"
)

func TestMain(m *testing.M) {
	dynamoseqtest.Main(m)
}

// tableFromFile reads a CreateTable input JSON in testdata (the same file
// `aws dynamodb create-table --cli-input-json` reads).
func tableFromFile(t *testing.T, file string) *dynamodb.CreateTableInput {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	var in dynamodb.CreateTableInput
	require.NoError(t, json.Unmarshal(b, &in), "decoding %s", file)
	return &in
}

// clock is a test clock that moves one millisecond forward at each reading.
type clock struct{ ms atomic.Int64 }

func (c *clock) now() time.Time {
	return time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC).Add(time.Duration(c.ms.Add(1)) * time.Millisecond)
}

type fixture struct {
	svc    *favorites.Service
	client *dynamodb.Client
	table  string
}

func newService(t *testing.T) fixture {
	t.Helper()
	srv := dynamoseqtest.Start(t)
	client := srv.Client()
	table := srv.NewTable(t, tableFromFile(t, "testdata/table.json"))
	c := &clock{}
	svc, err := favorites.New(client, table, func(o *favorites.Options) { o.Now = c.now })
	require.NoError(t, err)
	return fixture{svc, client, table}
}

var ctx = context.Background()

// clip returns the clip time i seconds (plus a few nanoseconds, so that
// trailing zeros are not the same everywhere) after a fixed instant.
func clip(i int) time.Time {
	return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(i)*time.Second + time.Duration(i%3)*50*time.Millisecond)
}

func (f fixture) save(t *testing.T, user string, kind favorites.Kind, title string, at time.Time) favorites.Item {
	t.Helper()
	it := favorites.Item{
		Creator:      user,
		Title:        title,
		ThumbnailURL: "https://img.example.com/" + title + ".jpg",
		ContentURL:   "https://example.com/" + title,
		Kind:         kind,
		ClipTime:     at,
	}
	require.NoError(t, f.svc.Save(ctx, user, &it))
	return it
}

func (f fixture) tag(t *testing.T, user, name string) favorites.Tag {
	t.Helper()
	tag, err := f.svc.CreateTag(ctx, user, name)
	require.NoError(t, err)
	return tag
}

// all reads every page of a list, limit items at a time.
func all(t *testing.T, limit int32, list func(favorites.PageRequest) (favorites.Page, error)) []favorites.Item {
	t.Helper()
	var items []favorites.Item
	req := favorites.PageRequest{Limit: limit}
	for pages := 0; ; pages++ {
		require.Less(t, pages, 100, "too many pages")
		p, err := list(req)
		require.NoError(t, err)
		require.LessOrEqual(t, len(p.Items), int(limit), "page size")
		items = append(items, p.Items...)
		if p.Next == "" {
			return items
		}
		req.Cursor = p.Next
	}
}

func ids(items []favorites.Item) []int64 {
	out := []int64{}
	for _, it := range items {
		out = append(out, it.ID)
	}
	return out
}

func tagNames(tags []favorites.Tag) []string {
	out := []string{}
	for _, t := range tags {
		out = append(out, t.Name)
	}
	return out
}

// 1. Save an item of any kind.
func TestSave(t *testing.T) {
	t.Parallel()
	f := newService(t)
	for i, kind := range favorites.Kinds {
		it := f.save(t, "alice", kind, "saved "+string(kind), clip(i))
		assert.Equal(t, int64(i+1), it.ID, "ID of alice's item %d", i+1)
	}
	// Ids are per user; a user id holding the separator is its own user.
	bob := f.save(t, "al#ice", favorites.KindNote, "bob's", clip(0))
	assert.Equal(t, int64(1), bob.ID, "ID of the first item of another user")

	got := all(t, 100, func(r favorites.PageRequest) (favorites.Page, error) { return f.svc.List(ctx, "alice", r) })
	require.Len(t, got, len(favorites.Kinds))
	last := got[0]
	assert.Equal(t, favorites.Item{
		ID:           int64(len(favorites.Kinds)),
		Creator:      "alice",
		Title:        "saved location",
		ThumbnailURL: "https://img.example.com/saved location.jpg",
		ContentURL:   "https://example.com/saved location",
		Kind:         favorites.KindLocation,
		ClipTime:     clip(len(favorites.Kinds) - 1),
	}, last, "the newest item as listed")

	bad := []struct {
		user string
		it   *favorites.Item
	}{
		{"", &favorites.Item{Kind: favorites.KindNote, ClipTime: clip(0)}},
		{"alice", nil},
		{"alice", &favorites.Item{Kind: "gif", ClipTime: clip(0)}},
		{"alice", &favorites.Item{Kind: favorites.KindNote}},
	}
	for _, b := range bad {
		err := f.svc.Save(ctx, b.user, b.it)
		assert.ErrorIs(t, err, favorites.ErrInvalidArgument, "Save(%q, %+v)", b.user, b.it)
	}
}

// TestIDsInTheTable: the Counters of a user's ids live in the service's
// table, at sk COUNTER of the user's items and tags partitions, and no list
// returns them.
func TestIDsInTheTable(t *testing.T) {
	t.Parallel()
	f := newService(t)
	f.save(t, "al#ice", favorites.KindNote, "one", clip(0))
	f.save(t, "al#ice", favorites.KindNote, "two", clip(1))
	f.tag(t, "al#ice", "trip")
	for pk, want := range map[string]string{favorites.Key("FavoriteData", "al#ice"): "2", favorites.Key("Tag", "al#ice"): "1"} {
		out, err := f.client.GetItem(ctx, &dynamodb.GetItemInput{
			TableName: aws.String(f.table), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: favorites.CounterSK}},
		})
		require.NoError(t, err)
		assert.Equal(t, &types.AttributeValueMemberN{Value: want}, out.Item["value"], "counter item of %s", pk)
	}
	items := all(t, 10, func(r favorites.PageRequest) (favorites.Page, error) { return f.svc.List(ctx, "al#ice", r) })
	assert.Len(t, items, 2, "List")
	tags, err := f.svc.ListTags(ctx, "al#ice", favorites.TagsByName)
	require.NoError(t, err)
	assert.Len(t, tags, 1, "ListTags")
}

// 2. Remove an item and its tag links, atomically.
func TestRemove(t *testing.T) {
	t.Parallel()
	f := newService(t)
	keep := f.save(t, "alice", favorites.KindImage, "keep", clip(1))
	gone := f.save(t, "alice", favorites.KindImage, "gone", clip(2))
	red, blue := f.tag(t, "alice", "red"), f.tag(t, "alice", "blue")
	for _, tag := range []favorites.Tag{red, blue} {
		require.NoError(t, f.svc.AddTag(ctx, "alice", gone.ID, tag.ID))
	}
	require.NoError(t, f.svc.AddTag(ctx, "alice", keep.ID, red.ID))

	require.NoError(t, f.svc.Remove(ctx, "alice", gone.ID))
	list := all(t, 10, func(r favorites.PageRequest) (favorites.Page, error) { return f.svc.List(ctx, "alice", r) })
	assert.Equal(t, []int64{keep.ID}, ids(list), "List after Remove")
	byRed := all(t, 10, func(r favorites.PageRequest) (favorites.Page, error) { return f.svc.ListByTag(ctx, "alice", red.ID, r) })
	assert.Equal(t, []int64{keep.ID}, ids(byRed), "ListByTag(red) after Remove")
	byBlue := all(t, 10, func(r favorites.PageRequest) (favorites.Page, error) {
		return f.svc.ListByTag(ctx, "alice", blue.ID, r)
	})
	assert.Empty(t, byBlue, "ListByTag(blue) after Remove")
	_, err := f.svc.ItemTags(ctx, "alice", gone.ID)
	assert.ErrorIs(t, err, favorites.ErrNotFound, "ItemTags of a removed item")
	assert.ErrorIs(t, f.svc.Remove(ctx, "alice", gone.ID), favorites.ErrNotFound, "Remove twice")
	assert.ErrorIs(t, f.svc.Remove(ctx, "bob", keep.ID), favorites.ErrNotFound, "Remove of another user's item")
	assert.Equal(t, 0, f.orphanLinks(t, "alice"), "links left without their item")
}

// TestRemoveRacesAddTag removes items while other goroutines tag them: the
// version condition makes Remove start over instead of leaving a link
// behind.
func TestRemoveRacesAddTag(t *testing.T) {
	t.Parallel()
	f := newService(t)
	tags := []favorites.Tag{f.tag(t, "alice", "a"), f.tag(t, "alice", "b"), f.tag(t, "alice", "c")}
	const items = 12
	var wg sync.WaitGroup
	for i := range items {
		it := f.save(t, "alice", favorites.KindLink, fmt.Sprint("item ", i), clip(i))
		for _, tag := range tags {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := f.svc.AddTag(ctx, "alice", it.ID, tag.ID)
				if err != nil && !assert.ErrorIs(t, err, favorites.ErrNotFound) {
					return
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, f.svc.Remove(ctx, "alice", it.ID))
		}()
	}
	wg.Wait()
	list := all(t, 100, func(r favorites.PageRequest) (favorites.Page, error) { return f.svc.List(ctx, "alice", r) })
	assert.Empty(t, list, "items after Remove")
	assert.Equal(t, 0, f.orphanLinks(t, "alice"), "links left without their item")
}

// orphanLinks counts the links in user's partition whose item is gone,
// reading the table directly.
func (f fixture) orphanLinks(t *testing.T, user string) int {
	t.Helper()
	out, err := f.client.Query(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(f.table),
		KeyConditionExpression:    aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: favorites.Key("FavoriteData", user)}},
		ConsistentRead:            aws.Bool(true),
	})
	require.NoError(t, err)
	items := map[string]bool{}
	var links []string
	for _, m := range out.Items {
		sk := m["sk"].(*types.AttributeValueMemberS).Value
		if sk == favorites.CounterSK { // the Counter of the user's item ids
			continue
		}
		parts, err := favorites.SplitKey(sk)
		require.NoError(t, err)
		if len(parts) == 2 {
			items[parts[1]] = true
		} else {
			links = append(links, parts[1])
		}
	}
	n := 0
	for _, l := range links {
		if !items[l] {
			n++
		}
	}
	return n
}

// rawRows reads the item id of user and its links from the table directly.
func (f fixture) rawRows(t *testing.T, user string, id int64) []map[string]types.AttributeValue {
	t.Helper()
	out, err := f.client.Query(ctx, &dynamodb.QueryInput{
		TableName:              aws.String(f.table),
		KeyConditionExpression: aws.String("pk = :pk AND begins_with(sk, :sk)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: favorites.Key("FavoriteData", user)},
			":sk": &types.AttributeValueMemberS{Value: favorites.Key("Data", favorites.IDKey(id))},
		},
		ConsistentRead: aws.Bool(true),
	})
	require.NoError(t, err)
	return out.Items
}

// 3. List all items, newest clip time first, paginated.
func TestListNewestFirstPaginated(t *testing.T) {
	t.Parallel()
	f := newService(t)
	// Saved out of clip-time order; 450ms and 500ms would sort wrongly as
	// RFC 3339 strings with trailing zeros trimmed.
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clips := []time.Time{
		at.Add(500 * time.Millisecond), at, at.Add(450 * time.Millisecond), at.Add(time.Hour),
		at.Add(-time.Hour), at.Add(500*time.Millisecond + 1), at.Add(24 * time.Hour),
	}
	byClip := map[time.Time]int64{}
	for i, c := range clips {
		it := f.save(t, "alice", favorites.Kinds[i%len(favorites.Kinds)], fmt.Sprint("item ", i), c)
		byClip[c] = it.ID
	}
	f.save(t, "bob", favorites.KindNote, "not alice's", at.Add(48*time.Hour))

	got := all(t, 3, func(r favorites.PageRequest) (favorites.Page, error) { return f.svc.List(ctx, "alice", r) })
	require.Len(t, got, len(clips))
	for i := 1; i < len(got); i++ {
		if !got[i-1].ClipTime.After(got[i].ClipTime) {
			t.Errorf("List()[%d].ClipTime = %v, not after [%d] = %v", i-1, got[i-1].ClipTime, i, got[i].ClipTime)
		}
	}
	for _, it := range got {
		assert.Equal(t, byClip[it.ClipTime], it.ID, "ID of the item clipped at %v", it.ClipTime)
	}

	first, err := f.svc.List(ctx, "alice", favorites.PageRequest{Limit: 2})
	require.NoError(t, err)
	_, err = f.svc.List(ctx, "bob", favorites.PageRequest{Cursor: first.Next})
	assert.ErrorIs(t, err, favorites.ErrInvalidArgument, "alice's cursor used for bob")
	_, err = f.svc.List(ctx, "alice", favorites.PageRequest{Cursor: "not a cursor!"})
	assert.ErrorIs(t, err, favorites.ErrInvalidArgument, "a malformed cursor")
	_, err = f.svc.List(ctx, "alice", favorites.PageRequest{Limit: 101})
	assert.ErrorIs(t, err, favorites.ErrInvalidArgument, "Limit 101")
}

// 4. List items of one kind, newest first.
func TestListByKind(t *testing.T) {
	t.Parallel()
	f := newService(t)
	var images []int64
	for i := range 9 {
		kind := favorites.KindImage
		if i%3 != 0 {
			kind = favorites.Kinds[i%len(favorites.Kinds)]
		}
		it := f.save(t, "alice", kind, fmt.Sprint("item ", i), clip(i))
		if kind == favorites.KindImage {
			images = append([]int64{it.ID}, images...) // newest first
		}
	}
	got := all(t, 2, func(r favorites.PageRequest) (favorites.Page, error) {
		return f.svc.ListByKind(ctx, "alice", favorites.KindImage, r)
	})
	assert.Equal(t, images, ids(got), "ListByKind(image)")
	for _, it := range got {
		assert.Equal(t, favorites.KindImage, it.Kind)
	}
	none := all(t, 2, func(r favorites.PageRequest) (favorites.Page, error) {
		return f.svc.ListByKind(ctx, "alice", favorites.KindVoice, r)
	})
	assert.Empty(t, none, "ListByKind(voice)")
	_, err := f.svc.ListByKind(ctx, "alice", "gif", favorites.PageRequest{})
	assert.ErrorIs(t, err, favorites.ErrInvalidArgument)
}

// 5. Create, delete (with its links) and rename a tag.
func TestTagLifecycle(t *testing.T) {
	t.Parallel()
	f := newService(t)
	work := f.tag(t, "alice", "work")
	assert.Equal(t, int64(1), work.ID)
	fun := f.tag(t, "alice", "fun #1")
	assert.Equal(t, int64(2), fun.ID)
	assert.Equal(t, int64(1), f.tag(t, "bob", "work").ID, "bob's first tag")

	_, err := f.svc.CreateTag(ctx, "alice", "work")
	assert.ErrorIs(t, err, favorites.ErrTagExists, "CreateTag of an existing name")
	assert.EqualError(t, err, `favorites: Service.CreateTag: user "alice": a tag of that name exists: "work"`)
	_, err = f.svc.CreateTag(ctx, "alice", " ")
	assert.ErrorIs(t, err, favorites.ErrInvalidArgument, "CreateTag of a blank name")

	require.NoError(t, f.svc.RenameTag(ctx, "alice", work.ID, "job"))
	require.NoError(t, f.svc.RenameTag(ctx, "alice", work.ID, "job"), "rename to the same name")
	assert.ErrorIs(t, f.svc.RenameTag(ctx, "alice", work.ID, "fun #1"), favorites.ErrTagExists, "rename onto another tag's name")
	assert.ErrorIs(t, f.svc.RenameTag(ctx, "alice", 99, "x"), favorites.ErrNotFound, "rename a missing tag")
	again := f.tag(t, "alice", "work") // the old name is free again
	assert.Equal(t, []string{"fun #1", "job", "work"}, tagNames(f.listTags(t, "alice", favorites.TagsByName)))

	it := f.save(t, "alice", favorites.KindNote, "note", clip(0))
	require.NoError(t, f.svc.AddTag(ctx, "alice", it.ID, work.ID))
	require.NoError(t, f.svc.AddTag(ctx, "alice", it.ID, fun.ID))
	require.NoError(t, f.svc.DeleteTag(ctx, "alice", work.ID))
	rows := f.rawRows(t, "alice", it.ID)
	require.Len(t, rows, 2, "the item and one link after DeleteTag swept the other")
	assert.Equal(t, &types.AttributeValueMemberN{Value: "1"}, rows[0]["tagCount"], "tagCount after DeleteTag")
	tags, err := f.svc.ItemTags(ctx, "alice", it.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"fun #1"}, tagNames(tags), "ItemTags after DeleteTag")
	assert.Equal(t, []string{"fun #1", "work"}, tagNames(f.listTags(t, "alice", favorites.TagsByName)))
	_, err = f.svc.ListByTag(ctx, "alice", work.ID, favorites.PageRequest{})
	assert.ErrorIs(t, err, favorites.ErrNotFound, "ListByTag of a deleted tag")
	assert.ErrorIs(t, f.svc.DeleteTag(ctx, "alice", work.ID), favorites.ErrNotFound, "DeleteTag twice")
	assert.ErrorIs(t, f.svc.AddTag(ctx, "alice", it.ID, work.ID), favorites.ErrNotFound, "AddTag of a deleted tag")
	// The item's tag count went down with the sweep: the name can be reused
	// and the item tagged again.
	require.NoError(t, f.svc.RenameTag(ctx, "alice", again.ID, "job"))
	require.NoError(t, f.svc.AddTag(ctx, "alice", it.ID, again.ID))
	tags, err = f.svc.ItemTags(ctx, "alice", it.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"fun #1", "job"}, tagNames(tags))
}

func (f fixture) listTags(t *testing.T, user string, order favorites.TagOrder) []favorites.Tag {
	t.Helper()
	tags, err := f.svc.ListTags(ctx, user, order)
	require.NoError(t, err)
	return tags
}

// 6. List tags by name, by creation time and by last access time.
func TestListTags(t *testing.T) {
	t.Parallel()
	f := newService(t)
	for _, name := range []string{"banana", "Apple", "cherry", "apple pie"} {
		f.tag(t, "alice", name)
	}
	f.tag(t, "bob", "zzz")
	tests := []struct {
		order favorites.TagOrder
		want  []string
	}{
		{favorites.TagsByName, []string{"Apple", "apple pie", "banana", "cherry"}},
		{favorites.TagsByCreated, []string{"apple pie", "cherry", "Apple", "banana"}},
		{favorites.TagsByLastAccess, []string{"apple pie", "cherry", "Apple", "banana"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tagNames(f.listTags(t, "alice", tt.order)), "ListTags(%d)", tt.order)
	}
	// Opening a tag's items is an access.
	tags := f.listTags(t, "alice", favorites.TagsByName)
	for _, i := range []int{2, 0} { // banana, then Apple
		_, err := f.svc.ListByTag(ctx, "alice", tags[i].ID, favorites.PageRequest{})
		require.NoError(t, err)
	}
	byAccess := f.listTags(t, "alice", favorites.TagsByLastAccess)
	assert.Equal(t, []string{"Apple", "banana", "apple pie", "cherry"}, tagNames(byAccess), "ListTags(TagsByLastAccess) after access")
	assert.True(t, byAccess[0].LastAccessAt.After(byAccess[0].CreatedAt), "LastAccessAt %v, CreatedAt %v", byAccess[0].LastAccessAt, byAccess[0].CreatedAt)
	_, err := f.svc.ListTags(ctx, "alice", favorites.TagOrder(7))
	assert.ErrorIs(t, err, favorites.ErrInvalidArgument)
	none, err := f.svc.ListTags(ctx, "carol", favorites.TagsByName)
	require.NoError(t, err)
	assert.Empty(t, none)
}

// 7. Add and remove tags on an item; list an item's tags.
func TestItemTags(t *testing.T) {
	t.Parallel()
	f := newService(t)
	it := f.save(t, "alice", favorites.KindMusic, "song", clip(0))
	red, blue, green := f.tag(t, "alice", "red"), f.tag(t, "alice", "Blue"), f.tag(t, "alice", "green")
	for _, tag := range []favorites.Tag{red, blue, green, red} { // red twice: no-op
		require.NoError(t, f.svc.AddTag(ctx, "alice", it.ID, tag.ID))
	}
	tags, err := f.svc.ItemTags(ctx, "alice", it.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"Blue", "green", "red"}, tagNames(tags), "ItemTags")

	require.NoError(t, f.svc.RemoveTag(ctx, "alice", it.ID, green.ID))
	assert.ErrorIs(t, f.svc.RemoveTag(ctx, "alice", it.ID, green.ID), favorites.ErrNotFound, "RemoveTag twice")
	require.NoError(t, f.svc.RenameTag(ctx, "alice", red.ID, "crimson"))
	tags, err = f.svc.ItemTags(ctx, "alice", it.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"Blue", "crimson"}, tagNames(tags), "ItemTags after RemoveTag and RenameTag")

	assert.ErrorIs(t, f.svc.AddTag(ctx, "alice", 99, red.ID), favorites.ErrNotFound, "AddTag to a missing item")
	assert.ErrorIs(t, f.svc.AddTag(ctx, "alice", it.ID, 99), favorites.ErrNotFound, "AddTag of a missing tag")
	assert.ErrorIs(t, f.svc.AddTag(ctx, "bob", it.ID, red.ID), favorites.ErrNotFound, "AddTag to another user's item")
	_, err = f.svc.ItemTags(ctx, "alice", 99)
	assert.ErrorIs(t, err, favorites.ErrNotFound, "ItemTags of a missing item")
	untagged := f.save(t, "alice", favorites.KindMusic, "other", clip(1))
	tags, err = f.svc.ItemTags(ctx, "alice", untagged.ID)
	require.NoError(t, err)
	assert.Empty(t, tags, "ItemTags of an untagged item")
}

func TestAddTagLimit(t *testing.T) {
	t.Parallel()
	f := newService(t)
	it := f.save(t, "alice", favorites.KindFile, "busy", clip(0))
	tags := make([]favorites.Tag, favorites.MaxTagsPerItem+1)
	var wg sync.WaitGroup
	for i := range tags {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tag, err := f.svc.CreateTag(ctx, "alice", fmt.Sprint("t", i))
			assert.NoError(t, err)
			tags[i] = tag
		}()
	}
	wg.Wait()
	for _, tag := range tags[:favorites.MaxTagsPerItem] {
		require.NoError(t, f.svc.AddTag(ctx, "alice", it.ID, tag.ID))
	}
	err := f.svc.AddTag(ctx, "alice", it.ID, tags[favorites.MaxTagsPerItem].ID)
	assert.ErrorIs(t, err, favorites.ErrTooManyTags)
	assert.NoError(t, f.svc.AddTag(ctx, "alice", it.ID, tags[0].ID), "adding a tag the full item has")
	got, err := f.svc.ItemTags(ctx, "alice", it.ID)
	require.NoError(t, err)
	assert.Len(t, got, favorites.MaxTagsPerItem)
	// The item with all its links fits one transaction.
	require.NoError(t, f.svc.Remove(ctx, "alice", it.ID))
	assert.Equal(t, 0, f.orphanLinks(t, "alice"))
}

// 8. List the items under a tag, newest first; 9. of one kind under a tag.
func TestListByTag(t *testing.T) {
	t.Parallel()
	f := newService(t)
	trip, other := f.tag(t, "alice", "trip"), f.tag(t, "alice", "other")
	var underTrip, imagesUnderTrip []int64
	for i := range 10 {
		kind := []favorites.Kind{favorites.KindImage, favorites.KindVideo, favorites.KindLocation}[i%3]
		it := f.save(t, "alice", kind, fmt.Sprint("item ", i), clip(10-i)) // saved newest first
		if i%4 == 3 {
			require.NoError(t, f.svc.AddTag(ctx, "alice", it.ID, other.ID))
			continue
		}
		require.NoError(t, f.svc.AddTag(ctx, "alice", it.ID, trip.ID))
		underTrip = append(underTrip, it.ID)
		if kind == favorites.KindImage {
			imagesUnderTrip = append(imagesUnderTrip, it.ID)
		}
	}
	got := all(t, 3, func(r favorites.PageRequest) (favorites.Page, error) {
		return f.svc.ListByTag(ctx, "alice", trip.ID, r)
	})
	assert.Equal(t, underTrip, ids(got), "ListByTag(trip)")
	require.NotEmpty(t, got)
	assert.Equal(t, "item 0", got[0].Title, "the links carry the item")

	gotImages := all(t, 2, func(r favorites.PageRequest) (favorites.Page, error) {
		return f.svc.ListByTagAndKind(ctx, "alice", trip.ID, favorites.KindImage, r)
	})
	assert.Equal(t, imagesUnderTrip, ids(gotImages), "ListByTagAndKind(trip, image)")
	gotVoice := all(t, 2, func(r favorites.PageRequest) (favorites.Page, error) {
		return f.svc.ListByTagAndKind(ctx, "alice", trip.ID, favorites.KindVoice, r)
	})
	assert.Empty(t, gotVoice, "ListByTagAndKind(trip, voice)")

	_, err := f.svc.ListByTag(ctx, "alice", 99, favorites.PageRequest{})
	assert.ErrorIs(t, err, favorites.ErrNotFound, "ListByTag of a missing tag")
	_, err = f.svc.ListByTagAndKind(ctx, "alice", 99, favorites.KindImage, favorites.PageRequest{})
	assert.ErrorIs(t, err, favorites.ErrNotFound, "ListByTagAndKind of a missing tag")
	_, err = f.svc.ListByTag(ctx, "bob", trip.ID, favorites.PageRequest{})
	assert.ErrorIs(t, err, favorites.ErrNotFound, "ListByTag of another user's tag")
}

// 10. Search a user's items by words in the title.
func TestSearch(t *testing.T) {
	t.Parallel()
	f := newService(t)
	titles := []string{"Sunset at sea", "sunny day", "Sea shells", "C++ tips #1", "résumé draft", "Sunday market", "unsung"}
	byTitle := map[string]int64{}
	for i, title := range titles {
		byTitle[title] = f.save(t, "alice", favorites.KindNote, title, clip(i)).ID
	}
	f.save(t, "bob", favorites.KindNote, "Sunrise", clip(100))
	// Filler that never matches, so that pages of the search read past it.
	for i := range 12 {
		f.save(t, "alice", favorites.KindLink, fmt.Sprint("filler ", i), clip(20+i))
	}
	tests := []struct {
		query string
		want  []string // newest first
	}{
		{"sun", []string{"Sunday market", "sunny day", "Sunset at sea"}},
		{"SEA", []string{"Sea shells", "Sunset at sea"}},
		{"sea sun", []string{"Sunset at sea"}},
		{"tips 1", []string{"C++ tips #1"}},
		{"Résumé", []string{"résumé draft"}},
		{"moon", nil},
	}
	for _, tt := range tests {
		var want []int64
		for _, title := range tt.want {
			want = append(want, byTitle[title])
		}
		got := all(t, 1, func(r favorites.PageRequest) (favorites.Page, error) { return f.svc.Search(ctx, "alice", tt.query, r) })
		assert.Equal(t, want, nilIfEmpty(ids(got)), "Search(%q), one result a page", tt.query)
		got = all(t, 20, func(r favorites.PageRequest) (favorites.Page, error) { return f.svc.Search(ctx, "alice", tt.query, r) })
		assert.Equal(t, want, nilIfEmpty(ids(got)), "Search(%q)", tt.query)
	}
	_, err := f.svc.Search(ctx, "alice", " #! ", favorites.PageRequest{})
	assert.ErrorIs(t, err, favorites.ErrInvalidArgument, "Search with no words")
}

func nilIfEmpty(s []int64) []int64 {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	client := dynamoseqtest.Start(t).Client()
	_, err := favorites.New(nil, "Favorites")
	assert.ErrorIs(t, err, favorites.ErrInvalidArgument)
	_, err = favorites.New(client, "no")
	assert.Error(t, err, "a table name DynamoDB refuses")
}
