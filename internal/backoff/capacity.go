package backoff

import "time"

// MaxCapacityWait caps Capacity's waits. After a second, a partition's
// per-second budget of units (what DynamoDB throttles by) has come back
// whole: a longer wait would only leave it idle.
const MaxCapacityWait = time.Second

// minCapacityBase is the first wait's ceiling before any round trip was
// measured.
const minCapacityBase = time.Millisecond

// Capacity is the wait of one name's writes for capacity, after DynamoDB
// throttled them or another transaction held their items: exponential with
// full jitter per refusal in a row, the first drawn from [0, one round trip
// of the write], at most MaxCapacityWait; a success starts the count again.
// The zero Capacity has seen no refusal. It is not safe for concurrent
// use: it belongs to the one writer of a name at a time.
type Capacity struct {
	streak int // refusals in a row
	// Rand is Policy.Rand; nil means rand.Int64N.
	Rand func(n int64) int64
}

// Next counts one more refusal and returns the wait before the next send;
// rtt is the write's round trip as measured (0 when none was).
func (c *Capacity) Next(rtt time.Duration) time.Duration {
	c.streak++
	p := Policy{Base: max(rtt, minCapacityBase), Max: MaxCapacityWait, Rand: c.Rand}
	return p.Delay(c.streak)
}

// Reset records a success: the next refusal waits as the first did.
func (c *Capacity) Reset() { c.streak = 0 }

// Streak is how many refusals in a row were counted.
func (c *Capacity) Streak() int { return c.streak }
