// Package tickets numbers the tickets of each project the way an issue
// tracker does: projectA-1, projectA-2, projectB-1... It is the repository
// type a service would write over dynamoseq.SortKey: the tickets of a
// project are one item collection (partition key "PROJECT#<project>"), each
// ticket's number is its sort key, and numbers have no gaps because a number
// exists only once its ticket is stored.
//
// The table: partition key "pk" (String), sort key "sk" (Number); Table
// returns its definition.
package tickets

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamoseq/dynamoseq"
)

// ErrNotFound: no such ticket.
var ErrNotFound = errors.New("tickets: not found")

// Ticket is one ticket of a project. Project and Number are its key; the
// other fields are stored as attributes of the ticket's item.
type Ticket struct {
	Project string    `dynamodbav:"-"`
	Number  int64     `dynamodbav:"-"`
	Title   string    `dynamodbav:"title"`
	Author  string    `dynamodbav:"author"`
	Opened  time.Time `dynamodbav:"opened"`
}

// ID is the ticket's readable id, such as "projectA-7".
func (t *Ticket) ID() string { return t.Project + "-" + strconv.FormatInt(t.Number, 10) }

// keyPrefix keeps the tickets apart from other items of a single table.
const keyPrefix = "PROJECT#"

// Repository stores tickets. It is safe for concurrent use, as the
// SortKey inside it is: the tickets opened at once in one project are
// written together, and several service instances may share the table.
type Repository struct {
	numbers *dynamoseq.SortKey
}

// Table is the definition of the table a Repository needs, for
// dynamoseq.EnsureTable or a test's table.
func Table(name string) *dynamodb.CreateTableInput {
	return dynamoseq.SortKeyTable(name, options)
}

// options are the dynamoseq options of the tickets' SortKey.
func options(o *dynamoseq.SortKeyOptions) { o.KeyPrefix = keyPrefix }

// NewRepository returns a Repository over table.
func NewRepository(client *dynamodb.Client, table string) (*Repository, error) {
	numbers, err := dynamoseq.NewSortKey(client, table, options)
	if err != nil {
		return nil, err
	}
	return &Repository{numbers: numbers}, nil
}

// Open stores t as the next ticket of t.Project and sets t.Number. Opened
// is set to the current time when zero.
func (r *Repository) Open(ctx context.Context, t *Ticket) error {
	if t.Project == "" || strings.Contains(t.Project, "-") {
		return fmt.Errorf("tickets: project %q: want a non-empty name without '-'", t.Project)
	}
	if t.Opened.IsZero() {
		t.Opened = time.Now().UTC()
	}
	n, err := r.numbers.Append(ctx, t.Project, t)
	if err != nil {
		return fmt.Errorf("tickets: open a ticket in %s: %w", t.Project, err)
	}
	t.Number = n
	return nil
}

// Get returns the ticket with the readable id ("projectA-7"): one strongly
// consistent GetItem, through SortKey.Get.
func (r *Repository) Get(ctx context.Context, id string) (*Ticket, error) {
	i := strings.LastIndexByte(id, '-')
	n, err := strconv.ParseInt(id[i+1:], 10, 64)
	if i <= 0 || err != nil || n < 1 {
		return nil, fmt.Errorf("tickets: %q is not a ticket id such as projectA-7", id)
	}
	t := &Ticket{Project: id[:i], Number: n}
	err = r.numbers.Get(ctx, t.Project, n, t)
	if errors.Is(err, dynamoseq.ErrNotFound) {
		return nil, fmt.Errorf("tickets: %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("tickets: get %s: %w", id, err)
	}
	return t, nil
}

// List returns the tickets of project, newest first, at most limit of them
// (1 to 1000) from below the ticket number before (0 for the newest), and
// the before of the next page, 0 when there is none: one strongly
// consistent Query per page, through SortKey.Items.
func (r *Repository) List(ctx context.Context, project string, before int64, limit int) ([]*Ticket, int64, error) {
	page, next, err := r.numbers.Items(ctx, project, before, limit, dynamoseq.NewestFirst)
	if err != nil {
		return nil, 0, fmt.Errorf("tickets: list %s: %w", project, err)
	}
	tickets := make([]*Ticket, 0, len(page))
	for _, v := range page {
		t := &Ticket{Project: project, Number: v.Number}
		if err := v.Decode(t); err != nil {
			return nil, 0, fmt.Errorf("tickets: read %s: %w", t.ID(), err)
		}
		tickets = append(tickets, t)
	}
	return tickets, next, nil
}

// Count returns how many tickets project has, which, numbers having no
// gaps, is the number of its last ticket.
func (r *Repository) Count(ctx context.Context, project string) (int64, error) {
	n, err := r.numbers.Last(ctx, project)
	if errors.Is(err, dynamoseq.ErrNotFound) {
		return 0, nil
	}
	return n, err
}
