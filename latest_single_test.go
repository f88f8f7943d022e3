package dynamoseq_test

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/dbtest"
)

// dyingClient kills its own process (SIGKILL) when asked for its second
// PutItem: a Latest writer with single-item writes dies right after storing
// the version item, before it moves 'latest'.
type dyingClient struct {
	dynamoseq.Client
	puts atomic.Int64
}

func (c *dyingClient) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if c.puts.Add(1) == 2 {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	return c.Client.PutItem(ctx, in, optFns...)
}

func init() {
	helpers["latest-die"] = func(t *testing.T) {
		layout, _ := strconv.Atoi(os.Getenv("LAYOUT"))
		l, err := dynamoseq.NewLatest(&dyingClient{Client: dbtest.Client(t)}, os.Getenv("TABLE"), latestLayouts[layout].opts, mrscLatest)
		require.NoError(t, err)
		_, err = l.Append(context.Background(), os.Getenv("NAME"), page{ID: os.Getenv("ID")})
		t.Fatalf("Append returned (%v) instead of dying", err)
	}
}

// appendAndDie runs a process that appends the page id to name and is
// killed between its two writes.
func appendAndDie(t *testing.T, layout int, table, name, id string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), dbtest.HelperEnv+"=latest-die", dbtest.EndpointEnv+"="+dbtest.Endpoint(t),
		"LAYOUT="+strconv.Itoa(layout), "TABLE="+table, "NAME="+name, "ID="+id)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "the writer was to be killed: %s", out)
	require.Equal(t, syscall.SIGKILL, exit.Sys().(syscall.WaitStatus).Signal(), "the writer ended otherwise: %s", out)
}

// TestLatestSingleItemKilledWriter: on an MRSC table, a writer killed
// between storing its version item and moving 'latest' leaves 'latest' one
// version behind; the next GetLatest returns the newest version and
// repairs 'latest', and so does the next Append (of a writer whose own hint
// is stale), which then appends after it. A writer killed after storing
// version 1 leaves no 'latest' item at all, and GetLatest still finds it.
func TestLatestSingleItemKilledWriter(t *testing.T) {
	t.Parallel()
	for i, layout := range latestLayouts {
		if layout.name == "sortkey=S" {
			continue
		}
		t.Run(layout.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			client := dbtest.Client(t)
			table := layout.table(t, client)
			newL := func() *dynamoseq.Latest {
				l, err := dynamoseq.NewLatest(mrscOver(client, 1, 0)[0], table, layout.opts, mrscLatest)
				require.NoError(t, err)
				return l
			}
			writer := newL()
			got := map[string]int64{}
			for _, id := range []string{"a", "b"} {
				v, err := writer.Append(ctx, "doc", page{ID: id})
				require.NoError(t, err)
				got[id] = v
			}

			appendAndDie(t, i, table, "doc", "killed-3")
			got["killed-3"] = 3
			requireLatestItem(t, layout, client, table, "doc", 2) // one behind
			var p page
			v, err := newL().GetLatest(ctx, "doc", &p)
			require.NoError(t, err)
			assert.Equal(t, int64(3), v, "GetLatest after the killed writer")
			assert.Equal(t, "killed-3", p.ID)
			requireLatestItem(t, layout, client, table, "doc", 3) // repaired

			appendAndDie(t, i, table, "doc", "killed-4")
			got["killed-4"] = 4
			requireLatestItem(t, layout, client, table, "doc", 3)
			v, err = writer.Append(ctx, "doc", page{ID: "e"}) // its hint says 2
			require.NoError(t, err)
			assert.Equal(t, int64(5), v, "Append after the killed writer")
			got["e"] = v
			requireLatestItem(t, layout, client, table, "doc", 5)
			requireHistory(t, writer, "doc", got)

			appendAndDie(t, i, table, "fresh", "killed-1")
			v, err = newL().GetLatest(ctx, "fresh", &p)
			require.NoError(t, err)
			assert.Equal(t, int64(1), v, "GetLatest of a document whose first writer was killed")
			assert.Equal(t, "killed-1", p.ID)
		})
	}
}

// TestFaultsAppendSingleItem: SortKey and Latest with NoTransactions on a
// single-Region table, under lost and stalled answers: each item is stored
// once, the numbers are gap-free, and no caller is misled.
func TestFaultsAppendSingleItem(t *testing.T) {
	t.Parallel()
	for _, strategy := range []string{"SortKey", "Latest"} {
		t.Run(strategy, func(t *testing.T) {
			t.Parallel()
			ft := dynamoseqtest.NewFaultTransport(lossy)
			table := dbtest.SortKeyTable(t, dbtest.Client(t), types.ScalarAttributeTypeN)
			appendFn := newAppender(t, strategy, lossyClient(t, ft), table, fastResolve, true)
			results := appendUnique(t, appendFn, "s", 8, 8)
			logCounts(t, ft)
			require.Positive(t, dbtest.LostAnswers(ft), "no answer was lost: the test proves nothing")
			checkAppends(t, dbtest.Client(t), table, "s", results, false)
			if strategy == "Latest" {
				l, err := dynamoseq.NewLatest(dbtest.Client(t), table, func(o *dynamoseq.LatestOptions) { o.NoTransactions = true })
				require.NoError(t, err)
				v, err := l.GetLatest(context.Background(), "s", nil)
				require.NoError(t, err)
				assert.Equal(t, int64(len(collection(t, dbtest.Client(t), table, "s"))-1), v, "GetLatest: the newest version")
			}
		})
	}
}

// TestSingleItemOptions: what the constructors accept and refuse around
// NoTransactions and GlobalTableMRSC.
func TestSingleItemOptions(t *testing.T) {
	t.Parallel()
	client := dbtest.Client(t)
	mrsc := func(o *dynamoseq.LatestOptions) { o.GlobalTable = dynamoseq.GlobalTableMRSC }
	noTx := func(o *dynamoseq.LatestOptions) { o.NoTransactions = true }
	token := func(o *dynamoseq.LatestOptions) { o.TokenAttribute = "tok" }
	_, err := dynamoseq.NewSortKey(client, "table", func(o *dynamoseq.SortKeyOptions) { o.GlobalTable = dynamoseq.GlobalTableMRSC })
	require.NoError(t, err)
	_, err = dynamoseq.NewSortKey(client, "table", func(o *dynamoseq.SortKeyOptions) { o.NoTransactions = true })
	require.NoError(t, err)
	_, err = dynamoseq.NewLatest(client, "table", mrsc, token)
	require.NoError(t, err, "a Latest with single-item writes reads TokenAttribute")
	_, err = dynamoseq.NewLatest(client, "table", token)
	require.NoError(t, err, "a transactional Latest reads TokenAttribute too ('latest' names a turn in it)")
	_, err = dynamoseq.NewLatest(client, "table", func(o *dynamoseq.LatestOptions) { o.TokenAttribute = "version" })
	require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "TokenAttribute equal to VersionAttribute, with transactions")
	_, err = dynamoseq.NewLatest(client, "table", noTx, func(o *dynamoseq.LatestOptions) { o.TokenAttribute = "version" })
	require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "TokenAttribute equal to VersionAttribute")
}
