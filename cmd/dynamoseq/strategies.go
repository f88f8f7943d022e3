package main

import (
	"context"
	"flag"
	"slices"
	"strings"

	"github.com/dynamoseq/dynamoseq"
)

// The strategies a --kind flag names.
const (
	kindCounter = "counter"
	kindBlock   = "block"
	kindSortKey = "sortkey"
	kindLatest  = "latest"
)

// kindFlag defines --kind on fs with the given default and choices.
func kindFlag(fs *flag.FlagSet, def string, choices ...string) *string {
	return fs.String("kind", def, "the strategy of the table: "+strings.Join(choices, ", "))
}

// checkKind returns a usage error when kind is not one of choices.
func checkKind(kind string, choices ...string) error {
	if !slices.Contains(choices, kind) {
		return usageErrorf("--kind is %q, want %s", kind, strings.Join(choices, ", "))
	}
	return nil
}

func (e *env) newCounter(ctx context.Context) (*dynamoseq.Counter, error) {
	client, err := e.client(ctx)
	if err != nil {
		return nil, err
	}
	return dynamoseq.NewCounter(client, e.table, e.settings.options)
}

func (e *env) newSortKey(ctx context.Context) (*dynamoseq.SortKey, error) {
	client, err := e.client(ctx)
	if err != nil {
		return nil, err
	}
	return dynamoseq.NewSortKey(client, e.table, e.settings.options)
}

func (e *env) newLatest(ctx context.Context) (*dynamoseq.Latest, error) {
	client, err := e.client(ctx)
	if err != nil {
		return nil, err
	}
	return dynamoseq.NewLatest(client, e.table, e.settings.options)
}

// sequencer returns the strategy kind (counter, sortkey or latest) as a
// Sequencer.
func (e *env) sequencer(ctx context.Context, kind string) (dynamoseq.Sequencer, error) {
	switch kind {
	case kindSortKey:
		return e.newSortKey(ctx)
	case kindLatest:
		return e.newLatest(ctx)
	}
	return e.newCounter(ctx)
}
