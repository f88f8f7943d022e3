package dynamoseq

import (
	"errors"
	"testing"
	"time"
)

// TestStatsUpdatesDoNotAllocate: what a call of SortKey or Latest updates
// on its happy path, and on an error, allocates nothing.
func TestStatsUpdatesDoNotAllocate(t *testing.T) {
	var s sortKeyStats
	fail := &Error{Op: "SortKey.Append", Err: errors.Join(ErrContention)}
	allocs := testing.AllocsPerRun(1000, func() {
		s.record(1, nil)
		s.batch(3)
		s.requests.put.Add(1)
		s.record(1, fail)
		s.lostRaces.Add(1)
	})
	if allocs != 0 {
		t.Errorf("allocations per update = %v, want 0", allocs)
	}
	if got := s.stats(); got.Calls != 2002 || got.Numbers != 1001 || got.MaxBatch != 3 || got.Errors.Contention != 1001 {
		t.Errorf("stats() = %+v after 1001 runs", got)
	}
}

// TestStatsTurnWaits: every wait for a turn counts, one of no length too
// (the turn had ended by when the writer learned of it), and its length
// adds to TurnWait.
func TestStatsTurnWaits(t *testing.T) {
	var s appendStats
	s.waited(30 * time.Millisecond)
	s.waited(0)
	s.waited(5 * time.Millisecond)
	got := s.stats()
	if got.TurnWaits != 3 || got.TurnWait != 35*time.Millisecond {
		t.Errorf("after waits of 30 ms, 0 and 5 ms: TurnWaits %d, TurnWait %v; want 3 and 35ms", got.TurnWaits, got.TurnWait)
	}
}
