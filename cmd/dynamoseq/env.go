package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamoseq/dynamoseq"
)

// env is what a subcommand runs with: the shared flags, the output streams
// and the DynamoDB client.
type env struct {
	settings
	stdout io.Writer
	stderr io.Writer

	// onCommandLine names the flags set on the command line, not through
	// their variables (commandLineFlags): those refuseUnread refuses.
	onCommandLine []string

	ddb *dynamodb.Client // made by client
}

// client returns the DynamoDB client, configured from the standard AWS
// chain with --profile and --region taking precedence, and --endpoint-url
// (or AWS_ENDPOINT_URL_DYNAMODB, or AWS_ENDPOINT_URL, which the SDK reads)
// as the base endpoint. It is made once per run.
func (e *env) client(ctx context.Context) (*dynamodb.Client, error) {
	if e.ddb != nil {
		return e.ddb, nil
	}
	var opts []func(*config.LoadOptions) error
	if e.profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(e.profile))
	}
	if e.region != "" {
		opts = append(opts, config.WithRegion(e.region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("loading the AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return nil, fmt.Errorf("no AWS Region: pass --region, set AWS_REGION, or set region in the profile")
	}
	e.clientRegion = cfg.Region
	e.ddb = dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		if e.endpoint != "" {
			o.BaseEndpoint = aws.String(e.endpoint)
		}
		// o.BaseEndpoint holds the endpoint from the environment or the
		// shared config too. DynamoDB Local sends no CRC32 on error
		// responses, and the SDK would log a warning for each
		// (aws/aws-sdk-go-v2#3545).
		o.DisableValidateResponseChecksum = isLoopback(aws.ToString(o.BaseEndpoint))
	})
	return e.ddb, nil
}

// isLoopback reports whether the endpoint URL names this machine, where
// DynamoDB Local runs.
func isLoopback(endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil {
		return false
	}
	if u.Hostname() == "localhost" {
		return true
	}
	ip := net.ParseIP(u.Hostname())
	return ip != nil && ip.IsLoopback()
}

// fail wraps err, from the command itself rather than the library, in the
// library's error type so that it names the table and the sequence.
func (e *env) fail(op, sequence string, err error) error {
	return &dynamoseq.Error{Op: op, Table: e.table, Sequence: sequence, Err: err}
}

// print writes text, or v as indented JSON with --output json.
func (e *env) print(text string, v any) error {
	if e.output == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	return e.write(text)
}

// write writes text to stdout whatever the output format.
func (e *env) write(text string) error {
	_, err := io.WriteString(e.stdout, text)
	return err
}

// note writes a remark for the person at the terminal to stderr, so that
// stdout holds only the answer.
func (e *env) note(format string, args ...any) {
	fmt.Fprintf(e.stderr, "dynamoseq: "+format+"\n", args...)
}

// isTerminal reports whether w is a terminal (a character device), where a
// live progress line makes sense.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
