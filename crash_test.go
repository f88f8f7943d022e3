package dynamoseq_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// emulatorWindow is how long before a SIGKILL DynamoDB Local may have
// acknowledged a transaction that is gone after the restart, at least
// (measured on a quiet machine: 0.3 to 4 ms; DynamoDB itself is durable
// once it answers). On a busy machine the emulator's window grows (a
// plain-SDK probe was lost 27 ms before a kill at load 9-14), so the run's
// probe measures it: a library loss acknowledged earlier before a kill
// than the probe's oldest loss plus emulatorWindow is the library's.
const emulatorWindow = 25 * time.Millisecond

// emulatorLimit bounds the probe's losses: a plain-SDK transaction
// acknowledged longer than this before a kill and gone after the restart
// means the server did not come back on its disk, and the run proves
// nothing.
const emulatorLimit = time.Second

// crashCall is what one caller was told, and when.
type crashCall struct {
	body string
	n    int64
	err  error
	at   time.Time // when the call returned
}

// crashLog collects the calls of one strategy.
type crashLog struct {
	mu    sync.Mutex
	calls []crashCall
}

func (l *crashLog) add(c crashCall) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c.at = time.Now()
	l.calls = append(l.calls, c)
}

// kill is when a SIGKILL of a run was under way: from just before it was
// sent until the process had exited. An answer the client records in that
// time may have left the server before it died.
type kill struct{ from, to time.Time }

// kills are the SIGKILLs of a run.
type kills []kill

// excused reports whether an acknowledgement at t falls in the window
// around a kill in which DynamoDB Local may lose a transaction: from
// window before the kill was sent until the process had exited.
func (k kills) excused(t time.Time, window time.Duration) bool {
	return k.before(t) <= window
}

// before is how long before the kill that followed it t was; 0 during a
// kill, and the largest duration when no kill followed.
func (k kills) before(t time.Time) time.Duration {
	d := time.Duration(math.MaxInt64)
	for _, kill := range k {
		if !t.After(kill.to) {
			d = min(d, max(0, kill.from.Sub(t)))
		}
	}
	return d
}

func keyTable(sk bool) *dynamodb.CreateTableInput {
	in := &dynamodb.CreateTableInput{
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}
	if sk {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange})
	}
	return in
}

// TestCrashRestart runs every strategy from several goroutines against a
// DynamoDB Local on disk, kills it with SIGKILL twice in the middle of the
// run, restarts it on the same port and path, and lets the writers carry
// on. A plain-SDK transaction writer runs beside them as a probe of the
// emulator's own losses. Then it checks the same promises as the fault
// tests, excusing only losses of transactions acknowledged within
// the probe's window before a kill (see emulatorWindow), and reports them.
func TestCrashRestart(t *testing.T) {
	t.Parallel()
	srv := dynamoseqtest.Start(t, dynamoseqtest.WithDBPath(t.TempDir()))
	items := srv.NewTable(t, keyTable(true))
	counters := srv.NewTable(t, keyTable(false))
	client := srv.Client(dbtest.FastRetries())
	// ResolveTimeout outlasts a restart on a loaded machine.
	retry := dynamoseq.Retry{ResolveTimeout: time.Minute, MaxDelay: 20 * time.Millisecond}
	s, err := dynamoseq.NewSortKey(client, items, func(o *dynamoseq.SortKeyOptions) { o.Retry = retry })
	require.NoError(t, err)
	l, err := dynamoseq.NewLatest(client, items, func(o *dynamoseq.LatestOptions) { o.Retry = retry })
	require.NoError(t, err)
	c, b, m := newCounters(t, client, counters)

	var sLog, lLog, probeLog crashLog
	numbers := map[string]*crashLog{"counter": {}, "block": {}, "id": {}}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	writer := func(call func(ctx context.Context, i int)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				call(ctx, i)
				cancel()
				time.Sleep(2 * time.Millisecond)
			}
		}()
	}
	for g := range 4 {
		writer(func(ctx context.Context, i int) {
			item := crashBody("s", g, i)
			n, err := s.Append(ctx, "s", item)
			sLog.add(crashCall{body: item["body"].(*types.AttributeValueMemberS).Value, n: n, err: err})
		})
		writer(func(ctx context.Context, i int) {
			item := crashBody("l", g, i)
			n, err := l.Append(ctx, "l", item)
			lLog.add(crashCall{body: item["body"].(*types.AttributeValueMemberS).Value, n: n, err: err})
		})
		writer(func(ctx context.Context, i int) {
			n, err := c.NextN(ctx, "c", 2)
			numbers["counter"].add(crashCall{body: strconv.FormatInt(n, 10), err: err})
			if err == nil {
				numbers["counter"].add(crashCall{body: strconv.FormatInt(n+1, 10)})
			}
			n, err = b.Next(ctx, "b")
			numbers["block"].add(crashCall{body: strconv.FormatInt(n, 10), err: err})
			id, err := m.Next(ctx, "o")
			numbers["id"].add(crashCall{body: id, err: err})
		})
	}
	writer(func(ctx context.Context, i int) { // the probe: plain SDK, one transaction per item
		_, err := client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Put: &types.Put{
			TableName: aws.String(items),
			Item:      map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "probe"}, "sk": &types.AttributeValueMemberN{Value: strconv.Itoa(i + 1)}},
		}}}})
		probeLog.add(crashCall{n: int64(i + 1), err: err})
	})

	killed := killTwice(t, srv, s, l, c)
	close(stop)
	wg.Wait()

	check := srv.Client()
	lostProbes, window := checkProbe(t, check, items, probeLog.calls, killed)
	excusedS := checkCrashAppends(t, check, items, "s", sLog.calls, killed, window)
	excusedL := checkCrashAppends(t, check, items, "l", lLog.calls, killed, window)
	for what, log := range numbers {
		checkDistinct(t, what, log.calls)
	}
	t.Logf("emulator losses within %v before a kill: probe %d, SortKey %d, Latest %d", window, lostProbes, excusedS, excusedL)
}

// crashBody is the item of call i of writer g of TestCrashRestart.
func crashBody(prefix string, g, i int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"body": &types.AttributeValueMemberS{Value: fmt.Sprintf("%s/g%d/i%d", prefix, g, i)}}
}

// killTwice lets the writers run 1.5 s, kills the server, checks that the
// strategies see it down, restarts it, twice, and lets them run 1.5 s
// more. It returns when each kill was.
func killTwice(t *testing.T, srv *dynamoseqtest.Server, s *dynamoseq.SortKey, l *dynamoseq.Latest, c *dynamoseq.Counter) kills {
	var killed kills
	for range 2 {
		time.Sleep(1500 * time.Millisecond)
		from := time.Now()
		srv.Kill(t)
		killed = append(killed, kill{from: from, to: time.Now()})
		checkDown(t, s, l, c)
		start := time.Now()
		srv.Restart(t)
		t.Logf("killed at %s, restarted in %v", killed[len(killed)-1].from.Format("15:04:05.000"), time.Since(start).Round(time.Millisecond))
	}
	time.Sleep(1500 * time.Millisecond)
	return killed
}

// checkProbe checks the plain-SDK transactions: an acknowledged one may be
// missing only within emulatorLimit before a kill. It returns how many
// are, and the window in which the library's writes may be lost too: the
// oldest probe lost before its kill, plus emulatorWindow.
func checkProbe(t *testing.T, client *dynamodb.Client, table string, calls []crashCall, killed kills) (int, time.Duration) {
	t.Helper()
	stored := collection(t, client, table, "probe")
	lost, acked, oldest := 0, 0, time.Duration(0)
	for _, c := range calls {
		if c.err != nil {
			continue
		}
		acked++
		if _, ok := stored[c.n]; !ok {
			age := killed.before(c.at)
			require.True(t, killed.excused(c.at, emulatorLimit), "probe transaction %d acknowledged at %s, %v before a kill (want at most %v), is gone: the server did not restart on its disk",
				c.n, c.at.Format("15:04:05.000"), age, emulatorLimit)
			lost, oldest = lost+1, max(oldest, age)
		}
	}
	t.Logf("probe: %d transactions acknowledged, %d lost by the emulator, the oldest %v before its kill", acked, lost, oldest)
	return lost, oldest + emulatorWindow
}

// checkCrashAppends checks SortKey's or Latest's calls against the table as
// checkAppends does, excusing (and counting) the calls told n whose item is
// not at n when they were acknowledged within the window before a kill.
func checkCrashAppends(t *testing.T, client *dynamodb.Client, table, name string, calls []crashCall, killed kills, window time.Duration) int {
	t.Helper()
	at := map[string][]int64{}
	var stored []int64
	for n, item := range collection(t, client, table, name) {
		if n < 1 {
			continue
		}
		stored = append(stored, n)
		at[item["body"].(*types.AttributeValueMemberS).Value] = append(at[item["body"].(*types.AttributeValueMemberS).Value], n)
	}
	sort.Slice(stored, func(i, j int) bool { return stored[i] < stored[j] })
	excused := 0
	told := map[int64]time.Time{} // number -> when a caller was told it
	kinds := map[string]int{}
	for _, c := range calls {
		got := at[c.body]
		require.LessOrEqual(t, len(got), 1, "%s: body %s stored under numbers %v", name, c.body, got)
		var e *dynamoseq.Error
		switch {
		case c.err == nil:
			kinds["ok"]++
			told[c.n] = c.at
			if len(got) == 1 && got[0] == c.n {
				continue
			}
			require.True(t, killed.excused(c.at, window), "%s: caller of %s told %d at %s (%v before a kill, the emulator's window %v) finds it at %v",
				name, c.body, c.n, c.at.Format("15:04:05.000"), killed.before(c.at), window, got)
			excused++
		case errors.Is(c.err, dynamoseq.ErrUnknownOutcome):
			kinds["unknown outcome"]++
			require.True(t, errors.As(c.err, &e) && e.Number > 0, "%v", c.err)
			if len(got) == 1 {
				require.Equal(t, e.Number, got[0], "%s: caller of %s", name, c.body)
			}
		default:
			kinds[errorKind(c.err)]++
			require.Empty(t, got, "%s: caller of %s told %v, but its item is stored", name, c.body, c.err)
		}
	}
	have := map[int64]bool{}
	for _, n := range stored {
		have[n] = true
	}
	for n := int64(1); len(stored) > 0 && n < stored[len(stored)-1]; n++ {
		if !have[n] {
			// A gap: only a number whose transaction the emulator lost
			// (a warm writer knows the last number from its own write,
			// and goes on after it).
			ack, ok := told[n]
			require.True(t, ok && killed.excused(ack, window), "%s: number %d missing, and no caller was told it within %v before a kill (told: %v)", name, n, window, ok)
		}
	}
	t.Logf("%s: %d calls, %d items stored; callers told: %v", name, len(calls), len(stored), kinds)
	return excused
}

// checkDistinct checks that no value was handed out twice, and that the
// errors callers saw are the context's, a network error, or
// ErrUnknownOutcome.
func checkDistinct(t *testing.T, what string, calls []crashCall) {
	t.Helper()
	seen := map[string]bool{}
	kinds := map[string]int{}
	for _, c := range calls {
		if c.err != nil {
			kinds[errorKind(c.err)]++
			continue
		}
		kinds["ok"]++
		require.False(t, seen[c.body], "%s: %s handed out twice", what, c.body)
		seen[c.body] = true
	}
	t.Logf("%s: %d values handed out; callers told: %v", what, len(seen), kinds)
}

// checkDown checks the errors of calls made while DynamoDB is down: at once,
// a network error that says nothing was sent (not ErrUnknownOutcome).
func checkDown(t *testing.T, s *dynamoseq.SortKey, l *dynamoseq.Latest, c *dynamoseq.Counter) {
	t.Helper()
	calls := map[string]func(ctx context.Context) error{
		"SortKey.Append": func(ctx context.Context) error { _, err := s.Append(ctx, "down", nil); return err },
		"Latest.Append":  func(ctx context.Context) error { _, err := l.Append(ctx, "down", nil); return err },
		"Counter.Next":   func(ctx context.Context) error { _, err := c.Next(ctx, "down"); return err },
	}
	for name, call := range calls {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := call(ctx)
		cancel()
		var op *net.OpError
		require.True(t, errors.As(err, &op) && op.Op == "dial", "%s while down = %v, want a refused connection", name, err)
		require.NotErrorIs(t, err, dynamoseq.ErrUnknownOutcome, name)
		t.Logf("while down, %s: %v", name, err)
	}
}
