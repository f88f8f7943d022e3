package dynamoseqtest

import (
	"math"
	"time"
)

// z99 is the standard normal's 99th percentile.
const z99 = 2.3263478740

// draw draws an answer time from a log-normal distribution with l's
// median (plus extra) and 99th percentile, bounded at four times the
// 99th percentile. m.mu must be held.
func (m *model) draw(l Latency, extra time.Duration) time.Duration {
	if m.rules.latencyOff {
		return 0
	}
	p50, p99 := float64(l.P50+extra), float64(max(l.P99, l.P50+extra))
	sigma := math.Log(p99/p50) / z99
	d := p50 * math.Exp(sigma*m.rnd.NormFloat64())
	return time.Duration(math.Min(d, 4*p99))
}

// latencyOf draws the answer time of an admitted request. m.mu must be
// held.
func (m *model) latencyOf(req *request) time.Duration {
	switch req.op {
	case opPut, opUpdate, opDelete:
		return m.draw(m.rules.write, 0)
	case opGet, opQuery:
		return m.draw(m.rules.read, 0)
	}
	extra := time.Duration(max(0, len(req.targets)-5)) * m.rules.transactPerItem
	return m.draw(m.rules.transact, extra)
}
