package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/spf13/pflag"

	"github.com/dynamoseq/dynamoseq"
)

// document is one version of a Latest document, or one numbered item of a
// SortKey sequence, in the JSON answers of versions and get.
type document struct {
	Version int64          `json:"version"`
	ID      string         `json:"id,omitempty"` // with --id-date-layout
	Item    map[string]any `json:"item"`
}

func versionsCommand() *command {
	return &command{
		name:     "versions",
		synopsis: "NAME",
		summary:  "List the versions of a Latest document, or a SortKey sequence's items",
		doc: "Newest first, each with its attributes: Latest.Versions, one strongly\n" +
			"consistent Query per page of --page-size (with --layout partitionkey one\n" +
			"GetItem per version); with --kind sortkey, SortKey.Items, one Query a page.\n" +
			"Exit status 1 when NAME has none, with the closest names on stderr (one Scan\n" +
			"page of at most 1000 items).\n",
		minArgs: 1, maxArgs: 1,
		define: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
			kind := defineKind(fs, kindLatest, kindSortKey)
			pageSize := fs.Int("page-size", 100, "versions read per request, 1 to 1000")
			limit := fs.Int("max-items", 0, "stop after this many versions (default: all)")
			period := definePeriod(fs)
			idf := defineIDFormat(fs)
			return func(ctx context.Context, e *env, args []string) error {
				if *pageSize < 1 || *pageSize > 1000 {
					return usageErrorf("--page-size is %d, want 1 to 1000", *pageSize)
				}
				ids, err := idf.check(period, time.Now())
				if err != nil {
					return err
				}
				name, k, err := e.target(ctx, args[0], period, kind)
				if err != nil {
					return err
				}
				docs, err := e.versions(ctx, k, name, *pageSize, *limit)
				if err == nil && len(docs) == 0 {
					op := map[string]string{kindLatest: "Latest.Versions", kindSortKey: "SortKey.Items"}[k]
					err = e.fail(op, name, dynamoseq.ErrNotFound)
				}
				if err != nil {
					return e.notFound(ctx, k, args[0], name, err)
				}
				labelDocuments(docs, ids)
				return e.print(documentsText(docs), docs)
			}
		},
	}
}

// versions lists the versions of the document name (or the items of the
// SortKey sequence name), newest first, at most limit of them when limit is
// above 0.
func (e *env) versions(ctx context.Context, kind, name string, pageSize, limit int) ([]document, error) {
	var pages func(cursor int64) ([]dynamoseq.Item, int64, error)
	if kind == kindSortKey {
		s, err := e.newSortKey(ctx)
		if err != nil {
			return nil, err
		}
		pages = func(cursor int64) ([]dynamoseq.Item, int64, error) {
			items, next, err := s.Items(ctx, name, cursor, pageSize, dynamoseq.NewestFirst)
			page := make([]dynamoseq.Item, len(items))
			for i, it := range items {
				page[i] = dynamoseq.Item(it) // the same fields: a number and its attributes
			}
			return page, next, err
		}
	} else {
		l, err := e.newLatest(ctx)
		if err != nil {
			return nil, err
		}
		pages = func(before int64) ([]dynamoseq.Item, int64, error) { return l.Versions(ctx, name, before, pageSize) }
	}
	docs := []document{}
	for before := int64(0); ; {
		page, next, err := pages(before)
		if err != nil {
			return nil, err
		}
		for _, v := range page {
			if limit > 0 && len(docs) == limit {
				return docs, nil
			}
			docs = append(docs, document{Version: v.Number, Item: plainMap(v.Item)})
		}
		if next == 0 {
			return docs, nil
		}
		before = next
	}
}

func getCommand() *command {
	return &command{
		name:     "get",
		synopsis: "NAME [VERSION]",
		summary:  "Print a version of a Latest document, or a SortKey item",
		doc: "Latest.GetLatest, or Latest.Get with VERSION: one strongly consistent\n" +
			"GetItem. With --kind sortkey, the item under number VERSION of a SortKey\n" +
			"sequence (SortKey.Get), or under its last number (SortKey.Last first, a\n" +
			"Query). Text output: the number, a tab, the attributes as JSON. Exit status\n" +
			"1 when there is no such version, with the last one or the closest names on\n" +
			"stderr.\n",
		minArgs: 1, maxArgs: 2,
		define: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
			kind := defineKind(fs, kindLatest, kindSortKey)
			period := definePeriod(fs)
			idf := defineIDFormat(fs)
			return func(ctx context.Context, e *env, args []string) error {
				name, version, ids, err := getTarget(args, period, idf)
				if err != nil {
					return err
				}
				k, err := kind.of(ctx, e, name)
				if err != nil {
					return err
				}
				doc, err := e.get(ctx, k, name, version)
				if err != nil {
					return e.noVersion(ctx, k, args[0], name, version, err)
				}
				docs := []document{doc}
				labelDocuments(docs, ids)
				return e.print(documentsText(docs), docs[0])
			}
		},
	}
}

// getTarget returns the sequence and the number that get's NAME [VERSION]
// name, and the IDs of that sequence's numbers (nil without the Format).
// With the Format (--id-date-layout), VERSION is read as a readable ID
// first, whose date names the period, then as a number; without it, as a
// number, and a VERSION that is not one gets the Format that reads it, if
// a guess finds one.
func getTarget(args []string, period *periodFlags, idf *idFlags) (name string, version int64, ids func(int64) string, err error) {
	if len(args) == 2 && idf.given() && period.period != "" {
		seq, n, idErr := idf.sequenceOfID(period, args[0], args[1])
		if idErr == nil {
			ids, err := idf.idsOf(period, args[1])
			return seq, n, ids, err
		}
		if _, perr := strconv.ParseInt(args[1], 10, 64); perr != nil {
			return "", 0, nil, idErr
		}
	}
	if ids, err = idf.check(period, time.Now()); err != nil {
		return "", 0, nil, err
	}
	if len(args) == 2 {
		v, err := strconv.ParseInt(args[1], 10, 64)
		if err != nil || v < 1 {
			return "", 0, nil, notANumber(args[1], period)
		}
		version = v
	}
	name, err = period.sequence(args[0], time.Now())
	return name, version, ids, err
}

// labelDocuments sets the ID of each document, with ids.
func labelDocuments(docs []document, ids func(int64) string) {
	if ids == nil {
		return
	}
	for i := range docs {
		docs[i].ID = ids(docs[i].Version)
	}
}

// noVersion adds hints to err when version (0 for the last one) of the
// document or sequence name was not found: its last version when it has
// one (one more read), or the closest names.
func (e *env) noVersion(ctx context.Context, kind, typed, name string, version int64, err error) error {
	if version == 0 || !errors.Is(err, dynamoseq.ErrNotFound) {
		return e.notFound(ctx, kind, typed, name, err)
	}
	last, lerr := e.current(ctx, kind, name)
	if lerr != nil {
		return e.notFound(ctx, kind, typed, name, err)
	}
	return &hinted{err: err, hints: []string{fmt.Sprintf("%q has versions up to %d", name, last)}}
}

// get reads version of the document name, or its latest version when
// version is 0; or, with kind sortkey, the item numbered version.
func (e *env) get(ctx context.Context, kind, name string, version int64) (document, error) {
	if kind == kindSortKey {
		return e.getSortKey(ctx, name, version)
	}
	l, err := e.newLatest(ctx)
	if err != nil {
		return document{}, err
	}
	var item map[string]types.AttributeValue
	if version == 0 {
		version, err = l.GetLatest(ctx, name, &item)
	} else {
		err = l.Get(ctx, name, version, &item)
	}
	if err != nil {
		return document{}, err
	}
	return document{Version: version, Item: plainMap(item)}, nil
}

func (e *env) getSortKey(ctx context.Context, name string, n int64) (document, error) {
	s, err := e.newSortKey(ctx)
	if err != nil {
		return document{}, err
	}
	if n == 0 {
		if n, err = s.Last(ctx, name); err != nil {
			return document{}, err
		}
	}
	var item map[string]types.AttributeValue
	if err := s.Get(ctx, name, n, &item); err != nil {
		return document{}, err
	}
	return document{Version: n, Item: plainMap(item)}, nil
}

// documentsText is the text output of versions and get: the version, a tab
// and the attributes as one line of JSON.
func documentsText(docs []document) string {
	var b strings.Builder
	for _, d := range docs {
		item, _ := json.Marshal(d.Item) // plain values always marshal
		if d.ID != "" {
			fmt.Fprintf(&b, "%s\t%s\n", d.ID, item)
			continue
		}
		fmt.Fprintf(&b, "%d\t%s\n", d.Version, item)
	}
	return b.String()
}

// plainMap turns DynamoDB attribute values into values that encoding/json
// writes naturally: numbers stay numbers (json.Number, without rounding),
// sets become arrays, binary becomes base64.
func plainMap(m map[string]types.AttributeValue) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = plain(v)
	}
	return out
}

func plain(av types.AttributeValue) any {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return json.Number(v.Value)
	case *types.AttributeValueMemberB:
		return v.Value
	case *types.AttributeValueMemberBOOL:
		return v.Value
	case *types.AttributeValueMemberM:
		return plainMap(v.Value)
	case *types.AttributeValueMemberL:
		l := make([]any, len(v.Value))
		for i, e := range v.Value {
			l[i] = plain(e)
		}
		return l
	case *types.AttributeValueMemberSS:
		return v.Value
	case *types.AttributeValueMemberNS:
		l := make([]json.Number, len(v.Value))
		for i, n := range v.Value {
			l[i] = json.Number(n)
		}
		return l
	case *types.AttributeValueMemberBS:
		return v.Value
	}
	return nil // NULL
}
