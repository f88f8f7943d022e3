package ddblocal

import (
	"context"
	"os"
	"testing"
)

// TestListensTellsTheServer: listens tells the server's process, which holds
// its port, from another (the test binary), so that a server answered by
// another test binary's server on the same port is not taken for ready.
func TestListensTellsTheServer(t *testing.T) {
	s, err := Start(context.Background())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer s.Stop()
	if mine, known := listens(os.Getpid(), s.port()); !known || mine {
		t.Errorf("listens(test binary, %d) = %v, %v; want false, true", s.port(), mine, known)
	}
	if mine, known := listens(s.cmd.Process.Pid, s.port()); !known || !mine {
		t.Errorf("listens(server, %d) = %v, %v; want true, true", s.port(), mine, known)
	}
}
