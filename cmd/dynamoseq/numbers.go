package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/spf13/pflag"

	"github.com/dynamoseq/dynamoseq"
)

// numbers is the JSON answer of next.
type numbers struct {
	Table    string  `json:"table"`
	Sequence string  `json:"sequence"`
	Numbers  []int64 `json:"numbers"`
}

// value is the JSON answer of current and advance.
type value struct {
	Table       string `json:"table"`
	Sequence    string `json:"sequence"`
	Value       int64  `json:"value"`
	ID          string `json:"id,omitempty"` // current with --id-date-layout
	AlreadyPast bool   `json:"already_past,omitempty"`
}

// maxNext bounds next -n, which prints every number it takes.
const maxNext = 1_000_000

func nextCommand() *command {
	return &command{
		name:     "next",
		synopsis: "NAME",
		summary:  "Take the next numbers of a sequence",
		doc: "As the library hands them out: with --kind counter, Counter.NextN, one\n" +
			"UpdateItem for all -n numbers; with sortkey or latest, one Next (an empty\n" +
			"item) per number, and only with --write.\n" + nextWriteDoc,
		minArgs: 1, maxArgs: 1,
		define: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
			kind := defineKind(fs, kindCounter, kindSortKey, kindLatest)
			n := fs.Int64P("count", "n", 1, "how many numbers to take")
			period := definePeriod(fs)
			write := fs.Bool("write", false, writeFlagHelp)
			return func(ctx context.Context, e *env, args []string) error {
				if *n < 1 || *n > maxNext {
					return usageErrorf("-n is %d, want 1 to %d", *n, maxNext)
				}
				name, k, err := e.target(ctx, args[0], period, kind)
				if err != nil {
					return err
				}
				if k != kindCounter && !*write {
					return e.unasked(ctx, k, name, *n)
				}
				got, err := e.next(ctx, k, name, *n)
				if len(got) == 0 {
					return err
				}
				// Numbers taken before an error are printed all the same:
				// with sortkey and latest each one stands for a stored item.
				var text strings.Builder
				for _, v := range got {
					fmt.Fprintln(&text, v)
				}
				if perr := e.print(text.String(), numbers{Table: e.table, Sequence: name, Numbers: got}); perr != nil {
					return perr
				}
				return err
			}
		},
	}
}

// next takes n numbers of the sequence name.
func (e *env) next(ctx context.Context, kind, name string, n int64) ([]int64, error) {
	if kind == kindCounter {
		c, err := e.newCounter(ctx)
		if err != nil {
			return nil, err
		}
		first, err := c.NextN(ctx, name, n)
		if err != nil {
			return nil, err
		}
		// NextN's numbers are Step apart, and R*Step with an MREC table of
		// R Regions, where this Region hands out every R-th one.
		stride := max(e.step, 1)
		if mode, _ := e.globalMode(); mode == dynamoseq.GlobalTableMREC {
			stride *= int64(len(e.regionList()))
		}
		got := make([]int64, n)
		for i := range got {
			got[i] = first + int64(i)*stride
		}
		return got, nil
	}
	s, err := e.sequencer(ctx, kind)
	if err != nil {
		return nil, err
	}
	var got []int64
	for range n {
		v, err := s.Next(ctx, name)
		if err != nil {
			return got, err
		}
		got = append(got, v)
	}
	return got, nil
}

func currentCommand() *command {
	return &command{
		name:     "current",
		synopsis: "NAME",
		summary:  "Print the last number of a sequence",
		doc: "One strongly consistent read: Counter.Current, SortKey.Last, or the\n" +
			"version of Latest's 'latest' item. Exit status 1 when the sequence was never\n" +
			"used, with the closest names on stderr (one Scan page of at most 1000 items).\n",
		minArgs: 1, maxArgs: 1,
		define: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
			kind := defineKind(fs, kindCounter, kindSortKey, kindLatest)
			period := definePeriod(fs)
			idf := defineIDFormat(fs)
			return func(ctx context.Context, e *env, args []string) error {
				ids, err := idf.check(period, time.Now())
				if err != nil {
					return err
				}
				name, k, err := e.target(ctx, args[0], period, kind)
				if err != nil {
					return err
				}
				v, err := e.current(ctx, k, name)
				if err != nil {
					return e.notFound(ctx, k, args[0], name, err)
				}
				if ids != nil {
					return e.print(fmt.Sprintf("%d\t%s\n", v, ids(v)), value{Table: e.table, Sequence: name, Value: v, ID: ids(v)})
				}
				return e.print(fmt.Sprintln(v), value{Table: e.table, Sequence: name, Value: v})
			}
		},
	}
}

func (e *env) current(ctx context.Context, kind, name string) (int64, error) {
	switch kind {
	case kindSortKey:
		s, err := e.newSortKey(ctx)
		if err != nil {
			return 0, err
		}
		return s.Last(ctx, name)
	case kindLatest:
		l, err := e.newLatest(ctx)
		if err != nil {
			return 0, err
		}
		var item map[string]types.AttributeValue
		return l.GetLatest(ctx, name, &item)
	}
	c, err := e.newCounter(ctx)
	if err != nil {
		return 0, err
	}
	return c.Current(ctx, name)
}

func advanceCommand() *command {
	return &command{
		name:     "advance",
		synopsis: "NAME TO",
		summary:  "Move a counter forward past TO",
		doc: "Counter.AdvanceTo: one conditional UpdateItem, so that the next number is\n" +
			"above TO. It never moves a counter back: when the counter is already past TO\n" +
			"it says so on stderr and leaves it. It moves only a counter that exists\n" +
			"(Counter.Current first, one strongly consistent GetItem), so that a mistyped\n" +
			"NAME is not created: --create starts a new counter at TO.\n",
		minArgs: 2, maxArgs: 2, only: kindCounter,
		define: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
			period := definePeriod(fs)
			create := fs.Bool("create", false, "start the counter at TO when it does not exist")
			return func(ctx context.Context, e *env, args []string) error {
				to, err := strconv.ParseInt(args[1], 10, 64)
				if err != nil || to < 1 {
					return usageErrorf("TO is %q, want a positive whole number", args[1])
				}
				name, err := period.sequence(args[0], time.Now())
				if err != nil {
					return err
				}
				v, err := e.advance(ctx, name, to, *create)
				if err != nil {
					return e.notFound(ctx, kindCounter, args[0], name, err)
				}
				if v > to {
					e.note("table %q, sequence %q: the counter is already at %d, past %d: not moved (advance only moves forward)", e.table, name, v, to)
				}
				return e.print(fmt.Sprintln(v), value{Table: e.table, Sequence: name, Value: v, AlreadyPast: v > to})
			}
		},
	}
}

// advance moves the counter name forward to to, and returns its value. It
// refuses a counter that does not exist unless create.
func (e *env) advance(ctx context.Context, name string, to int64, create bool) (int64, error) {
	c, err := e.newCounter(ctx)
	if err != nil {
		return 0, err
	}
	if !create {
		_, err := c.Current(ctx, name)
		if errors.Is(err, dynamoseq.ErrNotFound) {
			return 0, e.fail("advance", name, fmt.Errorf("%w: advance moves only a counter that exists; --create starts it at %d", dynamoseq.ErrNotFound, to))
		}
		if err != nil {
			return 0, err
		}
	}
	return c.AdvanceTo(ctx, name, to)
}
