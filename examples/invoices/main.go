// Command invoices is a multi-tenant invoicing service over HTTP, built on
// dynamoseq as a user would wire it:
//
//   - gap-free yearly invoice IDs per tenant ("INV-2026-000123"), each
//     stored with its invoice (a dynamoseq.SortKey under a yearly
//     dynamoseq.SortKeyIDMinter);
//   - POST with an Idempotency-Key header, GET by ID, and listings newest
//     or oldest first that page across years;
//   - one function that maps the library's errors to HTTP statuses
//     (statusOf);
//   - an audit log numbered by a dynamoseq.Block, closed on shutdown.
//
// With -endpoint it runs on that DynamoDB Local (`make ddblocal` prints how
// to start one); without, on what the AWS configuration chain says
// (AWS_REGION, AWS_PROFILE, AWS_ENDPOINT_URL...). The tables are created if
// missing. SIGINT or SIGTERM stops it gracefully. README.md has the curl
// lines.
package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/dynamoseq/dynamoseq"
)

func main() {
	log.SetFlags(0)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, nil); err != nil {
		log.Fatalf("invoices: %v", err)
	}
}

// run serves the API until ctx ends, then shuts down gracefully: it waits
// for the requests under way (up to -shutdown-timeout), then closes the
// audit log's Block. listening, when not nil, is told the address once the
// service accepts connections.
func run(ctx context.Context, args []string, out io.Writer, listening func(net.Addr)) error {
	flags := flag.NewFlagSet("invoices", flag.ContinueOnError)
	endpoint := flags.String("endpoint", "", "DynamoDB Local's endpoint, such as http://localhost:8000 (default: the AWS configuration chain, AWS_ENDPOINT_URL included)")
	addr := flags.String("addr", "localhost:8080", "address to listen on")
	invoicesTable := flags.String("table", "dynamoseq-invoices", "table of the invoices (created if missing)")
	countersTable := flags.String("counters-table", "dynamoseq-invoices-counters", "table of the audit log's counter (created if missing)")
	since := flags.Int("since", 2026, "year of the first invoice: listings walk back to it")
	requestTimeout := flags.Duration("request-timeout", 10*time.Second, "time a request may take")
	shutdownTimeout := flags.Duration("shutdown-timeout", 15*time.Second, "time the requests under way have to finish on shutdown")
	if err := flags.Parse(args); err != nil {
		return err
	}
	logger := slog.New(slog.NewJSONHandler(out, nil))
	client, where, err := connect(ctx, *endpoint)
	if err != nil {
		return err
	}
	// The invoices' table deletes the idempotency keys whose window ended
	// by TTL on "expires" (dynamoseq's default Table.KeyTTLAttribute); the
	// invoices themselves have no such attribute and stay.
	if err := dynamoseq.EnsureTable(ctx, client, dynamoseq.SortKeyTable(*invoicesTable), "expires"); err != nil {
		return err
	}
	if err := dynamoseq.EnsureTable(ctx, client, dynamoseq.CounterTable(*countersTable), ""); err != nil {
		return err
	}
	svc, err := NewService(Config{
		Client: client, Invoices: *invoicesTable, Counters: *countersTable,
		Since: time.Date(*since, 1, 1, 0, 0, 0, 0, time.UTC), Audit: out,
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return errors.Join(err, svc.Close())
	}
	logger.Info("listening", "addr", "http://"+ln.Addr().String(), "dynamodb", where, "table", *invoicesTable)
	if listening != nil {
		listening(ln.Addr())
	}
	srv := &http.Server{
		Handler:           withTimeout(svc.Handler(logger), *requestTimeout),
		ReadHeaderTimeout: 5 * time.Second,
	}
	return serve(ctx, srv, ln, svc, logger, *shutdownTimeout)
}

// serve runs srv on ln until ctx ends or srv fails, then shuts it down
// and closes svc, whose Block hands back the audit numbers leased and
// unused.
func serve(ctx context.Context, srv *http.Server, ln net.Listener, svc *Service, logger *slog.Logger, grace time.Duration) error {
	failed := make(chan error, 1)
	go func() { failed <- srv.Serve(ln) }()
	var err error
	select {
	case err = <-failed:
	case <-ctx.Done():
		logger.Info("shutting down", "grace", grace.String())
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
		defer cancel()
		err = srv.Shutdown(shutdown)
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	if err = errors.Join(err, svc.Close()); err != nil {
		return err
	}
	logger.Info("stopped")
	return nil
}

// withTimeout gives each request's context a deadline, so that the calls
// to DynamoDB end with an error the handler can answer, instead of the
// connection being cut.
func withTimeout(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}
