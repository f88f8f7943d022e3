package dynamoseqtest

import "time"

// SetModelClock makes the model behind srv (Start with WithService) read
// the time that its buckets refill by and its tokens expire by from now,
// in place of the real clock, so that a test sets the time a flood is
// measured over. Answers' latency still follows the real clock. It is
// safe to call at any time; the model reads its clock under its lock.
func SetModelClock(srv *Server, now func() time.Time) {
	srv.model.mu.Lock()
	defer srv.model.mu.Unlock()
	srv.model.now = now
}
