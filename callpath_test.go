//go:build callpath

package dynamoseq_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// TestCallPath makes 5 warm-up calls and then CALLPATH_CALLS more, on one
// name of one CALLPATH_STRATEGY (sortkey, latest or counter: Append, or
// Next), for tools/callpath, which compares the statement counts of two
// runs to find the files every warm call runs code in (`make callpath`;
// docs/architecture.md).
func TestCallPath(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("CALLPATH_CALLS"))
	if err != nil {
		t.Fatalf("CALLPATH_CALLS = %q, want a count of calls", os.Getenv("CALLPATH_CALLS"))
	}
	client := dbtest.Client(t)
	var call func(context.Context) error
	switch strategy := os.Getenv("CALLPATH_STRATEGY"); strategy {
	case "sortkey":
		s, err := dynamoseq.NewSortKey(client, dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN))
		if err != nil {
			t.Fatal(err)
		}
		call = func(ctx context.Context) error {
			_, err := s.Append(ctx, "callpath", map[string]string{"title": "a ticket"})
			return err
		}
	case "latest":
		l, err := dynamoseq.NewLatest(client, dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN))
		if err != nil {
			t.Fatal(err)
		}
		call = func(ctx context.Context) error {
			_, err := l.Append(ctx, "callpath", map[string]string{"title": "a draft"})
			return err
		}
	case "counter":
		c, err := dynamoseq.NewCounter(client, dbtest.CounterTable(t, client))
		if err != nil {
			t.Fatal(err)
		}
		call = func(ctx context.Context) error { _, err := c.Next(ctx, "callpath"); return err }
	default:
		t.Fatalf("CALLPATH_STRATEGY = %q, want sortkey, latest or counter", strategy)
	}
	for range 5 + n {
		if err := call(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}
