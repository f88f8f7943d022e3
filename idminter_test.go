package dynamoseq_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync/atomic"
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

// testClock is a clock that tests set and advance. It counts its readings.
type testClock struct {
	ns    atomic.Int64 // Unix nanoseconds
	step  atomic.Int64 // added after each reading
	reads atomic.Int64
}

func newTestClock(t time.Time) *testClock {
	c := &testClock{}
	c.ns.Store(t.UnixNano())
	return c
}

func (c *testClock) Now() time.Time {
	c.reads.Add(1)
	return time.Unix(0, c.ns.Add(c.step.Load())-c.step.Load())
}

func (c *testClock) Set(t time.Time) { c.ns.Store(t.UnixNano()) }

// newMinter returns an IDMinter over a new Counter table, with clock as
// IDMinterOptions.Now.
func newMinter(t *testing.T, format dynamoseq.Format, period dynamoseq.Period, clock func() time.Time,
	counterOpt func(*dynamoseq.CounterOptions), minterOpt func(*dynamoseq.IDMinterOptions)) (*dynamoseq.IDMinter, *dynamoseq.Counter, *dynamodb.Client, string) {
	t.Helper()
	c, client, table := newCounter(t, optOrNothing(counterOpt))
	m, err := dynamoseq.NewIDMinter(c, format, period, func(o *dynamoseq.IDMinterOptions) {
		o.Now = clock
		optOrNothing(minterOpt)(o)
	})
	require.NoError(t, err)
	return m, c, client, table
}

func optOrNothing[T any](fn func(*T)) func(*T) {
	if fn == nil {
		return func(*T) {}
	}
	return fn
}

func mint(t *testing.T, m *dynamoseq.IDMinter, name string) string {
	t.Helper()
	id, err := m.Next(context.Background(), name)
	require.NoError(t, err)
	return id
}

func TestIDMinterMidnight(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		start        int64
		before, want []string
	}{
		{"start 1", 1, []string{"ORD-261121-000001", "ORD-261121-000002", "ORD-261121-000003"},
			[]string{"ORD-261122-000001", "ORD-261122-000002"}},
		{"start 1000", 1000, []string{"ORD-261121-001000", "ORD-261121-001001", "ORD-261121-001002"},
			[]string{"ORD-261122-001000", "ORD-261122-001001"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := newTestClock(time.Date(2026, 11, 21, 23, 59, 59, 999_000_000, time.UTC))
			m, c, _, _ := newMinter(t, orderFormat, dynamoseq.Daily, clock.Now,
				func(o *dynamoseq.CounterOptions) { o.Start = tt.start }, nil)
			var got []string
			for range tt.before {
				got = append(got, mint(t, m, "orders"))
			}
			assert.Equal(t, tt.before, got, "IDs at 23:59:59.999")

			clock.Set(time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC))
			got = nil
			for range tt.want {
				got = append(got, mint(t, m, "orders"))
			}
			assert.Equal(t, tt.want, got, "IDs after midnight")

			// The day before kept its counter.
			cur, err := c.Current(context.Background(), "orders#20261121")
			require.NoError(t, err)
			assert.Equal(t, tt.start+2, cur, "Current(orders#20261121)")
			cur, err = c.Current(context.Background(), "orders#20261122")
			require.NoError(t, err)
			assert.Equal(t, tt.start+1, cur, "Current(orders#20261122)")
		})
	}
}

// TestIDMinterReadsClockOnce mints with a clock that moves across midnight
// at every reading: an IDMinter that read it twice would pair one day's date
// with the other day's counter.
func TestIDMinterReadsClockOnce(t *testing.T) {
	t.Parallel()
	before := time.Date(2026, 11, 21, 23, 59, 59, 999_000_000, time.UTC)
	after := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	var reads atomic.Int64
	clock := func() time.Time {
		if reads.Add(1)%2 == 1 {
			return before
		}
		return after
	}
	m, c, _, _ := newMinter(t, orderFormat, dynamoseq.Daily, clock, nil, nil)
	reads.Store(0) // NewIDMinter reads it too
	const calls = 20
	var got []string
	for range calls {
		got = append(got, mint(t, m, "orders"))
	}
	assert.Equal(t, int64(calls), reads.Load(), "clock readings for %d calls of Next", calls)
	checkIDsMatchCounters(t, m, c, "orders", got, 1)
	assert.Equal(t, []string{"ORD-261121-000001", "ORD-261122-000001", "ORD-261121-000002", "ORD-261122-000002"}, got[:4])
}

// checkIDsMatchCounters checks that ids has no duplicate and that, for each
// date, the numbers of the IDs with that date are exactly start to the value
// of that period's counter: each ID's date is that of the counter it came
// from.
func checkIDsMatchCounters(t *testing.T, m *dynamoseq.IDMinter, c *dynamoseq.Counter, name string, ids []string, start int64) map[time.Time]int {
	t.Helper()
	byDate := make(map[time.Time][]int64)
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("ID %q minted twice", id)
		}
		seen[id] = true
		parts, err := m.Parse(id)
		require.NoError(t, err)
		byDate[parts.Date] = append(byDate[parts.Date], parts.Number)
	}
	counts := make(map[time.Time]int)
	for date, numbers := range byDate {
		slices.Sort(numbers)
		for i, n := range numbers {
			if n != start+int64(i) {
				t.Fatalf("numbers of %s, sorted: [%d] = %d, want %d (a duplicate, a gap, or an ID from another period's counter)", date.Format(time.DateOnly), i, n, start+int64(i))
			}
		}
		seq, err := m.SequenceAt(name, date)
		require.NoError(t, err)
		cur, err := c.Current(context.Background(), seq)
		require.NoError(t, err)
		if want := numbers[len(numbers)-1]; cur != want {
			t.Errorf("Current(%s) = %d, want %d, the last number of the %d IDs dated %s", seq, cur, want, len(numbers), date.Format(time.DateOnly))
		}
		counts[date] = len(numbers)
	}
	return counts
}

// TestIDMinterConcurrentAcrossBoundary mints from many goroutines while the
// clock moves across the end of a day, a month and a year.
func TestIDMinterConcurrentAcrossBoundary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		period dynamoseq.CalendarPeriod
		layout string
		old    time.Time // the date part of the IDs before the boundary
	}{
		{dynamoseq.Daily, "060102", time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)},
		{dynamoseq.Monthly, "0601", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
		{dynamoseq.Yearly, "2006", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.layout, func(t *testing.T) {
			t.Parallel()
			const goroutines, each = 8, 40
			// 1ms per reading: the clock crosses the new year after 100 of
			// the 320 readings, whatever the goroutines' interleaving.
			clock := newTestClock(time.Date(2026, 12, 31, 23, 59, 59, 900_000_000, time.UTC))
			clock.step.Store(int64(time.Millisecond))
			format := dynamoseq.Format{Prefix: "INV", DateLayout: tt.layout, Separator: "-", Width: 4}
			m, c, _, _ := newMinter(t, format, tt.period, clock.Now, nil, nil)
			clock.Set(time.Date(2026, 12, 31, 23, 59, 59, 900_000_000, time.UTC))

			all := slices.Concat(fanOut(t, goroutines, each, func(int, int) (string, error) {
				return m.Next(context.Background(), "invoices")
			})...)
			require.Len(t, all, goroutines*each)
			counts := checkIDsMatchCounters(t, m, c, "invoices", all, 1)
			require.Len(t, counts, 2, "periods with IDs: %v", counts)
			assert.Equal(t, 100, counts[tt.old], "IDs of the old %v period (one per clock reading before the boundary)", tt.period)
		})
	}
}

func TestIDMinterTTL(t *testing.T) {
	t.Parallel()
	tokyo := time.FixedZone("JST", 9*3600)
	now := time.Date(2026, 11, 22, 23, 30, 0, 0, tokyo) // 14:30 UTC
	tests := []struct {
		name      string
		period    dynamoseq.Period
		layout    string
		start     int64 // the Counter's Start: 1 uses ADD, others SET
		retention time.Duration
		seq       string
		expires   time.Time
	}{
		{"daily", dynamoseq.Daily, "060102", 1, 48 * time.Hour,
			"orders#20261122", time.Date(2026, 11, 25, 0, 0, 0, 0, tokyo)},
		{"daily, default retention, start 100", dynamoseq.Daily, "060102", 100, 0,
			"orders#20261122", time.Date(2026, 11, 30, 0, 0, 0, 0, tokyo)},
		{"monthly", dynamoseq.Monthly, "200601", 1, time.Hour,
			"orders#202611", time.Date(2026, 12, 1, 1, 0, 0, 0, tokyo)},
		{"yearly", dynamoseq.Yearly, "2006", 5, 30 * 24 * time.Hour,
			"orders#2026", time.Date(2027, 1, 31, 0, 0, 0, 0, tokyo)},
		{"sub-second retention rounds up", dynamoseq.Daily, "060102", 1, 1500 * time.Millisecond,
			"orders#20261122", time.Date(2026, 11, 23, 0, 0, 2, 0, tokyo)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			format := dynamoseq.Format{Prefix: "ORD", DateLayout: tt.layout, Separator: "-", Width: 6}
			m, _, client, table := newMinter(t, format, tt.period, func() time.Time { return now },
				func(o *dynamoseq.CounterOptions) { o.Start = tt.start; o.KeyPrefix = "SEQ#" },
				func(o *dynamoseq.IDMinterOptions) {
					o.Location = tokyo
					o.TTLAttribute = "expires"
					o.TTLRetention = tt.retention
				})
			for i := range int64(2) {
				id := mint(t, m, "orders")
				parts, err := m.Parse(id)
				require.NoError(t, err)
				assert.Equal(t, tt.start+i, parts.Number, "Parse(%q).Number", id)
			}
			item := getItem(t, client, table, "pk", "SEQ#"+tt.seq)
			require.NotNil(t, item, "counter item %q", "SEQ#"+tt.seq)
			require.IsType(t, &types.AttributeValueMemberN{}, item["expires"], "TTL attribute of %v", item)
			got, err := strconv.ParseInt(item["expires"].(*types.AttributeValueMemberN).Value, 10, 64)
			require.NoError(t, err)
			assert.Equal(t, tt.expires.Unix(), got, "TTL = %s, want %s", time.Unix(got, 0).In(tokyo), tt.expires)
			assert.Equal(t, strconv.FormatInt(tt.start+1, 10), item["value"].(*types.AttributeValueMemberN).Value, "counter value")
			exp, err := m.ExpiresAt(now)
			require.NoError(t, err)
			assert.Equal(t, tt.expires.Unix(), exp, "ExpiresAt")
		})
	}

	t.Run("no TTL attribute by default", func(t *testing.T) {
		t.Parallel()
		m, _, client, table := newMinter(t, orderFormat, dynamoseq.Daily, func() time.Time { return now }, nil, nil)
		mint(t, m, "orders")
		item := getItem(t, client, table, "pk", "orders#20261122")
		require.NotNil(t, item)
		assert.Len(t, item, 2, "attributes of %v", item)
	})
}

// TestIDMinterBlock: an IDMinter over a Block mints each period's IDs
// from the period's own ranges, and its leases set the period's TTL on
// the counter item.
func TestIDMinterBlock(t *testing.T) {
	t.Parallel()
	c, client, table := newCounter(t)
	b, err := dynamoseq.NewBlock(c, 10)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	clock := newTestClock(time.Date(2026, 11, 21, 23, 59, 59, 0, time.UTC))
	m, err := dynamoseq.NewIDMinter(b, orderFormat, dynamoseq.Daily, func(o *dynamoseq.IDMinterOptions) {
		o.Now = clock.Now
		o.TTLAttribute = "ttl"
	})
	require.NoError(t, err)
	assert.Equal(t, "ORD-261121-000001", mint(t, m, "orders"))
	assert.Equal(t, "ORD-261121-000002", mint(t, m, "orders"))
	clock.Set(time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC))
	assert.Equal(t, "ORD-261122-000001", mint(t, m, "orders"))

	want, err := m.ExpiresAt(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	item := getItem(t, client, table, "pk", "orders#20261121")
	require.NotNil(t, item, "the counter item of 21 November")
	ttl, ok := item["ttl"].(*types.AttributeValueMemberN)
	require.True(t, ok, "ttl attribute of %v: want a Number", item)
	assert.Equal(t, strconv.FormatInt(want, 10), ttl.Value, "ttl of the counter item of 21 November")

	// Its errors keep the sequence's.
	_, err = m.Next(context.Background(), "bad\xff")
	require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "UTF-8")
}

func TestIDMinterPeriodFunc(t *testing.T) {
	t.Parallel()
	// Eight-hour shifts starting at 06:00, 14:00 and 22:00 UTC.
	shifts := periodFunc(func(t time.Time) (start, end time.Time) {
		start = t.Add(-6 * time.Hour).Truncate(8 * time.Hour).Add(6 * time.Hour)
		return start, start.Add(8 * time.Hour)
	})
	clock := newTestClock(time.Date(2026, 11, 22, 13, 59, 59, 0, time.UTC))
	format := dynamoseq.Format{Prefix: "S", DateLayout: "060102T15", Separator: "-", Width: 3}
	m, c, client, table := newMinter(t, format, shifts, clock.Now, nil, func(o *dynamoseq.IDMinterOptions) { o.TTLAttribute = "ttl" })
	assert.Equal(t, "S-261122T13-001", mint(t, m, "pick"))
	assert.Equal(t, "S-261122T13-002", mint(t, m, "pick"))
	clock.Set(time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC))
	assert.Equal(t, "S-261122T14-001", mint(t, m, "pick"))

	cur, err := c.Current(context.Background(), "pick#20261122T060000Z")
	require.NoError(t, err)
	assert.Equal(t, int64(2), cur, "Current of the 06:00 shift")
	item := getItem(t, client, table, "pk", "pick#20261122T140000Z")
	require.NotNil(t, item)
	want := time.Date(2026, 11, 22, 22, 0, 0, 0, time.UTC).Add(7 * 24 * time.Hour).Unix()
	assert.Equal(t, strconv.FormatInt(want, 10), item["ttl"].(*types.AttributeValueMemberN).Value, "TTL of the 14:00 shift")
}

func TestIDMinterErrors(t *testing.T) {
	t.Parallel()
	now := func() time.Time { return time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC) }
	m, c, client, table := newMinter(t, orderFormat, dynamoseq.Daily, now,
		func(o *dynamoseq.CounterOptions) { o.MaxValue = 2 }, func(o *dynamoseq.IDMinterOptions) { o.TTLAttribute = "ttl" })
	ctx := context.Background()
	mint(t, m, "full")
	mint(t, m, "full")

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	missing, err := dynamoseq.NewIDMinter(mustCounter(t, client, "no_such_table"), orderFormat, dynamoseq.Daily,
		func(o *dynamoseq.IDMinterOptions) { o.Now = now })
	require.NoError(t, err)

	tests := []struct {
		name     string
		m        *dynamoseq.IDMinter
		ctx      context.Context
		seq      string
		want     error
		sequence string // in the message
	}{
		{"empty name", m, ctx, "", dynamoseq.ErrInvalidArgument, "empty sequence name"},
		{"invalid UTF-8", m, ctx, "bad\xff", dynamoseq.ErrInvalidArgument, `sequence "bad\xff#20261122"`},
		{"exhausted", m, ctx, "full", dynamoseq.ErrExhausted, `sequence "full#20261122"`},
		{"cancelled", m, cancelled, "orders", context.Canceled, `sequence "orders"`},
		{"missing table", missing, ctx, "orders", dynamoseq.ErrTableNotFound, `table "no_such_table", sequence "orders#20261122"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := tt.m.Next(tt.ctx, tt.seq)
			require.ErrorIs(t, err, tt.want)
			assert.Empty(t, id)
			assert.Contains(t, err.Error(), tt.sequence)
			var e *dynamoseq.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, "IDMinter.Next", e.Op)
		})
	}
	cur, err := c.Current(ctx, "full#20261122")
	require.NoError(t, err)
	assert.Equal(t, int64(2), cur, "Current after ErrExhausted")
	assert.Nil(t, getItem(t, client, table, "pk", "orders#20261122"), "nothing written")

	// Parse through the minter.
	_, err = m.Parse("ORD-261122-42")
	require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "IDMinter.Parse")
}

func mustCounter(t *testing.T, client dynamoseq.Client, table string, optFns ...func(*dynamoseq.CounterOptions)) *dynamoseq.Counter {
	t.Helper()
	c, err := dynamoseq.NewCounter(client, table, optFns...)
	require.NoError(t, err)
	return c
}

func TestNewIDMinterInvalid(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	c := mustCounter(t, client, "seq")
	custom := mustCounter(t, client, "seq", func(o *dynamoseq.CounterOptions) { o.PartitionKey = "id"; o.ValueAttribute = "n" })
	var nilCounter *dynamoseq.Counter
	backwards := periodFunc(func(t time.Time) (time.Time, time.Time) { return t.Add(time.Hour), t.Add(2 * time.Hour) })
	overlapping := periodFunc(func(t time.Time) (time.Time, time.Time) {
		start := t.Truncate(time.Hour)
		return start, start.Add(time.Hour + time.Minute)
	})
	tests := []struct {
		name    string
		seq     *dynamoseq.Counter
		format  dynamoseq.Format
		period  dynamoseq.Period
		opt     func(*dynamoseq.IDMinterOptions)
		message string
	}{
		{"nil counter", nilCounter, orderFormat, dynamoseq.Daily, nil, "nil *dynamoseq.Counter"},
		{"nil period", c, orderFormat, nil, nil, "nil Period"},
		{"not a calendar period", c, orderFormat, dynamoseq.CalendarPeriod(0), nil, "does not hold it"},
		{"no date layout", c, dynamoseq.Format{Prefix: "ORD", Separator: "-"}, dynamoseq.Daily, nil, "no DateLayout"},
		{"width", c, dynamoseq.Format{DateLayout: "060102", Separator: "-", Width: 20}, dynamoseq.Daily, nil, "width is 20"},
		{"digit separator", c, dynamoseq.Format{DateLayout: "060102", Separator: "1"}, dynamoseq.Daily, nil, "contains a digit"},
		{"month layout for days", c, dynamoseq.Format{DateLayout: "0601", Separator: "-"}, dynamoseq.Daily, nil, "IDs would repeat"},
		{"no year for days", c, dynamoseq.Format{DateLayout: "0102", Separator: "-"}, dynamoseq.Daily, nil, "IDs would repeat"},
		{"weekday for days", c, dynamoseq.Format{DateLayout: "Mon 0601", Separator: "-"}, dynamoseq.Daily, nil, "IDs would repeat"},
		{"no year for months", c, dynamoseq.Format{DateLayout: "Jan", Separator: "-"}, dynamoseq.Monthly, nil, "IDs would repeat"},
		{"hour layout for shifts", c, dynamoseq.Format{DateLayout: "15", Separator: "-"}, periodFunc(func(t time.Time) (time.Time, time.Time) {
			return t.Truncate(time.Hour), t.Truncate(time.Hour).Add(time.Hour)
		}), nil, "IDs would repeat"},
		{"varying width without separator", c, dynamoseq.Format{DateLayout: "2006-1-2"}, dynamoseq.Daily, nil, "fixed width"},
		{"period after the instant", c, orderFormat, backwards, nil, "does not hold it"},
		{"overlapping periods", c, dynamoseq.Format{DateLayout: "060102T1504", Separator: "-"}, overlapping, nil, "want consecutive periods"},
		{"negative retention", c, orderFormat, dynamoseq.Daily, func(o *dynamoseq.IDMinterOptions) {
			o.TTLAttribute = "ttl"
			o.TTLRetention = -time.Hour
		}, "TTLRetention is -1h0m0s"},
		{"TTL on the partition key", c, orderFormat, dynamoseq.Daily, func(o *dynamoseq.IDMinterOptions) { o.TTLAttribute = "pk" }, `TTLAttribute is "pk", the Counter's partition key`},
		{"TTL on the value", c, orderFormat, dynamoseq.Daily, func(o *dynamoseq.IDMinterOptions) { o.TTLAttribute = "value" }, `TTLAttribute is "value", the Counter's value attribute`},
		{"TTL on the counter's custom value", custom, orderFormat, dynamoseq.Daily, func(o *dynamoseq.IDMinterOptions) { o.TTLAttribute = "n" }, `the Counter's value attribute`},
		{"TTLRetention without TTLAttribute", c, orderFormat, dynamoseq.Daily, func(o *dynamoseq.IDMinterOptions) { o.TTLRetention = time.Hour }, "TTLRetention is 1h0m0s, set without TTLAttribute"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := dynamoseq.NewIDMinter(tt.seq, tt.format, tt.period, optOrNothing(tt.opt))
			require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument)
			assert.Nil(t, m)
			assert.Contains(t, err.Error(), tt.message)
			assert.Contains(t, err.Error(), "NewIDMinter")
		})
	}
}

func TestIDMinterSequenceAt(t *testing.T) {
	t.Parallel()
	c := mustCounter(t, dbtest.Client(t), "seq")
	tokyo := time.FixedZone("JST", 9*3600)
	at := time.Date(2026, 12, 31, 20, 0, 0, 0, time.UTC) // 1 January 2027 in Tokyo
	tests := []struct {
		period dynamoseq.CalendarPeriod
		layout string
		want   string
	}{
		{dynamoseq.Daily, "060102", "orders#20270101"},
		{dynamoseq.Monthly, "0601", "orders#202701"},
		{dynamoseq.Yearly, "06", "orders#2027"},
	}
	for _, tt := range tests {
		t.Run(tt.layout, func(t *testing.T) {
			m, err := dynamoseq.NewIDMinter(c, dynamoseq.Format{DateLayout: tt.layout, Separator: "-"}, tt.period,
				func(o *dynamoseq.IDMinterOptions) { o.Location = tokyo })
			require.NoError(t, err)
			got, err := m.SequenceAt("orders", at)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got, "SequenceAt(orders, %v)", at)
		})
	}
}

func init() {
	helpers["idminter-next"] = func(t *testing.T) {
		c, err := dynamoseq.NewCounter(dbtest.Client(t), os.Getenv("TABLE"))
		require.NoError(t, err)
		// Each process has its own clock, 10 readings before midnight.
		clock := newTestClock(time.Date(2026, 11, 21, 23, 59, 59, 990_000_000, time.UTC))
		clock.step.Store(int64(time.Millisecond))
		m, err := dynamoseq.NewIDMinter(c, orderFormat, dynamoseq.Daily, func(o *dynamoseq.IDMinterOptions) { o.Now = clock.Now })
		require.NoError(t, err)
		clock.Set(time.Date(2026, 11, 21, 23, 59, 59, 990_000_000, time.UTC))
		printLines(fanOut(t, 2, 15, func(int, int) (string, error) {
			id, err := m.Next(context.Background(), "orders")
			return "id " + id, err
		}))
	}
}

// TestIDMinterProcessesAcrossMidnight mints from several OS processes, as
// the instances of a service do, each crossing midnight on its own clock.
func TestIDMinterProcessesAcrossMidnight(t *testing.T) {
	t.Parallel()
	c, _, table := newCounter(t)
	const processes = 3
	outs := dbtest.RunProcesses(t, processes, "idminter-next", "TABLE="+table)
	ids := outputLines(outs, "id ")
	require.Len(t, ids, processes*2*15)
	m, err := dynamoseq.NewIDMinter(c, orderFormat, dynamoseq.Daily)
	require.NoError(t, err)
	counts := checkIDsMatchCounters(t, m, c, "orders", ids, 1)
	assert.Equal(t, map[time.Time]int{
		time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC): processes * 10,
		time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC): processes * 20,
	}, counts, "IDs per day")
}

// TestIDMinterPeriodFuncFailsLater uses a period function that goes wrong
// after a date: Next refuses, and writes nothing.
func TestIDMinterPeriodFuncFailsLater(t *testing.T) {
	t.Parallel()
	breaks := time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC)
	period := periodFunc(func(t time.Time) (time.Time, time.Time) {
		start, end := dynamoseq.Daily.Bounds(t)
		if !t.Before(breaks) {
			return end, end // a bug: a period after the instant
		}
		return start, end
	})
	clock := newTestClock(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	m, _, client, table := newMinter(t, orderFormat, period, clock.Now, nil, nil)
	assert.Equal(t, "ORD-261122-000001", mint(t, m, "orders"))
	clock.Set(breaks)
	id, err := m.Next(context.Background(), "orders")
	require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument)
	assert.Empty(t, id)
	assert.Contains(t, err.Error(), "does not hold it")
	assert.Nil(t, getItem(t, client, table, "pk", "orders#20400102T000000Z"), "nothing written")
}

// order is the item the tests of IDMinter.Append store.
type order struct {
	Writer int `dynamodbav:"writer"`
	Seq    int `dynamodbav:"seq"`
}

// yearly is the format of yearly order IDs: "ORD-2026-000123".
var yearly = dynamoseq.Format{Prefix: "ORD", DateLayout: "2006", Separator: "-", Width: 6}

// newSortKeyMinter returns a SortKeyIDMinter of yearly IDs over a SortKey
// of table, with clock as its Now.
func newSortKeyMinter(t *testing.T, client dynamoseq.Client, table string, clock func() time.Time) *dynamoseq.SortKeyIDMinter {
	t.Helper()
	s, err := dynamoseq.NewSortKey(client, table, func(o *dynamoseq.SortKeyOptions) { o.ResolveTimeout = 300 * time.Millisecond })
	require.NoError(t, err)
	m, err := dynamoseq.NewSortKeyIDMinter(s, yearly, dynamoseq.Yearly, func(o *dynamoseq.IDMinterOptions) { o.Now = clock })
	require.NoError(t, err)
	return m
}

// TestIDMinterAppendAcrossNewYear appends orders from several goroutines
// while the clock crosses into a new year: the IDs of each year are
// gap-free from 000001, each stored with the order of the caller that got
// it, and each parses back and reads back by its ID.
func TestIDMinterAppendAcrossNewYear(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	table := dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN)
	// 1ms per reading: the clock crosses the new year after 100 readings,
	// whatever the goroutines' interleaving.
	clock := newTestClock(time.Date(2026, 12, 31, 23, 59, 59, 900_000_000, time.UTC))
	clock.step.Store(int64(time.Millisecond))
	m := newSortKeyMinter(t, client, table, clock.Now)
	clock.Set(time.Date(2026, 12, 31, 23, 59, 59, 900_000_000, time.UTC))

	const goroutines, each = 8, 30
	ids := fanOut(t, goroutines, each, func(g, i int) (string, error) {
		return m.Append(context.Background(), "orders", order{Writer: g, Seq: i})
	})

	ctx := context.Background()
	byYear := map[int][]int64{}
	for g, got := range ids {
		require.Len(t, got, each, "IDs of goroutine %d", g)
		for i, id := range got {
			parts, err := m.Parse(id)
			require.NoError(t, err, "Parse(%q)", id)
			require.Equal(t, id, yearly.ID(parts.Date, parts.Number), "ID written back from its parts")
			byYear[parts.Date.Year()] = append(byYear[parts.Date.Year()], parts.Number)
			var o order
			require.NoError(t, m.Get(ctx, "orders", id, &o), "Get(%q)", id)
			require.Equal(t, order{Writer: g, Seq: i}, o, "the order stored under %s", id)
		}
	}
	require.Len(t, byYear, 2, "years with IDs")
	assert.Len(t, byYear[2026], 100, "IDs of 2026 (one per clock reading before the new year)")
	for year, numbers := range byYear {
		requireExactly(t, numbers, 1, int64(len(numbers)))
		// Nothing else is stored in the year's sequence: no gap, no extra.
		s, err := dynamoseq.NewSortKey(client, table)
		require.NoError(t, err)
		seq := "orders#" + strconv.Itoa(year) // the year's sequence
		var stored []int64
		for it, err := range s.All(ctx, seq, dynamoseq.OldestFirst) {
			require.NoError(t, err)
			stored = append(stored, it.Number)
		}
		requireExactly(t, stored, 1, int64(len(numbers)))
	}

	// Append of nil continues the year's numbers with an empty item.
	id, err := m.Append(ctx, "orders", nil)
	require.NoError(t, err)
	assert.Equal(t, "ORD-2027-"+fmt.Sprintf("%06d", len(byYear[2027])+1), id)
}

// TestIDMinterAppendErrors checks what Append and Get refuse, and the ID
// that comes with ErrUnknownOutcome.
func TestIDMinterAppendErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := newTestClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))

	var nilSortKey *dynamoseq.SortKey
	_, err := dynamoseq.NewSortKeyIDMinter(nilSortKey, yearly, dynamoseq.Yearly)
	require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "NewSortKeyIDMinter over a nil *SortKey")

	client := dbtest.Client(t)
	table := dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN)
	m := newSortKeyMinter(t, client, table, clock.Now)
	id, err := m.Append(ctx, "orders", order{Writer: 1})
	require.NoError(t, err)
	require.Equal(t, "ORD-2026-000001", id)
	for _, tt := range []struct {
		name, seq, id string
		want          error
	}{
		{"not stored", "orders", "ORD-2026-000002", dynamoseq.ErrNotFound},
		{"another year", "orders", "ORD-2025-000001", dynamoseq.ErrNotFound},
		{"another name", "invoices", "ORD-2026-000001", dynamoseq.ErrNotFound},
		{"not an ID of the format", "orders", "INV-2026-000001", dynamoseq.ErrInvalidArgument},
		{"number zero", "orders", "ORD-2026-000000", dynamoseq.ErrInvalidArgument},
		{"empty name", "", "ORD-2026-000001", dynamoseq.ErrInvalidArgument},
	} {
		assert.ErrorIs(t, m.Get(ctx, tt.seq, tt.id, nil), tt.want, tt.name)
	}
	for _, tt := range []struct {
		name, seq string
		item      any
	}{
		{"empty name", "", order{}},
		{"an item that sets the sort key", "orders", map[string]any{"sk": 5}},
	} {
		_, err := m.Append(ctx, tt.seq, tt.item)
		assert.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, tt.name)
	}

	// Every answer to a write lost: the outcome stays unknown, and the ID
	// that may hold the item comes with the error. Here it does.
	ft := dynamoseqtest.NewFaultTransport(dynamoseqtest.Faults{LoseAnswers: 1})
	lossy := newSortKeyMinter(t, lossyClient(t, ft), table, clock.Now)
	id, err = lossy.Append(ctx, "orders", order{Writer: 2})
	require.ErrorIs(t, err, dynamoseq.ErrUnknownOutcome)
	require.Equal(t, "ORD-2026-000002", id, "the ID that may hold the item")
	var o order
	require.NoError(t, m.Get(ctx, "orders", id, &o))
	assert.Equal(t, order{Writer: 2}, o)
}

// periodFunc adapts a function to the Period interface, for periods other
// than the calendar's: shifts, or broken ones.
type periodFunc func(t time.Time) (start, end time.Time)

func (f periodFunc) Bounds(t time.Time) (start, end time.Time) { return f(t) }

// TestSortKeyIDMinterTTL: with a TTL, every item a SortKeyIDMinter stores
// carries the end of its period plus the retention; an item that sets the
// TTL attribute itself, and a TTL on an attribute the SortKey writes, are
// refused.
func TestSortKeyIDMinterTTL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := dbtest.Client(t)
	table := dbtest.SortKeyTable(t, client, types.ScalarAttributeTypeN)
	s, err := dynamoseq.NewSortKey(client, table)
	require.NoError(t, err)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	m, err := dynamoseq.NewSortKeyIDMinter(s, yearly, dynamoseq.Yearly, func(o *dynamoseq.IDMinterOptions) {
		o.Now = func() time.Time { return now }
		o.TTLAttribute = "expires"
		o.TTLRetention = 24 * time.Hour
	})
	require.NoError(t, err)

	for i, item := range []any{order{Writer: 1}, nil} {
		id, err := m.Append(ctx, "orders", item)
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("ORD-2026-%06d", i+1), id)
		var raw map[string]types.AttributeValue
		require.NoError(t, m.Get(ctx, "orders", id, &raw))
		want := strconv.FormatInt(time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC).Unix(), 10)
		assert.Equal(t, &types.AttributeValueMemberN{Value: want}, raw["expires"], "TTL of %s: the end of 2026 plus a day", id)
	}
	_, err = m.Append(ctx, "orders", map[string]any{"expires": 5})
	assert.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "an item that sets the TTL attribute")

	for _, attr := range []string{"pk", "sk", "wtok"} {
		_, err := dynamoseq.NewSortKeyIDMinter(s, yearly, dynamoseq.Yearly, func(o *dynamoseq.IDMinterOptions) {
			o.TTLAttribute = attr
		})
		var oe *dynamoseq.OptionError
		require.ErrorAs(t, err, &oe, "TTL on %q", attr)
		assert.Equal(t, "TTLAttribute", oe.Field, "TTL on %q", attr)
	}
}

// TestIDMinterMisuseDoesNotCompile: an IDMinter over a SortKey or a
// Latest, and Append or Get on an IDMinter, do not compile:
// testdata/idmisuse does all four, and the compiler refuses each.
func TestIDMinterMisuseDoesNotCompile(t *testing.T) {
	out, err := exec.Command("go", "build", "-gcflags=-e", "-o", os.DevNull, "./testdata/idmisuse").CombinedOutput()
	require.Error(t, err, "testdata/idmisuse built; want a compile error per misuse")
	for _, want := range []string{
		"*dynamoseq.SortKey does not satisfy *dynamoseq.Counter | *dynamoseq.Block",
		"*dynamoseq.Latest does not satisfy *dynamoseq.Counter | *dynamoseq.Block",
		"m.Append undefined",
		"m.Get undefined",
	} {
		assert.Contains(t, string(out), want, "go build ./testdata/idmisuse")
	}
}
