package dynamoseq

import (
	"context"
	"time"

	"github.com/dynamoseq/dynamoseq/internal/backoff"
)

// contentionWindow is how long after a lost race a name counts as
// contended, and its writer paces itself (see pacer).
const contentionWindow = time.Second

// pacer makes the processes that write one name flat out take turns. A
// strategy's per-name hint embeds it; only the run in progress for the name
// touches it (see combine.Group), so it needs no lock.
//
// Why it is needed: a writer that has just won a round knows the name's
// state from its own write, and in one process the calls that queued up
// meanwhile are ready to go, so it writes again at once. A writer of another
// process that lost that round backs off for a random time first, and then
// needs the new state (a SortKey queries it; a Latest has it from the failed
// condition, or reads it after a long backoff). Its write tends to land just
// after the winner's next one, and it loses again: the winner of a round is
// likely to win the next, and a loser can run out of attempts
// (ErrContention) while the others make progress.
//
// What it does: a writer that lost a race within contentionWindow and
// writes back to back (its previous write ended less than a round trip ago)
// waits, before its next write, a random time of up to one round trip,
// doubling with each write it won in a row since, up to the larger of
// MaxDelay and two round trips. So a writer that keeps winning soon leaves a
// gap wide enough for the others, however long their backoff, and the one
// that wins next is the one that starts to wait the least. A writer that
// has not lost a race lately, or that is not writing back to back, does not
// wait, so a single process, or processes that rarely meet on a name, pay
// nothing for this.
//
// The cost is some throughput under contention, traded for a bounded worst
// case; docs/sortkey.md ("Taking turns") gives the measurements.
type pacer struct {
	wrote     time.Time     // when the last write won by this writer ended
	rtt       time.Duration // how long a write takes, a moving average
	contended time.Time     // until when the name counts as contended
	streak    int           // writes won in a row while contended
}

// pace waits as pacer describes, or returns ctx's error if ctx ends first.
// policy gives the ceiling (policy.Max, that is MaxDelay) and the source of
// randomness.
func (p *pacer) pace(ctx context.Context, policy backoff.Policy) error {
	limit := p.limit(time.Now(), policy.Max)
	return sleepBetween(ctx, policy, limit/2, limit)
}

// limit is the longest pause before a write that starts at now, 0 for none:
// one round trip doubled by each write won in a row while contended, up to
// the larger of maxDelay and two round trips.
func (p *pacer) limit(now time.Time, maxDelay time.Duration) time.Duration {
	if p.rtt <= 0 || now.Sub(p.wrote) > p.rtt || !now.Before(p.contended) {
		return 0
	}
	return min(max(maxDelay, 2*p.rtt), p.rtt<<min(p.streak, 16))
}

// sleepBetween sleeps for a random time between lo and hi, or until ctx
// ends and then returns its error.
func sleepBetween(ctx context.Context, policy backoff.Policy, lo, hi time.Duration) error {
	if hi <= 0 {
		return ctx.Err()
	}
	return backoff.Sleep(ctx, lo+backoff.Policy{Base: hi - lo, Max: hi - lo, Rand: policy.Rand}.Delay(1))
}

// won records a write that started at start and has just succeeded.
func (p *pacer) won(start time.Time) {
	p.wrote = time.Now()
	p.sample(p.wrote.Sub(start))
	if start.Before(p.contended) {
		p.streak++
	} else {
		p.streak = 0
	}
}

// sample adds the time a write took to the moving average of round trips.
func (p *pacer) sample(took time.Duration) {
	if p.rtt == 0 {
		p.rtt = took
	}
	p.rtt = (3*p.rtt + took) / 4
}

// lost records a write that started at start and has just lost a race to
// another writer.
func (p *pacer) lost(start time.Time) {
	p.sample(time.Since(start))
	p.contended = time.Now().Add(contentionWindow)
	p.streak = 0
}
