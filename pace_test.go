package dynamoseq

import (
	"testing"
	"time"
)

// TestPacerLimit checks when a writer pauses before a write and for how long
// at most. It is the package's own test because pacer is unexported; the
// fairness it buys is shown by TestLatestAppendProcesses and
// TestSortKeyAppendProcesses.
func TestPacerLimit(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	const rtt = 10 * time.Millisecond
	const maxDelay = 200 * time.Millisecond
	contended := now.Add(contentionWindow / 2)
	tests := []struct {
		name string
		p    pacer
		want time.Duration
	}{
		{"never wrote", pacer{contended: contended}, 0},
		{"not contended", pacer{wrote: now.Add(-rtt / 2), rtt: rtt}, 0},
		{"contention over", pacer{wrote: now.Add(-rtt / 2), rtt: rtt, contended: now.Add(-time.Millisecond)}, 0},
		{"not back to back", pacer{wrote: now.Add(-2 * rtt), rtt: rtt, contended: contended}, 0},
		{"back to back, first win", pacer{wrote: now.Add(-rtt / 2), rtt: rtt, contended: contended}, rtt},
		{"third win in a row", pacer{wrote: now.Add(-rtt / 2), rtt: rtt, contended: contended, streak: 3}, 8 * rtt},
		{"long streak, capped by MaxDelay", pacer{wrote: now.Add(-rtt / 2), rtt: rtt, contended: contended, streak: 10}, maxDelay},
		{"huge streak, no overflow", pacer{wrote: now.Add(-rtt / 2), rtt: rtt, contended: contended, streak: 1000}, maxDelay},
		{"slow writes, capped by two round trips", pacer{wrote: now.Add(-time.Second / 2), rtt: time.Second, contended: contended, streak: 5}, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.limit(now, maxDelay); got != tt.want {
				t.Errorf("limit() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPacerWonLost(t *testing.T) {
	t.Parallel()
	var p pacer
	p.won(time.Now().Add(-10 * time.Millisecond))
	if p.rtt < 10*time.Millisecond {
		t.Errorf("rtt after a 10ms write = %v, want at least 10ms", p.rtt)
	}
	if p.streak != 0 {
		t.Errorf("streak after a win while not contended = %d, want 0", p.streak)
	}
	p.lost(time.Now())
	if !p.contended.After(time.Now()) {
		t.Errorf("contended = %v after a lost race, want in the future", p.contended)
	}
	p.won(time.Now())
	p.won(time.Now())
	if p.streak != 2 {
		t.Errorf("streak after two wins while contended = %d, want 2", p.streak)
	}
	p.lost(time.Now())
	if p.streak != 0 {
		t.Errorf("streak after a lost race = %d, want 0", p.streak)
	}
}
