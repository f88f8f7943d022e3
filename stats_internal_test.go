package dynamoseq

import (
	"errors"
	"testing"
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
