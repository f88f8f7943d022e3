package engine

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dynamoseq/dynamoseq/internal/backoff"
)

// The test of this file runs Turns as Latest uses them, from writers of
// several simulated processes on one name of a simulated table, in real
// time: a transaction holds the name's head while it is in flight (a
// write that meets it is refused for a conflict), a write whose condition
// on the head fails loses the race and learns the head and its turn, a
// read returns the head. No capacity is modelled: a writer flat out, that
// never pauses, is what starves the others.

// simStore is the simulated name.
type simStore struct {
	mu        sync.Mutex // protects what follows
	rng       *rand.Rand
	head      int64     // the last version written, or being written
	committed int64     // the last version a read sees
	token     string    // the write token of the write of committed
	busyUntil time.Time // when the write in flight ends
	tx, read  time.Duration
}

func (s *simStore) latency(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.7 + 0.9*s.rng.Float64()))
}

// write writes n versions after prev with write token tok, and returns its
// verdict and, for a lost race, the head and its write token.
func (s *simStore) write(prev int64, n int, tok string) (Verdict, int64, string) {
	s.mu.Lock()
	now, lat := time.Now(), s.latency(s.tx)
	switch {
	case now.Before(s.busyUntil):
		s.mu.Unlock()
		time.Sleep(lat / 3)
		return Conflict, 0, ""
	case prev != s.head:
		head, tok := s.head, s.token
		s.mu.Unlock()
		time.Sleep(lat / 3)
		return LostRace, head, tok
	}
	s.head += int64(n)
	s.busyUntil = now.Add(lat)
	s.mu.Unlock()
	time.Sleep(lat)
	s.mu.Lock()
	s.committed, s.token = prev+int64(n), tok
	s.mu.Unlock()
	return Stored, 0, ""
}

func (s *simStore) readHead() (int64, string) {
	s.mu.Lock()
	lat := s.latency(s.read)
	s.mu.Unlock()
	time.Sleep(lat)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.committed, s.token
}

// simProc is one simulated process: its callers queue, its writer writes
// what is queued, at most 16 at a time.
type simProc struct {
	store   *simStore
	skew    time.Duration // how far its clock runs ahead of the others'
	turns   Turns
	cap     Capacity
	known   bool
	version int64
	mu      sync.Mutex // protects queue
	queue   []chan struct{}
	ready   chan struct{}
	// What the writer did: its writes stored, and the most races lost
	// (Retry.MaxAttempts counts them; conflicts it does not) and
	// conflicts in a row of one batch.
	won, maxRaces, maxConflicts int
}

// call queues a call and waits until it is written, or ctx ends.
func (p *simProc) call(ctx context.Context) {
	done := make(chan struct{})
	p.mu.Lock()
	p.queue = append(p.queue, done)
	p.mu.Unlock()
	select {
	case p.ready <- struct{}{}:
	default:
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// token returns the write token of a write in turn tn, as the process
// writes it by its clock.
func (p *simProc) token(tn Turn) string {
	if !tn.IsZero() {
		tn.end = tn.end.Add(p.skew)
	}
	return token("sim", 0, tn, time.Now().Add(p.skew))
}

// parse returns the turn of the write token tok, as the process reads it
// by its clock.
func (p *simProc) parse(tok string) Turn {
	_, tn, _ := ParseToken(tok)
	if !tn.IsZero() {
		tn.end = tn.end.Add(-p.skew)
	}
	return tn
}

// take adds the queued calls to batch, up to 16.
func (p *simProc) take(batch []chan struct{}) []chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := min(len(p.queue), 16-len(batch))
	batch = append(batch, p.queue[:n]...)
	p.queue = p.queue[n:]
	return batch
}

// writer writes the process's calls as Latest's runs do: it takes turns
// (Turns.Take), writes, and tells the turns what happened; a conflict
// waits as engine.Capacity says after a first one (see pacing.conflicted).
func (p *simProc) writer(ctx context.Context, maxDelay time.Duration) {
	var batch []chan struct{}
	races, conflicts := 0, 0
	for ctx.Err() == nil {
		if batch = p.take(batch); len(batch) == 0 {
			select {
			case <-p.ready:
			case <-ctx.Done():
			}
			continue
		}
		tn, err := p.turns.Take(ctx, &p.known, maxDelay, func(time.Duration) {}, func() (Turn, error) {
			v, tok := p.store.readHead()
			p.version = v
			return p.parse(tok), nil
		})
		if err != nil {
			return
		}
		start := time.Now()
		verdict, head, tok := p.store.write(p.version, len(batch), p.token(tn))
		switch verdict {
		case Stored:
			p.turns.Won(start, tn)
			p.won++

			p.cap.Reset()
			p.version += int64(len(batch))
			for _, c := range batch {
				close(c)
			}
			batch, races, conflicts = nil, 0, 0
		case LostRace:
			p.known, p.version = true, head
			p.turns.Lost(start)
			p.turns.Saw(p.parse(tok), maxDelay)
			races++
		case Conflict:
			p.turns.Conflicted(start)
			p.known = false
			p.cap.Reset()
			conflicts++
			_ = backoff.Sleep(ctx, p.cap.Conflict(p.turns.RoundTrip()))
		}
		p.maxRaces, p.maxConflicts = max(p.maxRaces, races), max(p.maxConflicts, conflicts)
	}
}

// simRun runs procs processes of goroutines callers each, process i
// starting stagger*i after the first, its clock skew*i ahead of the first's, for d, and returns the latencies of
// the calls that ended after warm, sorted, the most races lost and
// conflicts in a row of a batch, and the fewest writes a process stored.
func simRun(procs, goroutines int, stagger, skew, warm, d time.Duration, seed uint64) (lats []time.Duration, races, conflicts, fewest int) {
	store := &simStore{rng: rand.New(rand.NewPCG(seed, 2)), tx: 25 * time.Millisecond, read: 7 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	begin := time.Now()
	var mu sync.Mutex // protects lats
	var wg sync.WaitGroup
	ps := make([]*simProc, procs)
	for i := range procs {
		p := &simProc{store: store, skew: time.Duration(i) * skew, ready: make(chan struct{}, 1)}
		ps[i] = p
		wg.Add(1)
		go func() {
			defer wg.Done()
			if backoff.Sleep(ctx, time.Duration(i)*stagger) != nil {
				return
			}
			var cw sync.WaitGroup // the writer and the callers
			cw.Add(1)
			go func() {
				defer cw.Done()
				p.writer(ctx, 200*time.Millisecond)
			}()
			for range goroutines {
				cw.Add(1)
				go func() {
					defer cw.Done()
					for ctx.Err() == nil {
						t0 := time.Now()
						p.call(ctx)
						if t1 := time.Now(); t1.Sub(begin) > warm {
							mu.Lock()
							lats = append(lats, t1.Sub(t0))
							mu.Unlock()
						}
					}
				}()
			}
			cw.Wait()
		}()
	}
	wg.Wait()
	slices.Sort(lats)
	fewest = ps[0].won
	for _, p := range ps {
		races, conflicts, fewest = max(races, p.maxRaces), max(conflicts, p.maxConflicts), min(fewest, p.won)
	}
	return lats, races, conflicts, fewest
}

// quantile is the q quantile of lats, sorted.
func quantile(lats []time.Duration, q float64) time.Duration {
	if len(lats) == 0 {
		return 0
	}
	return lats[min(len(lats)-1, int(q*float64(len(lats))))]
}

// TestTurnsSimulatedProcesses: 4 simulated processes x 4 goroutines on one
// name, started together and 0.3 s apart: every process stores writes
// (none starves behind one that writes flat out), and no batch loses as
// many races in a row as MaxAttempts allows by default (25). The p99
// latencies beside those of 16 goroutines in one process are logged:
// the root package's TestModelProcessesTail and BenchmarkModelProcesses
// measure them on the service model.
func TestTurnsSimulatedProcesses(t *testing.T) {
	t.Parallel()
	const d, warm = 2 * time.Second, 500 * time.Millisecond
	one, _, _, _ := simRun(1, 16, 0, 0, warm, d, 1)
	t.Logf("1 process x 16: %d calls, p50 %v, p99 %v", len(one), quantile(one, 0.5), quantile(one, 0.99))
	for _, stagger := range []time.Duration{0, 300 * time.Millisecond} {
		lats, races, conflicts, fewest := simRun(4, 4, stagger, 0, warm, d, 1)
		t.Logf("4 processes x 4, %v apart: %d calls, p50 %v, p99 %v; at most %d races lost and %d conflicts in a row; the fewest writes of a process %d",
			stagger, len(lats), quantile(lats, 0.5), quantile(lats, 0.99), races, conflicts, fewest)
		if fewest == 0 {
			t.Errorf("4 processes %v apart: a process stored nothing in %v, want every one to store", stagger, d)
		}
		if races >= 25 {
			t.Errorf("4 processes %v apart: a batch lost %d races in a row, want fewer than 25 (MaxAttempts)", stagger, races)
		}
	}
}

// TestTurnsSimulatedSkew: 2 simulated processes x 4 goroutines on one name,
// the second started 0.3 s after the first, its clock 100 ms and 1 s ahead
// of the first's, or behind: both store writes (a skewed clock costs
// throughput, never progress).
func TestTurnsSimulatedSkew(t *testing.T) {
	t.Parallel()
	const d, warm = 3 * time.Second, 500 * time.Millisecond
	for _, skew := range []time.Duration{100 * time.Millisecond, -100 * time.Millisecond, time.Second, -time.Second} {
		lats, races, conflicts, fewest := simRun(2, 4, 300*time.Millisecond, skew, warm, d, 1)
		t.Logf("2 processes x 4, clocks %v apart: %d calls, p50 %v, p99 %v; at most %d races lost and %d conflicts in a row; the fewest writes of a process %d",
			skew, len(lats), quantile(lats, 0.5), quantile(lats, 0.99), races, conflicts, fewest)
		if fewest == 0 {
			t.Errorf("clocks %v apart: a process stored nothing in %v, want both to store", skew, d)
		}
	}
}
