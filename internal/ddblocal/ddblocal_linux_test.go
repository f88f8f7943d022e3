package ddblocal

import (
	"context"
	"errors"
	"os"
	"testing"
)

// TestStartOnTakenPort: a server started on a port another server holds
// does not take that server for its own (it once did, and a test that
// killed "its" server found the other still answering); on a port it
// picked, it moves to another.
func TestStartOnTakenPort(t *testing.T) {
	first, err := Start(context.Background())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer first.Stop()
	if mine, known := listens(os.Getpid(), first.port()); !known || mine {
		t.Fatalf("listens(test binary, %d) = %v, %v; want false, true", first.port(), mine, known)
	}
	if mine, known := listens(first.cmd.Process.Pid, first.port()); !known || !mine {
		t.Fatalf("listens(server, %d) = %v, %v; want true, true", first.port(), mine, known)
	}
	second, err := StartConfig(context.Background(), Config{Port: first.port()})
	if err == nil {
		second.Stop()
		t.Fatalf("StartConfig on port %d, held by another server: no error, want %v", first.port(), errPortTaken)
	}
	if !errors.Is(err, errPortTaken) {
		t.Fatalf("StartConfig on port %d, held by another server: %v, want %v", first.port(), err, errPortTaken)
	}
}
