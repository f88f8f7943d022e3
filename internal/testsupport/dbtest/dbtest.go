// Package dbtest holds the project's own test helpers on top of the public
// test package dynamoseqtest, which runs the DynamoDB Local that every test
// binary of the project shares: shortcuts for the tables the tests use, and
// the re-executed test binary of the multi-process tests (process.go).
//
// Set DYNAMOSEQ_TEST_ENDPOINT to use a server that is already running;
// otherwise the first test that asks for a client starts DynamoDB Local, and
// a test that cannot get one fails, saying how to install it. Nothing is
// skipped.
package dbtest

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// EndpointEnv names the variable that points dynamoseqtest.Start at a
// running server. Helper processes started by a test inherit it.
const EndpointEnv = "DYNAMOSEQ_TEST_ENDPOINT"

// Main runs the tests of a package and stops the shared server, if it
// started one.
func Main(m *testing.M) { dynamoseqtest.Main(m) }

// Endpoint returns the shared server's endpoint, starting it on first use.
// It fails the test when there is none.
func Endpoint(tb testing.TB) string {
	tb.Helper()
	return dynamoseqtest.Start(tb).Endpoint()
}

// Client returns a client for the shared server.
func Client(tb testing.TB) *dynamodb.Client {
	tb.Helper()
	return dynamoseqtest.Start(tb).Client()
}

var tableSeq atomic.Int64

var unsafeChars = regexp.MustCompile(`[^a-zA-Z0-9_.-]+`)

// TableName returns a table name unique to this test binary, derived from the
// test's name so that a failure can be traced in the server.
func TableName(tb testing.TB) string {
	name := unsafeChars.ReplaceAllString(tb.Name(), "_")
	if len(name) > 180 {
		name = name[:180]
	}
	return fmt.Sprintf("t%d_%d_%s", os.Getpid(), tableSeq.Add(1), name)
}

// Key is one attribute of a key schema.
type Key struct {
	Name string
	Type types.ScalarAttributeType
}

// keyedTable is the definition of a table with the given partition key and
// optional sort key, by way of the library's own table definitions.
func keyedTable(name string, pk Key, sk *Key) *dynamodb.CreateTableInput {
	if sk == nil {
		return dynamoseq.CounterTable(name, func(o *dynamoseq.CounterOptions) { o.PartitionKey = pk.Name })
	}
	return dynamoseq.SortKeyTable(name, func(o *dynamoseq.SortKeyOptions) {
		o.PartitionKey, o.SortKey = pk.Name, sk.Name
		if sk.Type == types.ScalarAttributeTypeS {
			o.SortKeyDigits = 19 // any digits: the table's type is what counts
		}
	})
}

// CreateTable creates a table on the shared server with the given partition
// key and optional sort key, and deletes it when the test ends. It returns
// the name. client is the caller's client of the shared server (kept for
// the call sites; the table is created through the server).
func CreateTable(tb testing.TB, client *dynamodb.Client, pk Key, sk *Key) string {
	tb.Helper()
	return dynamoseqtest.Start(tb).NewTable(tb, keyedTable("t", pk, sk))
}

// CreateTableInput creates a table from a full definition (indexes and all)
// under the name in.TableName, and deletes it when the test ends.
func CreateTableInput(tb testing.TB, client *dynamodb.Client, in *dynamodb.CreateTableInput) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := client.CreateTable(ctx, in); err != nil {
		tb.Fatalf("CreateTable(%s): %v", aws.ToString(in.TableName), err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: in.TableName})
	})
}

// CounterTable creates a table keyed by a String partition key "pk", the
// layout of the Counter's defaults.
func CounterTable(tb testing.TB, client *dynamodb.Client) string {
	tb.Helper()
	return CreateTable(tb, client, Key{"pk", types.ScalarAttributeTypeS}, nil)
}

// SortKeyTable creates a table with "pk" (String) and "sk" of the given type.
func SortKeyTable(tb testing.TB, client *dynamodb.Client, skType types.ScalarAttributeType) string {
	tb.Helper()
	return CreateTable(tb, client, Key{"pk", types.ScalarAttributeTypeS}, &Key{"sk", skType})
}

// trimmed reports a process's output for a failure message.
func trimmed(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 4000 {
		s = "..." + s[len(s)-4000:]
	}
	return s
}
