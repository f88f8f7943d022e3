package dynamoseqtest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// helpdeskTest is a user's test, in a module of the user's own: the one the
// README and the package documentation show.
const helpdeskTest = `package helpdesk

import (
	"context"
	"testing"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

type ticket struct {
	Title string ` + "`dynamodbav:\"title\"`" + `
}

func TestTickets(t *testing.T) {
	srv := dynamoseqtest.Start(t)
	table := srv.NewTable(t, dynamoseq.SortKeyTable("tickets"))
	tickets, err := dynamoseq.NewSortKey(srv.Client(), table)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	n, err := tickets.Append(ctx, "proj-1", ticket{Title: "printer on fire"})
	if err != nil || n != 1 {
		t.Fatalf("Append() = %d, %v; want 1, nil", n, err)
	}
	var got ticket
	if err := tickets.Get(ctx, "proj-1", n, &got); err != nil || got.Title != "printer on fire" {
		t.Fatalf("Get(1) = %+v, %v", got, err)
	}
}
`

// serviceTest is a user's test on the service model, with raw SDK calls:
// a hot key throttled (an exception, and a transaction cancelled for it)
// and a write in conflict with a transaction in flight, all counted.
const serviceTest = `package helpdesk

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

func TestServiceLimits(t *testing.T) {
	slow := dynamoseqtest.Latency{P50: 300 * time.Millisecond, P99: 300 * time.Millisecond}
	srv := dynamoseqtest.Start(t, dynamoseqtest.WithService(dynamoseqtest.Service{
		WriteUnits:      5, // per partition key value, a second
		TransactLatency: slow,
	}))
	table := srv.NewTable(t, &dynamodb.CreateTableInput{
		TableName:            aws.String("tickets"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	db := srv.Client(func(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} })
	ctx := context.Background()
	item := func(pk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}
	}
	put := func(pk string) *types.Put { return &types.Put{TableName: aws.String(table), Item: item(pk)} }

	var throttled *types.ThrottlingException
	for i := 0; ; i++ {
		_, e := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item("hot")})
		if errors.As(e, &throttled) {
			break
		}
		if i == 100 {
			t.Fatalf("100 writes to one key, never throttled: %v", e)
		}
	}
	_, e := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Put: put("hot")}}})
	var cancelled *types.TransactionCanceledException
	if !errors.As(e, &cancelled) || aws.ToString(cancelled.CancellationReasons[0].Code) != "ThrottlingError" {
		t.Fatalf("TransactWriteItems on a hot key: %v", e)
	}

	done := make(chan error, 1)
	go func() {
		_, e := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Put: put("ticket-1")}}})
		done <- e
	}()
	time.Sleep(100 * time.Millisecond)
	var conflict *types.TransactionConflictException
	if _, e := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item("ticket-1")}); !errors.As(e, &conflict) {
		t.Fatalf("PutItem during a transaction: %v", e)
	}
	if e := <-done; e != nil {
		t.Fatal(e)
	}

	s := srv.ModelStats()
	hot, ticket := s.Partition(table, "S:hot"), s.Partition(table, "S:ticket-1")
	if hot.Throttled < 2 || ticket.Conflicts != 1 {
		t.Fatalf("ModelStats: hot %+v, want 2+ throttled (puts and the transaction); ticket-1 %+v, want 1 conflict", hot, ticket)
	}
	t.Logf("model: %d requests, %d throttled, %d conflicts", s.Requests, s.Throttled, s.Conflicts)
}
`

// TestOutsideModule builds a module outside the repository that uses
// dynamoseqtest as a user would (with a replace directive pointing at this
// checkout) and runs its test with the race detector. The test starts a
// DynamoDB Local of its own through Start, as on a user's machine, and a
// service model in front of it (Start with WithService), on which raw SDK
// calls are throttled and in conflict as on the service.
func TestOutsideModule(t *testing.T) {
	t.Parallel()
	_, here, _, _ := runtime.Caller(0)
	repo := filepath.Dir(filepath.Dir(here))
	dir := t.TempDir()
	gomod := "module example.com/helpdesk\n\ngo 1.24\n\n" +
		"require github.com/dynamoseq/dynamoseq v0.0.0-00010101000000-000000000000\n\n" +
		"replace github.com/dynamoseq/dynamoseq => " + repo + "\n"
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "helpdesk_test.go"), []byte(helpdeskTest), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "service_test.go"), []byte(serviceTest), 0o644))
	readme, err := os.ReadFile(filepath.Join(repo, "README.md"))
	require.NoError(t, err)
	body := serviceTest[strings.Index(serviceTest, "func TestServiceLimits"):]
	require.Contains(t, string(readme), body, "README's \"Test against the service's limits\" shows this test as it is")

	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir = dir
	out, err := tidy.CombinedOutput()
	require.NoError(t, err, "go mod tidy:\n%s", out)

	cmd := exec.Command("go", "test", "-race", "-count=1", "-v", "./...")
	cmd.Dir = dir
	cmd.Env = withoutEnv(os.Environ(), "DYNAMOSEQ_TEST_ENDPOINT") // Start must start its own server
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "go test in the user's module:\n%s", out)
	require.Contains(t, string(out), "--- PASS: TestTickets")
	require.Contains(t, string(out), "--- PASS: TestServiceLimits")
}

func withoutEnv(env []string, name string) []string {
	var kept []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			kept = append(kept, kv)
		}
	}
	return kept
}
