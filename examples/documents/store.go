package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/dynamoseq/dynamoseq"
)

// Contract is the document the service keeps a history of.
type Contract struct {
	Customer string    `dynamodbav:"customer"`
	Amount   int64     `dynamodbav:"amount"` // in cents
	Status   string    `dynamodbav:"status"`
	EditedBy string    `dynamodbav:"edited_by"`
	EditedAt time.Time `dynamodbav:"edited_at"`
}

// Revision is one saved version of a contract.
type Revision struct {
	Version  int64
	Contract Contract
}

// ErrNoContract is returned for a contract id that was never saved.
var ErrNoContract = errors.New("documents: no such contract")

// Store is the repository of contracts with their full history, as a
// service would write it on top of dynamoseq.Latest: every Save is a new
// numbered version, Current is one read, History pages through the versions
// newest first (for an API that serves pages), Revisions ranges over them. Safe for concurrent use; saves of one contract from many
// goroutines are written together and never lose each other.
type Store struct {
	docs *dynamoseq.Latest
	now  func() time.Time
}

// NewStore returns a Store over table, a table with partition key "pk"
// (String) and sort key "sk" (Number), contracts under "CONTRACT#<id>".
func NewStore(client dynamoseq.Client, table string) (*Store, error) {
	docs, err := dynamoseq.NewLatest(client, table, func(o *dynamoseq.LatestOptions) {
		o.KeyPrefix = "CONTRACT#"
	})
	if err != nil {
		return nil, err
	}
	return &Store{docs: docs, now: time.Now}, nil
}

// Save stores c as the next version of contract id and returns the version.
func (s *Store) Save(ctx context.Context, id string, c Contract) (int64, error) {
	c.EditedAt = s.now().UTC().Truncate(time.Millisecond)
	v, err := s.docs.Append(ctx, id, c)
	if err != nil {
		return 0, fmt.Errorf("saving contract %s: %w", id, err)
	}
	return v, nil
}

// Current returns the newest version of contract id.
func (s *Store) Current(ctx context.Context, id string) (Revision, error) {
	var r Revision
	v, err := s.docs.GetLatest(ctx, id, &r.Contract)
	if errors.Is(err, dynamoseq.ErrNotFound) {
		return Revision{}, fmt.Errorf("%w: %s", ErrNoContract, id)
	}
	if err != nil {
		return Revision{}, fmt.Errorf("reading contract %s: %w", id, err)
	}
	r.Version = v
	return r, nil
}

// At returns version v of contract id.
func (s *Store) At(ctx context.Context, id string, v int64) (Revision, error) {
	r := Revision{Version: v}
	err := s.docs.Get(ctx, id, v, &r.Contract)
	if errors.Is(err, dynamoseq.ErrNotFound) {
		return Revision{}, fmt.Errorf("%w: %s version %d", ErrNoContract, id, v)
	}
	if err != nil {
		return Revision{}, fmt.Errorf("reading contract %s version %d: %w", id, v, err)
	}
	return r, nil
}

// History returns up to limit revisions of contract id older than cursor
// (0 for the newest), newest first, and the cursor of the next page (0 at
// the end): what a paginated "GET /contracts/{id}/history" serves.
func (s *Store) History(ctx context.Context, id string, cursor int64, limit int) ([]Revision, int64, error) {
	versions, next, err := s.docs.Versions(ctx, id, cursor, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("listing contract %s: %w", id, err)
	}
	revs := make([]Revision, len(versions))
	for i, v := range versions {
		revs[i].Version = v.Number
		if err := v.Decode(&revs[i].Contract); err != nil {
			return nil, 0, fmt.Errorf("contract %s version %d: %w", id, v.Number, err)
		}
	}
	return revs, next, nil
}

// Revisions ranges over the revisions of contract id, oldest first when
// oldestFirst is set, else newest first, each with a nil error; an error
// ends it. Underneath, Latest.All reads the versions a page at a time and
// dynamoseq.Decode decodes them.
func (s *Store) Revisions(ctx context.Context, id string, oldestFirst bool) iter.Seq2[Revision, error] {
	order := dynamoseq.NewestFirst
	if oldestFirst {
		order = dynamoseq.OldestFirst
	}
	return func(yield func(Revision, error) bool) {
		for v, err := range s.docs.All(ctx, id, order) {
			var c Contract
			if err == nil {
				err = v.Decode(&c)
			}
			if err != nil {
				yield(Revision{}, fmt.Errorf("listing contract %s: %w", id, err))
				return
			}
			if !yield(Revision{Version: v.Number, Contract: c}, nil) {
				return
			}
		}
	}
}
