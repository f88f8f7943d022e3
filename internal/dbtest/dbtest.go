// Package dbtest gives tests and benchmarks a DynamoDB Local to work in: one
// server per test binary, started on first use, and a table of its own for
// each test.
//
// A test binary's TestMain calls Main. Set DYNAMOSEQ_TEST_ENDPOINT to use a
// server that is already running; otherwise the first test that asks for a
// client starts DynamoDB Local (see package ddblocal), and a test that cannot
// get one fails, saying how to install it. Nothing is skipped.
package dbtest

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/internal/ddblocal"
)

// EndpointEnv names the variable that points the tests at a running server.
// Helper processes started by a test inherit it.
const EndpointEnv = "DYNAMOSEQ_TEST_ENDPOINT"

var server struct {
	once     sync.Once
	endpoint string
	err      error
	srv      *ddblocal.Server
}

// second is a second server, for the tests of global tables, which need one
// DynamoDB Local per Region.
var second struct {
	once     sync.Once
	endpoint string
	err      error
	srv      *ddblocal.Server
}

// Main runs the tests of a package and stops the servers it started, if any.
func Main(m *testing.M) {
	code := m.Run()
	for _, srv := range []*ddblocal.Server{server.srv, second.srv} {
		if srv != nil {
			srv.Stop()
		}
	}
	os.Exit(code)
}

// SecondEndpoint returns the endpoint of a second DynamoDB Local, started on
// first use and shared by the tests of the binary, like Endpoint's. Tests
// of global tables use Endpoint and SecondEndpoint as two Regions. It fails
// the test when the server cannot be started.
func SecondEndpoint(tb testing.TB) string {
	tb.Helper()
	second.once.Do(startSecond)
	if second.err != nil {
		tb.Fatalf("this test needs a second DynamoDB Local and could not start it: %v", second.err)
	}
	return second.endpoint
}

func startSecond() {
	second.srv, second.err = ddblocal.Start(context.Background())
	if second.err == nil {
		second.endpoint = second.srv.Endpoint
	}
}

// Endpoint returns the DynamoDB Local endpoint, starting the server on first
// use. It fails the test when there is none.
func Endpoint(tb testing.TB) string {
	tb.Helper()
	endpoint, err := start()
	if err != nil {
		tb.Fatalf("this test needs DynamoDB Local and could not start it: %v", err)
	}
	return endpoint
}

func start() (string, error) {
	server.once.Do(func() {
		if e := os.Getenv(EndpointEnv); e != "" {
			server.endpoint = e
			return
		}
		server.srv, server.err = ddblocal.Start(context.Background())
		if server.err == nil {
			server.endpoint = server.srv.Endpoint
		}
	})
	return server.endpoint, server.err
}

// Client returns a client for the test server.
func Client(tb testing.TB) *dynamodb.Client {
	tb.Helper()
	return ddblocal.NewClient(Endpoint(tb))
}

// ExampleTable creates a table for a runnable Example, which has no
// testing.TB: pk (String) and, when skType is not "", sk of that type. It
// panics when DynamoDB Local is missing, which fails the example loudly. The
// table is left for the server's end.
func ExampleTable(skType types.ScalarAttributeType) (*dynamodb.Client, string) {
	endpoint, err := start()
	if err != nil {
		panic(fmt.Sprintf("the examples need DynamoDB Local: %v", err))
	}
	client := ddblocal.NewClient(endpoint)
	name := fmt.Sprintf("example%d_%d", os.Getpid(), tableSeq.Add(1))
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	}
	if skType != "" {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("sk"), AttributeType: skType})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange})
	}
	if _, err := client.CreateTable(context.Background(), in); err != nil {
		panic(fmt.Sprintf("CreateTable(%s): %v", name, err))
	}
	return client, name
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

// CreateTable creates a table for this test with the given partition key and
// optional sort key, and deletes it when the test ends. It returns the name.
func CreateTable(tb testing.TB, client *dynamodb.Client, pk Key, sk *Key) string {
	tb.Helper()
	name := TableName(tb)
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(pk.Name), AttributeType: pk.Type}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(pk.Name), KeyType: types.KeyTypeHash}},
	}
	if sk != nil {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(sk.Name), AttributeType: sk.Type})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String(sk.Name), KeyType: types.KeyTypeRange})
	}
	CreateTableInput(tb, client, in)
	return name
}

// CreateTableInput creates a table from a full definition (indexes and all)
// and deletes it when the test ends.
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
