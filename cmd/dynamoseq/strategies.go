package main

import (
	"context"

	"github.com/dynamoseq/dynamoseq"
)

func (e *env) newCounter(ctx context.Context) (*dynamoseq.Counter, error) {
	client, err := e.client(ctx)
	if err != nil {
		return nil, err
	}
	return dynamoseq.NewCounter(client, e.table, e.settings.counterOptions)
}

func (e *env) newSortKey(ctx context.Context) (*dynamoseq.SortKey, error) {
	client, err := e.client(ctx)
	if err != nil {
		return nil, err
	}
	return dynamoseq.NewSortKey(client, e.table, e.settings.sortKeyOptions)
}

func (e *env) newLatest(ctx context.Context) (*dynamoseq.Latest, error) {
	client, err := e.client(ctx)
	if err != nil {
		return nil, err
	}
	return dynamoseq.NewLatest(client, e.table, e.settings.latestOptions)
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
