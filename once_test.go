package dynamoseq_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// onceAppender is SortKey.AppendOnce or Latest.AppendOnce.
type onceAppender func(ctx context.Context, name, key string, item any) (int64, bool, error)

// onceStrategy makes AppendOnce callers of one kind over one table: each
// call of make is another instance, as another process would have.
type onceStrategy struct {
	name  string
	table func(t *testing.T, client *dynamodb.Client) string
	make  func(t *testing.T, client dynamoseq.Client, table string, opts ...func(*dynamoseq.Table)) (onceAppender, dynamoseq.Sequencer)
}

var onceStrategies = []onceStrategy{
	{"SortKey", func(t *testing.T, c *dynamodb.Client) string {
		return dbtest.SortKeyTable(t, c, types.ScalarAttributeTypeN)
	},
		func(t *testing.T, client dynamoseq.Client, table string, opts ...func(*dynamoseq.Table)) (onceAppender, dynamoseq.Sequencer) {
			s, err := dynamoseq.NewSortKey(client, table, func(o *dynamoseq.SortKeyOptions) {
				o.ResolveTimeout = 5 * time.Second
				o.MaxDelay = 20 * time.Millisecond
				for _, fn := range opts {
					fn(&o.Table)
				}
			})
			require.NoError(t, err)
			return s.AppendOnce, s
		}},
	{"Latest", func(t *testing.T, c *dynamodb.Client) string {
		return dbtest.SortKeyTable(t, c, types.ScalarAttributeTypeN)
	},
		func(t *testing.T, client dynamoseq.Client, table string, opts ...func(*dynamoseq.Table)) (onceAppender, dynamoseq.Sequencer) {
			l, err := dynamoseq.NewLatest(client, table, func(o *dynamoseq.LatestOptions) {
				o.ResolveTimeout = 5 * time.Second
				o.MaxDelay = 20 * time.Millisecond
				for _, fn := range opts {
					fn(&o.Table)
				}
			})
			require.NoError(t, err)
			return l.AppendOnce, l
		}},
	{"Latest/partitionkey", func(t *testing.T, c *dynamodb.Client) string { return dbtest.CounterTable(t, c) },
		func(t *testing.T, client dynamoseq.Client, table string, opts ...func(*dynamoseq.Table)) (onceAppender, dynamoseq.Sequencer) {
			l, err := dynamoseq.NewLatest(client, table, func(o *dynamoseq.LatestOptions) {
				o.Layout = dynamoseq.LayoutPartitionKey{}
				o.ResolveTimeout = 5 * time.Second
				o.MaxDelay = 20 * time.Millisecond
				for _, fn := range opts {
					fn(&o.Table)
				}
			})
			require.NoError(t, err)
			return l.AppendOnce, l
		}},
}

func body(b string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"body": &types.AttributeValueMemberS{Value: b}}
}

// keyedInvoice is an item whose attributes are those of a map in another order.
type keyedInvoice struct {
	Body   string `dynamodbav:"body"`
	Amount int    `dynamodbav:"amount"`
}

// TestAppendOnce: a key names its first call's number; the same key and
// content replays it (the content compared whatever its form), other
// content is ErrKeyReused, a key is per sequence, and bad keys are
// refused. The items stored are what the first calls sent.
func TestAppendOnce(t *testing.T) {
	t.Parallel()
	for _, st := range onceStrategies {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			client := dbtest.Client(t)
			table := st.table(t, client)
			appendOnce, seq := st.make(t, client, table)

			first := map[string]types.AttributeValue{
				"amount": &types.AttributeValueMemberN{Value: "42"},
				"body":   &types.AttributeValueMemberS{Value: "a"},
			}
			n, replayed, err := appendOnce(ctx, "inv", "k1", first)
			require.NoError(t, err)
			assert.Equal(t, int64(1), n, "first call's number")
			assert.False(t, replayed, "the first call is no replay")

			n, replayed, err = appendOnce(ctx, "inv", "k1", keyedInvoice{Amount: 42, Body: "a"})
			require.NoError(t, err)
			assert.Equal(t, int64(1), n, "a replay's number")
			assert.True(t, replayed, "the same key and content is a replay")

			_, _, err = appendOnce(ctx, "inv", "k1", body("b"))
			require.ErrorIs(t, err, dynamoseq.ErrKeyReused)
			var e *dynamoseq.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, table, e.Table, "Error.Table")
			assert.Equal(t, "inv", e.Sequence, "Error.Sequence")

			n, replayed, err = appendOnce(ctx, "inv", "k2", body("b"))
			require.NoError(t, err)
			assert.Equal(t, int64(2), n, "a second key's number")
			assert.False(t, replayed)

			n, replayed, err = appendOnce(ctx, "inv", "k1", first)
			require.NoError(t, err)
			assert.Equal(t, int64(1), n, "a replay after another call")
			assert.True(t, replayed, "a replay after another call")

			n, replayed, err = appendOnce(ctx, "other", "k1", body("c"))
			require.NoError(t, err)
			assert.Equal(t, int64(1), n, "the same key on another sequence is another call")
			assert.False(t, replayed)

			for _, key := range []string{"", strings.Repeat("x", 2048), "a\x1fb", "\xff"} {
				_, _, err = appendOnce(ctx, "inv", key, body("d"))
				assert.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "key %.20q", key)
			}
			dynamoseqtest.CheckSequence(t, seq, "inv", "body", map[string]int64{"a": 1, "b": 2})
			n, err = seq.Next(ctx, "inv")
			require.NoError(t, err)
			assert.Equal(t, int64(3), n, "a call without a key after the keyed ones")
		})
	}
}

// TestAppendOnceWindow: a key names its number for KeyWindow by the
// library's clock, whatever TTL has deleted or not; after it, the key
// starts a new call, whatever its content.
func TestAppendOnceWindow(t *testing.T) {
	t.Parallel()
	for _, st := range onceStrategies[:2] {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			client := dbtest.Client(t)
			table := st.table(t, client)
			var mu sync.Mutex
			now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
			clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); now = now.Add(d) }
			appendOnce, _ := st.make(t, client, table, func(o *dynamoseq.Table) {
				o.KeyWindow = time.Hour
				dynamoseq.SetKeyClock(o, clock)
			})
			n, _, err := appendOnce(ctx, "inv", "k", body("a"))
			require.NoError(t, err)
			require.Equal(t, int64(1), n)

			advance(59 * time.Minute)
			n, replayed, err := appendOnce(ctx, "inv", "k", body("a"))
			require.NoError(t, err)
			assert.Equal(t, int64(1), n, "inside the window")
			assert.True(t, replayed, "inside the window")

			advance(2 * time.Minute) // the window ended (the item's TTL is not due yet to DynamoDB)
			n, replayed, err = appendOnce(ctx, "inv", "k", body("b"))
			require.NoError(t, err)
			assert.Equal(t, int64(2), n, "after the window the key is free")
			assert.False(t, replayed, "after the window")
		})
	}
}

// onceAnswer is what one AppendOnce or NextOnce caller was told.
type onceAnswer struct {
	n        int64
	replayed bool
}

// sendKeys has goroutines callers each send every one of keys, in an
// order of their own, and calls again after an error until an answer; it
// returns every answer by key.
func sendKeys(t *testing.T, goroutines int, keys []string, call func(g int, key string) (int64, bool, error)) map[string][]onceAnswer {
	t.Helper()
	var mu sync.Mutex
	got := map[string][]onceAnswer{}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range keys {
				key := keys[(i+g)%len(keys)]
				for attempt := 1; ; attempt++ {
					n, replayed, err := call(g, key)
					if err == nil {
						mu.Lock()
						got[key] = append(got[key], onceAnswer{n, replayed})
						mu.Unlock()
						break
					}
					_, later := dynamoseq.RetryAfter(err)
					if attempt == 20 || !errors.Is(err, dynamoseq.ErrUnknownOutcome) && !later {
						t.Errorf("call %d with key %s: %v", attempt, key, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	return got
}

// checkAnswers requires that every caller of a key was told one number,
// that distinct keys got distinct numbers, and that at most one caller of
// a key (exactly one when firstKnown) was told it was the first. It
// returns the number of each key.
func checkAnswers(t *testing.T, got map[string][]onceAnswer, callers int, firstKnown bool) map[string]int64 {
	t.Helper()
	told := map[string]int64{}
	owner := map[int64]string{}
	for key, answers := range got {
		require.Len(t, answers, callers, "answers for key %s", key)
		firsts := 0
		for _, a := range answers {
			assert.Equal(t, answers[0].n, a.n, "the numbers told for key %s", key)
			if !a.replayed {
				firsts++
			}
		}
		if firstKnown {
			assert.Equal(t, 1, firsts, "callers of key %s told they were first", key)
		} else {
			assert.LessOrEqual(t, firsts, 1, "callers of key %s told they were first", key)
		}
		if other, ok := owner[answers[0].n]; ok {
			t.Errorf("number %d told for keys %s and %s", answers[0].n, other, key)
		}
		owner[answers[0].n], told[key] = key, answers[0].n
	}
	return told
}

func keysOf(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("req-%02d", i)
	}
	return keys
}

// TestAppendOnceConcurrent: 16 goroutines over 4 instances (as 4
// processes) send the same 24 keys at once, each key's body being the key:
// one number per key, told to all 16, one of them told it was first, and
// the sequence gap-free with each body stored once.
func TestAppendOnceConcurrent(t *testing.T) {
	t.Parallel()
	for _, st := range onceStrategies[:2] {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			client := dbtest.Client(t)
			table := st.table(t, client)
			var fns []onceAppender
			var seq dynamoseq.Sequencer
			for range 4 {
				fn, s := st.make(t, dbtest.Client(t), table)
				fns, seq = append(fns, fn), s
			}
			keys := keysOf(24)
			got := sendKeys(t, 16, keys, func(g int, key string) (int64, bool, error) {
				return fns[g%4](context.Background(), "inv", key, body(key))
			})
			told := checkAnswers(t, got, 16, true)
			dynamoseqtest.CheckSequence(t, seq, "inv", "body", told)
		})
	}
}

// TestAppendOnceBigBatch: 150 callers with keys of their own at once, and
// 150 calls without: batches of keyed calls fit a transaction (at most 50
// calls with a key item each), and every caller gets its own number.
func TestAppendOnceBigBatch(t *testing.T) {
	t.Parallel()
	for _, st := range onceStrategies[:2] {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			client := dbtest.Client(t)
			appendOnce, seq := st.make(t, client, st.table(t, client))
			keys := keysOf(150)
			got := fanOut(t, 300, 1, func(g, _ int) (int64, error) {
				if g%2 == 1 {
					return seq.Next(context.Background(), "inv")
				}
				n, replayed, err := appendOnce(context.Background(), "inv", keys[g/2], body(keys[g/2]))
				if err == nil && replayed {
					err = fmt.Errorf("key %s replayed on its first call", keys[g/2])
				}
				return n, err
			})
			var all []int64
			for _, ns := range got {
				all = append(all, ns...)
			}
			requireExactly(t, all, 1, 300)
		})
	}
}

// TestAppendOnceLostAnswers: a third of the answers are lost below the
// SDK (which sends again), and the library resends what the SDK gave up
// on; callers left with ErrUnknownOutcome call again with their key. Each
// key still names one number, stored once.
func TestAppendOnceLostAnswers(t *testing.T) {
	t.Parallel()
	for _, st := range onceStrategies[:2] {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			table := st.table(t, dbtest.Client(t))
			var fns []onceAppender
			var seq dynamoseq.Sequencer
			var fts []*dynamoseqtest.FaultTransport
			for i := range 4 {
				ft := dynamoseqtest.NewFaultTransport(dynamoseqtest.Faults{LoseAnswers: 0.3, Seed: uint64(i + 1)})
				fn, s := st.make(t, lossyClient(t, ft), table)
				fns, seq, fts = append(fns, fn), s, append(fts, ft)
			}
			keys := keysOf(16)
			got := sendKeys(t, 16, keys, func(g int, key string) (int64, bool, error) {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				return fns[g%4](ctx, "inv", key, body(key))
			})
			told := checkAnswers(t, got, 16, false)
			dynamoseqtest.CheckSequence(t, seq, "inv", "body", told)
			lost := int64(0)
			for _, ft := range fts {
				lost += ft.LostAnswers()
			}
			assert.Positive(t, lost, "answers lost")
			t.Logf("%d answers lost", lost)
		})
	}
}

// TestAppendOnceOnServiceModel: the concurrent keys on the service model,
// with its latency, capacity, throttles and transaction conflicts.
func TestAppendOnceOnServiceModel(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{Seed: 3}))
	table := srv.NewTable(t, dynamoseq.SortKeyTable("once"))
	st := onceStrategies[0]
	var fns []onceAppender
	var seq dynamoseq.Sequencer
	for range 4 {
		fn, s := st.make(t, srv.Client(), table)
		fns, seq = append(fns, fn), s
	}
	keys := keysOf(24)
	got := sendKeys(t, 16, keys, func(g int, key string) (int64, bool, error) {
		return fns[g%4](context.Background(), "inv", key, body(key))
	})
	told := checkAnswers(t, got, 16, true)
	dynamoseqtest.CheckSequence(t, seq, "inv", "body", told)
	m := srv.ModelStats()
	t.Logf("model: %d requests, %.0f write units, %d throttled, %d conflicts", m.Requests, m.WriteUnits, m.Throttled, m.Conflicts)
}

// TestAppendOnceNoTransactions: without transactions the item and its key
// cannot be stored together: refused.
func TestAppendOnceNoTransactions(t *testing.T) {
	t.Parallel()
	s, _, _ := newSortKey(t, func(o *dynamoseq.SortKeyOptions) { o.NoTransactions = true })
	_, _, err := s.AppendOnce(context.Background(), "inv", "k", nil)
	require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument)
	n, err := s.Next(context.Background(), "inv")
	require.NoError(t, err)
	assert.Equal(t, int64(1), n, "the refused call stored nothing")
}

// TestNextOnce: a Counter's key names its first number; a replay takes a
// number it leaves as a gap. 16 goroutines sending the same keys over 4
// Counters each get one number per key.
func TestNextOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, client, table := newCounter(t)
	n, replayed, err := c.NextOnce(ctx, "orders", "k1")
	require.NoError(t, err)
	assert.Equal(t, int64(1), n)
	assert.False(t, replayed)
	n, replayed, err = c.NextOnce(ctx, "orders", "k1")
	require.NoError(t, err)
	assert.Equal(t, int64(1), n, "a replay")
	assert.True(t, replayed, "a replay")
	cur, err := c.Current(ctx, "orders")
	require.NoError(t, err)
	assert.Equal(t, int64(2), cur, "the replay's number is a gap")
	_, _, err = c.NextOnce(ctx, "orders", "")
	assert.ErrorIs(t, err, dynamoseq.ErrInvalidArgument)

	var counters []*dynamoseq.Counter
	for range 4 {
		c, err := dynamoseq.NewCounter(dbtest.Client(t), table)
		require.NoError(t, err)
		counters = append(counters, c)
	}
	got := sendKeys(t, 16, keysOf(24), func(g int, key string) (int64, bool, error) {
		return counters[g%4].NextOnce(ctx, "many", key)
	})
	told := checkAnswers(t, got, 16, true)
	dynamoseqtest.CheckSequence(t, counters[0], "many", "", told)
	_ = client
}

// TestIDMinterOnceAcrossPeriods: a key sent on New Year's Eve and again
// after midnight names the first ID, over a Counter, a Block and a SortKey.
func TestIDMinterOnceAcrossPeriods(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var mu sync.Mutex
	now := time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	c, _, _ := newCounter(t)
	b := newBlock(t, c, 10)
	var minters []func(key string) (string, bool, error)
	for _, seq := range []any{c, b} {
		var m *dynamoseq.IDMinter
		var err error
		switch s := seq.(type) {
		case *dynamoseq.Counter:
			m, err = dynamoseq.NewIDMinter(s, yearly, dynamoseq.Yearly, func(o *dynamoseq.IDMinterOptions) { o.Now = clock })
		case *dynamoseq.Block:
			m, err = dynamoseq.NewIDMinter(s, yearly, dynamoseq.Yearly, func(o *dynamoseq.IDMinterOptions) { o.Now = clock })
		}
		require.NoError(t, err)
		minters = append(minters, func(key string) (string, bool, error) { return m.NextOnce(ctx, fmt.Sprintf("%T", seq), key) })
	}
	client := dbtest.Client(t)
	sm := newSortKeyMinter(t, client, dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN), clock)
	minters = append(minters, func(key string) (string, bool, error) { return sm.AppendOnce(ctx, "acme", key, body(key)) })

	for i, mint := range minters {
		mu.Lock()
		now = time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC)
		mu.Unlock()
		first, replayed, err := mint("k")
		require.NoError(t, err, "minter %d", i)
		require.False(t, replayed)
		mu.Lock()
		now = now.Add(2 * time.Second)
		mu.Unlock()
		again, replayed, err := mint("k")
		require.NoError(t, err, "minter %d", i)
		assert.Equal(t, first, again, "minter %d: the ID after midnight", i)
		assert.True(t, replayed, "minter %d", i)
		other, _, err := mint("k2")
		require.NoError(t, err)
		assert.NotEqual(t, first[:len(first)-6], other[:len(other)-6], "minter %d: a new key after midnight is in the new year (%s, %s)", i, first, other)
	}
}

func init() {
	helpers["once"] = func(t *testing.T) {
		// 4 goroutines of this process send every key of KEYS, each in
		// an order of its own, by STRATEGY's AppendOnce or NextOnce.
		table, keys := os.Getenv("TABLE"), keysOf(16)
		var call func(key string) (int64, bool, error)
		switch os.Getenv("STRATEGY") {
		case "SortKey":
			s, err := dynamoseq.NewSortKey(dbtest.Client(t), table)
			require.NoError(t, err)
			call = func(key string) (int64, bool, error) {
				return s.AppendOnce(context.Background(), "inv", key, body(key))
			}
		case "Counter":
			c, err := dynamoseq.NewCounter(dbtest.Client(t), table)
			require.NoError(t, err)
			call = func(key string) (int64, bool, error) { return c.NextOnce(context.Background(), "inv", key) }
		}
		got := sendKeys(t, 4, keys, func(_ int, key string) (int64, bool, error) { return call(key) })
		for key, answers := range got {
			for _, a := range answers {
				fmt.Printf("once %s %d %t\n", key, a.n, a.replayed)
			}
		}
	}
}

// TestOnceProcesses: 4 OS processes of 4 goroutines each send the same 16
// keys: every key names one number in all 16 answers, one of them told it
// was first, and the SortKey sequence is gap-free with each body once.
func TestOnceProcesses(t *testing.T) {
	t.Parallel()
	for _, strategy := range []string{"SortKey", "Counter"} {
		t.Run(strategy, func(t *testing.T) {
			t.Parallel()
			client := dbtest.Client(t)
			var table string
			var seq dynamoseq.Sequencer
			if strategy == "SortKey" {
				table = dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN)
				seq, _ = dynamoseq.NewSortKey(client, table)
			} else {
				table = dbtest.CounterTable(t, client)
				seq, _ = dynamoseq.NewCounter(client, table)
			}
			outs := dbtest.RunProcesses(t, 4, "once", "TABLE="+table, "STRATEGY="+strategy)
			got := map[string][]onceAnswer{}
			for _, l := range outputLines(outs, "once ") {
				var key string
				var a onceAnswer
				_, err := fmt.Sscan(l, &key, &a.n, &a.replayed)
				require.NoError(t, err, "line %q", l)
				got[key] = append(got[key], a)
			}
			require.Len(t, got, 16, "keys answered")
			told := checkAnswers(t, got, 16, true)
			if strategy == "SortKey" {
				dynamoseqtest.CheckSequence(t, seq, "inv", "body", told)
			} else {
				dynamoseqtest.CheckSequence(t, seq, "inv", "", told)
			}
		})
	}
}
