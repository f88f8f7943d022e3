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

// TestOutsideModule builds a module outside the repository that uses
// dynamoseqtest as a user would (with a replace directive pointing at this
// checkout) and runs its test with the race detector. The test starts a
// DynamoDB Local of its own through Start, as on a user's machine.
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
