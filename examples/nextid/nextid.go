// Package nextid shows dynamoseq behind the "before save" id hook of teams
// that moved to DynamoDB from a framework with auto-increment keys and kept
// one small shared table for it:
//
//	NextId table: hash key NextKey (String), Number attribute NextId
//	{NextKey: "user",    NextId: 41}
//	{NextKey: "order",   NextId: 1290}
//	{NextKey: "comment", NextId: 0}
//
// Their hook read the item (GetItem), wrote value+1 back with a condition
// that the value had not changed (PutItem), started over when it had, and put
// value+1 in the new record's Id as a string: two round trips per id, and
// more under contention. IDs replaces the loop with a dynamoseq.Counter over
// the same table and attributes, which issues one UpdateItem with ADD. The
// stored value means the same thing in both (the last id handed out), so the
// table needs no migration and the two can even run side by side during a
// rollout.
//
// Repository stores records of any data type ("user", "order", "comment")
// whose ids come from the shared table; UserRepository is the one for users.
package nextid

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dynamoseq/dynamoseq"
)

// The shared table's layout, as the teams have it.
const (
	// KeyAttribute is the NextId table's hash key: the data type.
	KeyAttribute = "NextKey"
	// ValueAttribute is the Number attribute holding the last id handed out.
	ValueAttribute = "NextId"
)

// IDs hands out the ids of every data type from one shared NextId table.
//
// Next issues one UpdateItem (ADD NextId 1, ReturnValues UPDATED_NEW) on the
// item whose NextKey is the data type, creating it at 1 when the data type
// has never been used. Ids are unique across all processes sharing the
// table and increase in the order DynamoDB applied the writes; they are not
// gap-free: an id taken by a caller that then fails to save its record is
// lost. Cost: one round trip and one write unit per id.
//
// An IDs is safe for concurrent use.
type IDs struct {
	counter *dynamoseq.Counter
}

// NewIDs returns an IDs over the NextId table named table (hash key NextKey,
// Number attribute NextId). It makes no call to DynamoDB; it fails with
// dynamoseq.ErrInvalidArgument for a nil client or a bad table name.
func NewIDs(client dynamoseq.Client, table string) (*IDs, error) {
	c, err := dynamoseq.NewCounter(client, table, func(o *dynamoseq.CounterOptions) {
		o.PartitionKey = KeyAttribute
		o.ValueAttribute = ValueAttribute
	})
	if err != nil {
		return nil, err
	}
	return &IDs{counter: c}, nil
}

// Next returns the next id of dataType ("user", "order"...) in the decimal
// form the records store.
func (ids *IDs) Next(ctx context.Context, dataType string) (string, error) {
	v, err := ids.counter.Next(ctx, dataType)
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(v, 10), nil
}

// ErrExists reports that a record with the id being created is already in
// the table. Nothing was written.
var ErrExists = errors.New("nextid: a record with this id already exists")

// ErrNotFound reports that no record has the id asked for.
var ErrNotFound = errors.New("nextid: not found")

// Error is returned by every Repository method. It names the operation, the
// table, the data type and the id involved; errors.Is sees through it to
// ErrExists, ErrNotFound, dynamoseq's sentinels and the SDK's typed errors.
type Error struct {
	Op       string // "Repository.Create"
	Table    string // the records' table
	DataType string // "user"
	ID       string // the record's id, "" when none was assigned
	Err      error
}

func (e *Error) Error() string {
	// The sentinels carry the package prefix so that they read well alone;
	// it is not repeated here.
	cause := strings.TrimPrefix(e.Err.Error(), "nextid: ")
	return fmt.Sprintf("nextid: %s: table %q, %s %q: %s", e.Op, e.Table, e.DataType, e.ID, cause)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }
