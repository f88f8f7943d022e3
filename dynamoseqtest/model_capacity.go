package dynamoseqtest

import (
	"math"
	"time"
)

// lane is one capacity a request is charged to: a bucket, the units a
// second it refills at before the schedule, and how many of its units one
// unit of the request takes.
type lane struct {
	b      *bucket
	base   float64
	factor float64
	// burst is the rate at which the lane may spend its burst credit on
	// top of base: up to a partition's documented maximum; 0: no credit.
	burst float64
}

// tableState is a table's own ceiling: its buckets, used when the Service
// sets TableWriteUnits or TableReadUnits.
type tableState struct {
	write, read bucket
}

// maxScheduleSteps bounds the samples of the capacity schedule taken over
// one refill: a bucket idle for long is refilled in steps of at least
// 1/maxScheduleSteps of the time it was idle.
const maxScheduleSteps = 2000

// schedule returns the multiplier of every capacity at t on the model's
// clock: Service.Capacity at the service time elapsed since the model's
// first request, never below zero. m.mu must be held.
func (m *model) schedule(t time.Time) float64 {
	if m.rules.capacity == nil {
		return 1
	}
	e := time.Duration(float64(t.Sub(m.origin)) * m.rules.scale)
	return math.Max(0, m.rules.capacity(e))
}

// accrued is what a lane of base units a second gains from from to to,
// following the schedule. m.mu must be held.
func (m *model) accrued(from, to time.Time, base float64) float64 {
	d := to.Sub(from)
	if d <= 0 {
		return 0
	}
	if m.rules.capacity == nil {
		return base * d.Seconds()
	}
	n := int(min(maxScheduleSteps, max(1, d/time.Millisecond)))
	step := d / time.Duration(n)
	var sum float64
	for i := range n {
		sum += m.schedule(from.Add(step*time.Duration(i) + step/2))
	}
	return base * sum * d.Seconds() / float64(n)
}

// refill brings a lane's bucket up to now and returns what it holds at
// most now: Burst of its rate now. A bucket never used is full; a
// schedule that drops takes away what is over the new depth, so that an
// outage admits nothing, and its end refills from empty. m.mu must be
// held.
func (m *model) refill(l lane, now time.Time) (depth float64) {
	depth = l.base * m.schedule(now) * m.rules.burst
	b := l.b
	if b.last.IsZero() {
		b.tokens, b.last, b.spend = depth, now, l.burst*m.rules.burst
		return depth
	}
	if now.After(b.last) {
		add := m.accrued(b.last, now, l.base)
		if l.burst > 0 {
			m.save(l, add, depth, now.Sub(b.last).Seconds())
		}
		b.tokens = math.Min(depth, b.tokens+add)
		b.last = now
	}
	b.tokens = math.Min(b.tokens, depth)
	return depth
}

// save adds to a lane's burst credit what its bucket, up to depth, cannot
// hold of a refill of add units over secs seconds, up to BurstCredit of
// its rate, and refills the credit's spending allowance. m.mu must be
// held.
func (m *model) save(l lane, add, depth, secs float64) {
	b := l.b
	if over := add - math.Max(0, depth-math.Max(b.tokens, 0)); over > 0 {
		b.credit = math.Min(l.base*m.rules.credit, b.credit+over)
	}
	b.spend = math.Min(l.burst*m.rules.burst, b.spend+l.burst*secs)
}

// spends says whether a lane's burst credit admits cost units of the
// request that its bucket refused: the credit holds them and spending
// them keeps the lane within a partition's documented maximum.
func (l lane) spends(cost float64, m *model) bool {
	c := cost * l.factor
	return l.burst > 0 && l.b.credit >= c && l.b.spend >= math.Min(c, l.burst*m.rules.burst)
}

// admits says whether a lane refilled to depth admits cost units of the
// request: nothing while its capacity is zero.
func (l lane) admits(cost, depth float64) bool {
	return depth > 0 && l.b.admits(cost*l.factor, depth)
}

// partLane is the capacity a partition key value's reads or writes are
// charged to. m.mu must be held.
func (m *model) partLane(p *partState, read bool) lane {
	split := max(1, p.split)
	l := lane{b: &p.write, base: m.rules.writeRate * split, factor: 1}
	top := m.rules.maxWrite
	switch {
	case read && m.rules.shared:
		l.factor = m.rules.writeRate / m.rules.readRate
	case read:
		l = lane{b: &p.read, base: m.rules.readRate * split, factor: 1}
		top = m.rules.maxRead
	}
	if m.rules.credit > 0 {
		l.burst = math.Max(0, top-l.base)
	}
	return l
}

// tableLane is a table's own ceiling for reads or writes, and whether the
// Service sets one. m.mu must be held.
func (m *model) tableLane(t *tableInfo, read bool) (lane, bool) {
	rate := m.rules.tableWrite
	if read {
		rate = m.rules.tableRead
	}
	if rate == 0 {
		return lane{}, false
	}
	ts := m.tabs[t.name]
	if ts == nil {
		ts = &tableState{}
		m.tabs[t.name] = ts
	}
	if read {
		return lane{b: &ts.read, base: rate, factor: 1}, true
	}
	return lane{b: &ts.write, base: rate, factor: 1}, true
}

// take takes units[i] from the capacity of the request's target i: its
// partition key value's (its burst credit, where credit admitted the
// request) and its table's. m.mu must be held.
func (m *model) take(req *request, read bool, units []float64, credit map[*partState]bool) {
	for i := range req.targets {
		p := m.part(&req.targets[i])
		l := m.partLane(p, read)
		if credit[p] {
			l.b.credit -= units[i] * l.factor
			l.b.spend -= units[i] * l.factor
		} else {
			l.b.tokens -= units[i] * l.factor
		}
		if tl, ok := m.tableLane(req.targets[i].table, read); ok {
			tl.b.tokens -= units[i]
		}
	}
}

// throttled returns the indexes of the targets that capacity refuses, or
// nil, and whether their table's ceiling refused them (else their
// partition key values' did). The partitions are asked first: a request a
// partition refuses is not charged to the table.
func (m *model) throttled(req *request, a *admission, now time.Time) (bad []int, table bool) {
	cost := map[*partState]float64{}
	tcost := map[*tableInfo]float64{}
	for i := range req.targets {
		cost[m.part(&req.targets[i])] += a.est[i]
		tcost[req.targets[i].table] += a.est[i]
	}
	refused := map[*partState]bool{}
	for p, c := range cost {
		p.stats.Requests++
		l := m.partLane(p, a.read)
		depth := m.refill(l, now)
		switch {
		case l.admits(c, depth):
		case depth > 0 && l.spends(c, m):
			if a.credit == nil {
				a.credit = map[*partState]bool{}
			}
			a.credit[p] = true
		default:
			refused[p] = true
		}
		m.heat(p, req, refused[p], l.b.tokens >= depth, now)
	}
	for i := range req.targets {
		if refused[m.part(&req.targets[i])] {
			bad = append(bad, i)
		}
	}
	if bad != nil {
		return bad, false
	}
	full := map[*tableInfo]bool{}
	for t, c := range tcost {
		if l, ok := m.tableLane(t, a.read); ok && !l.admits(c, m.refill(l, now)) {
			full[t] = true
		}
	}
	for i := range req.targets {
		if full[req.targets[i].table] {
			bad = append(bad, i)
		}
	}
	return bad, bad != nil
}
