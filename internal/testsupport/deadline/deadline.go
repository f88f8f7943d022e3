// Package deadline gives tests a context whose deadline passes when the
// test says so, at an event it waits for, not at a time: then its Done
// closes and its Err is context.DeadlineExceeded, as when a real deadline
// passes. Time is then the test's parameter, not the machine's speed.
package deadline

import (
	"context"
	"sync"
	"time"
)

// New returns a context whose Deadline reports a time an hour ahead and
// whose deadline passes when pass is called (pass may be called more than
// once, from any goroutine).
func New() (ctx context.Context, pass func()) {
	d := &deadline{Context: context.Background(), done: make(chan struct{}), at: time.Now().Add(time.Hour)}
	return d, func() { d.once.Do(func() { close(d.done) }) }
}

type deadline struct {
	context.Context // context.Background: no values, never done
	done            chan struct{}
	once            sync.Once
	at              time.Time
}

func (d *deadline) Deadline() (time.Time, bool) { return d.at, true }
func (d *deadline) Done() <-chan struct{}       { return d.done }

func (d *deadline) Err() error {
	select {
	case <-d.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}
