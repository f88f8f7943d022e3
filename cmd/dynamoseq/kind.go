package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/spf13/pflag"

	"github.com/dynamoseq/dynamoseq"
)

// The strategies a --kind flag names.
const (
	kindCounter = "counter"
	kindBlock   = "block"
	kindSortKey = "sortkey"
	kindLatest  = "latest"
)

// kindRule is how a command that takes --kind, but create-table, chooses
// the kind when --kind is left out, for the kinds it takes (the --kind
// flag's own choices, so that the help offers only what the parser
// accepts); its help shows it.
func kindRule(kinds []string) string {
	takes := func(kind string) bool { return slices.Contains(kinds, kind) }
	var b strings.Builder
	b.WriteString(`
Without --kind, the kind is read from the table: one DescribeTable, and for a
NAME one strongly consistent GetItem of its Latest 'latest' item.
`)
	switch {
	case takes(kindCounter) && takes(kindLatest):
		b.WriteString(`  - A table with a partition key only holds counters, or Latest documents in
    the partitionkey layout: latest when NAME has a 'latest' item (NAME#latest)
    or when --layout partitionkey is given; counter otherwise.
`)
	case takes(kindLatest):
		b.WriteString(`  - A table with a partition key only holds Latest documents in the
    partitionkey layout: latest.
`)
	}
	if takes(kindLatest) {
		b.WriteString(`  - A table with a sort key holds SortKey sequences or Latest documents:
    latest when NAME has a 'latest' item (at sort key 0), sortkey otherwise`)
	} else {
		b.WriteString("  - A table with a sort key holds SortKey sequences: sortkey")
	}
	if takes(kindCounter) {
		b.WriteString(";\n    counter with --counter-sort-key-value")
	}
	b.WriteString(".\n")
	switch {
	case takes(kindBlock):
		b.WriteString("  - block shares counter's table and is never chosen: pass --kind block.\n")
	case takes(kindCounter):
		b.WriteString("  - A Block keeps its numbers in a counter, which this command reads as a\n    counter: block is not among its kinds.\n")
	}
	return b.String()
}

// kindChoice is the value of the --kind flag that defineKind defines, a
// choice of the kinds a command takes; the help reads them from it.
type kindChoice struct{ choice }

// kindFlag is a command's --kind: the strategy given on the command line,
// among those the command takes, or "" to read it from the table.
type kindFlag struct {
	given   string
	choices []string
}

// defineKind defines --kind on fs with the kinds the command takes; a value
// outside them is a usage error when the flags are parsed.
func defineKind(fs *pflag.FlagSet, choices ...string) *kindFlag {
	k := &kindFlag{choices: choices}
	fs.Var(&kindChoice{choice{p: &k.given, choices: choices}}, "kind", "the strategy of the table (default: read from the table, as said above)")
	return k
}

// of returns the kind of the sequence name ("" when the command has no
// NAME): --kind, or the one kindRule reads from the table. When it reads
// latest on a table without a sort key, it sets --layout partitionkey. A
// flag set on the command line that the kind does not read is a usage
// error (refuseUnread); with --kind, of makes no request to say so.
func (k *kindFlag) of(ctx context.Context, e *env, name string) (string, error) {
	if k.given != "" {
		return k.given, e.refuseUnread(k.given, "")
	}
	desc, err := e.describe(ctx, name)
	if err != nil {
		return "", err
	}
	return k.fromTable(ctx, e, desc, name)
}

// fromTable is --kind, or the kind kindRule reads from the table's
// description desc, for the sequence name ("" for none); as of, it
// refuses the flags that the kind does not read.
func (k *kindFlag) fromTable(ctx context.Context, e *env, desc *types.TableDescription, name string) (string, error) {
	if k.given != "" {
		return k.of(ctx, e, name) // no request
	}
	kind, err := k.read(ctx, e, desc, name)
	if err != nil {
		return "", err
	}
	return kind, e.refuseUnread(kind, ", the kind read from the table (--kind names another)")
}

// read is the kind kindRule reads from the table's description desc, for
// the sequence name ("" for none).
func (k *kindFlag) read(ctx context.Context, e *env, desc *types.TableDescription, name string) (string, error) {
	var err error
	takes := func(kind string) bool { return slices.Contains(k.choices, kind) }
	if len(desc.KeySchema) == 1 { // a partition key only
		latest := takes(kindLatest) && (e.layout == "partitionkey" || !takes(kindCounter))
		if !latest && takes(kindLatest) && name != "" {
			if latest, err = e.hasLatestItem(ctx, name, "partitionkey"); err != nil {
				return "", err
			}
		}
		if !latest {
			return kindCounter, nil
		}
		e.layout = "partitionkey"
		return kindLatest, nil
	}
	switch {
	case e.counterSortKey != "" && takes(kindCounter):
		return kindCounter, nil
	case name != "" && takes(kindLatest):
		latest, err := e.hasLatestItem(ctx, name, "sortkey")
		if err != nil || latest {
			return kindLatest, err
		}
	}
	return kindSortKey, nil
}

// target returns the sequence a command's NAME stands for, with --period,
// and its kind, with --kind or from the table.
func (e *env) target(ctx context.Context, name string, period *periodFlags, kind *kindFlag) (sequence, k string, err error) {
	if sequence, err = period.sequence(name, time.Now()); err != nil {
		return "", "", err
	}
	k, err = kind.of(ctx, e, sequence)
	return sequence, k, err
}

// describe reads the table's description with one DescribeTable, for the
// sequence name (in errors).
func (e *env) describe(ctx context.Context, name string) (*types.TableDescription, error) {
	client, err := e.client(ctx)
	if err != nil {
		return nil, err
	}
	out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(e.table)})
	var notFound *types.ResourceNotFoundException
	switch {
	case errors.As(err, &notFound):
		return nil, e.fail("DescribeTable", name, dynamoseq.ErrTableNotFound)
	case err != nil:
		return nil, e.fail("DescribeTable", name, fmt.Errorf("reading the table's key to choose the kind (pass --kind to skip it): %w", err))
	}
	return out.Table, nil
}

// hasLatestItem reports whether the document name has a 'latest' item in
// the layout ("sortkey" or "partitionkey"): one strongly consistent GetItem
// through Latest.GetLatest, which only reads with transactions on.
func (e *env) hasLatestItem(ctx context.Context, name, layout string) (bool, error) {
	client, err := e.client(ctx)
	if err != nil {
		return false, err
	}
	s := e.settings
	s.layout = layout
	l, err := dynamoseq.NewLatest(client, e.table, s.latestKeys)
	if err != nil {
		return false, err
	}
	_, err = l.GetLatest(ctx, name, nil)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, dynamoseq.ErrNotFound):
		return false, nil
	}
	return false, err
}
