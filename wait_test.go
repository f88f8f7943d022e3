package dynamoseq_test

import (
	"testing"
	"time"
)

// giveUpAt returns when a test that waits for an event gives up: before
// the test binary's deadline (go test -timeout) by a tenth of the time
// left, at most 30 seconds, so that it fails with its own message and
// cleans up; with no timeout, never (the zero Time).
func giveUpAt(t *testing.T) time.Time {
	d, ok := t.Deadline()
	if !ok {
		return time.Time{}
	}
	return d.Add(-min(time.Until(d)/10, 30*time.Second))
}

// pollUntil calls cond until it holds, at growing intervals of 1 to 50
// ms, and says whether it did before giveUpAt(t).
func pollUntil(t *testing.T, cond func() bool) bool {
	t.Helper()
	end := giveUpAt(t)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		if cond() {
			return true
		}
		if !end.IsZero() && time.Now().After(end) {
			return false
		}
		<-time.After(wait)
	}
}
