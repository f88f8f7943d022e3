package dynamoseq_test

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// BenchmarkModelShapes runs SortKey and Latest, beside their recipes, on
// shapes of the service that one partition's constant capacity does not
// have (dynamoseqtest.Service's TableWriteUnits and Capacity schedule),
// on every bucket depth and seed, as BenchmarkModel's rows:
//
//   - table=<units>wu,names=<n>: n hot names of 2 goroutines each under a
//     table ceiling below the sum of their partitions' (a provisioned
//     table, or an on-demand table's warm throughput). Besides
//     BenchmarkModel's metrics (ceiling-% is then the share of the table's
//     ceiling), name-min and name-max: the least and the most numbers one
//     name stored in one 2-second part of the window (fairness: a name
//     that starves reads 0).
//   - steps=<units>,...: 16 goroutines on one hot name while its capacity
//     steps up (the partition's units times each factor, for a third of
//     the window each), as split for heat or a raised capacity do.
//     step<i>-%: the share of step i's ceiling (its units / the window's
//     units a number) reached from 2 s after the step to the next.
//   - outage=<d>: 16 goroutines on one hot name, without deadline, and
//     capacity cut to nothing for d in the middle of the window.
//     outage-req/s: requests on the name a second during the outage;
//     outage-stored: numbers stored during it (by when their calls
//     returned: a write admitted before the cut may return after it);
//     outage-wu: the write units the model admitted on the name during it
//     (0: nothing stored that was sent in it); recover-ms: from its end to
//     the next number stored; after-ops/s: numbers stored a second from 1 s
//     after its end to the window's end.
//
// Names: BenchmarkModelShapes/<kind>/ondemand/<shape>/burst=<depth>/seed=<n>/<side>.
func BenchmarkModelShapes(b *testing.B) {
	mb := newModelBench(b)
	for _, kind := range []string{"sortkey", "latest"} {
		for _, sh := range modelShapes {
			b.Run(kind+"/ondemand/"+sh.name, func(b *testing.B) {
				mb := mb
				mb.window = time.Duration(float64(sh.window) / mb.scale) // its own, not DYNAMOSEQ_BENCH_WINDOW
				mb.windows(b, false, func(b *testing.B, mb modelBench, seed uint64, mode string) window {
					return sh.run(b, mb, kind, mode, seed)
				})
			})
		}
	}
}

// modelShapes are the shapes of BenchmarkModelShapes: a name, the window
// (in the service's time at Scale 1), and what runs it.
var modelShapes = []struct {
	name   string
	window time.Duration
	run    func(b *testing.B, mb modelBench, kind, mode string, seed uint64) window
}{
	{"table=1000wu,names=8", 6 * time.Second, func(b *testing.B, mb modelBench, kind, mode string, seed uint64) window {
		return mb.runTable(b, kind, mode, seed, 1000, 8)
	}},
	{"outage=3s", 7 * time.Second, func(b *testing.B, mb modelBench, kind, mode string, seed uint64) window {
		return mb.runOutage(b, kind, mode, seed, 3*time.Second)
	}},
	{"steps=100,300,600wu", 18 * time.Second, func(b *testing.B, mb modelBench, kind, mode string, seed uint64) window {
		return mb.runSteps(b, kind, mode, seed, []float64{0.1, 0.3, 0.6})
	}},
}

// schedule is a capacity schedule (Service.Capacity) the benchmark sets
// while it runs: factor from each step's elapsed service time on.
type schedule struct {
	mu    sync.Mutex // protects steps
	steps []scheduleStep
}

type scheduleStep struct {
	from   time.Duration
	factor float64
}

func (s *schedule) at(elapsed time.Duration) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := 1.0
	for _, st := range s.steps {
		if elapsed >= st.from {
			f = st.factor
		}
	}
	return f
}

func (s *schedule) set(steps ...scheduleStep) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = steps
}

// successes records when calls succeeded, per name.
type successes struct {
	mu sync.Mutex // protects at
	at map[string][]time.Time
}

func (s *successes) add(name string, t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.at == nil {
		s.at = map[string][]time.Time{}
	}
	s.at[name] = append(s.at[name], t)
}

// count returns how many successes of name fell in [from, to).
func (s *successes) count(name string, from, to time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, t := range s.at[name] {
		if !t.Before(from) && t.Before(to) {
			n++
		}
	}
	return n
}

// runTable runs one window of names hot names, 2 goroutines each, on a
// table whose own ceiling is tableUnits write units a second.
func (mb modelBench) runTable(b *testing.B, kind, mode string, seed uint64, tableUnits float64, names int) window {
	srv := mb.start(b, dynamoseqtest.ThrottleOnDemand, seed, func(s *dynamoseqtest.Service) { s.TableWriteUnits = tableUnits })
	table := srv.NewTable(b, sortKeyTableDef("bench"))
	writers := 2 * names
	call := benchAppender(b, srv.Client(), table, kind, mode, writers)
	warmUp(b, writers, "warm-", call)
	// The partitions' buckets are not drained (drainPartition): the
	// table's ceiling refuses the drain first. The window may open with
	// the table's bucket (burst of its ceiling) not yet drained by the
	// ramp: ceiling-% then reads up to burst/window over 100.
	name := func(g int) string { return "hot-" + strconv.Itoa(g%names) }
	var ok successes
	var before, after dynamoseqtest.ModelStats
	var open time.Time
	t := mb.runWindow(writers, func(ctx context.Context, g int) error {
		err := call(ctx, g, name(g))
		if err == nil {
			ok.add(name(g), time.Now())
		}
		return err
	}, func() { before, open = srv.ModelStats(), time.Now() }, func() { after = srv.ModelStats() })
	w := window{t: t, capacity: tableUnits * mb.scale, p: dynamoseqtest.ModelStats{
		Requests: after.Requests - before.Requests, WriteUnits: after.WriteUnits - before.WriteUnits,
		Throttled: after.Throttled - before.Throttled, Conflicts: after.Conflicts - before.Conflicts}}
	part := time.Duration(float64(2*time.Second) / mb.scale)
	lo, hi := -1, 0
	for from := open; !from.Add(part).After(open.Add(mb.window)); from = from.Add(part) {
		for n := range names {
			c := ok.count(name(n), from, from.Add(part))
			hi = max(hi, c)
			if lo < 0 || c < lo {
				lo = c
			}
		}
	}
	w.extra = map[string]float64{"name-min": float64(max(lo, 0)), "name-max": float64(hi)}
	return w
}

// runOutage runs one window of 16 goroutines on one hot name, capacity cut
// to nothing for outage from 1 s into the window.
func (mb modelBench) runOutage(b *testing.B, kind, mode string, seed uint64, outage time.Duration) window {
	var sched schedule
	srv := mb.start(b, dynamoseqtest.ThrottleOnDemand, seed, func(s *dynamoseqtest.Service) { s.Capacity = sched.at })
	table := srv.NewTable(b, sortKeyTableDef("bench"))
	const writers, hot = 16, "hot"
	call := benchAppender(b, srv.Client(), table, kind, mode, writers)
	origin := time.Now() // the model's clock starts at its first request, in warmUp: within a round trip after this
	warmUp(b, writers, "warm-", call)
	drainPartition(b, srv.Client(), table, hot, true, mb.depthUnits())
	lead := time.Duration(float64(time.Second) / mb.scale)
	dur := time.Duration(float64(outage) / mb.scale)
	var ok successes
	var open time.Time
	var before, atCut, atEnd, after dynamoseqtest.ModelStats
	done := make(chan struct{})
	t := mb.runWindow(writers, func(ctx context.Context, g int) error {
		err := call(ctx, g, hot)
		if err == nil {
			ok.add(hot, time.Now())
		}
		return err
	}, func() {
		open, before = time.Now(), srv.ModelStats()
		svc := func(d time.Duration) time.Duration { return time.Duration(float64(d) * mb.scale) }
		cut := svc(open.Add(lead).Sub(origin))
		sched.set(scheduleStep{cut, 0}, scheduleStep{cut + svc(dur), 1})
		go func() {
			defer close(done)
			time.Sleep(time.Until(open.Add(lead)))
			atCut = srv.ModelStats()
			time.Sleep(time.Until(open.Add(lead + dur)))
			atEnd = srv.ModelStats()
		}()
	}, func() { after = srv.ModelStats() })
	<-done
	w := window{t: t, p: delta(after, before, table, "S:"+hot)}
	cut, end := open.Add(lead), open.Add(lead+dur)
	recover := -1.0
	ok.mu.Lock()
	ts := slices.Clone(ok.at[hot])
	ok.mu.Unlock()
	slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
	for _, s := range ts {
		if s.After(end) {
			recover = float64(s.Sub(end)) / float64(time.Millisecond)
			break
		}
	}
	during := delta(atEnd, atCut, table, "S:"+hot)
	tail := open.Add(mb.window).Sub(end.Add(lead))
	afterRate := float64(ok.count(hot, end.Add(lead), open.Add(mb.window))) / tail.Seconds()
	w.extra = map[string]float64{
		"outage-req/s":  float64(during.Requests) / dur.Seconds(),
		"outage-stored": float64(ok.count(hot, cut, end)),
		"outage-wu":     during.WriteUnits,
		"recover-ms":    recover,
		"after-ops/s":   afterRate,
	}
	if t.ok > 0 && w.p.WriteUnits > 0 { // the share of the ceiling after, at the window's units a number
		w.extra["after-%"] = 100 * afterRate / (mb.capacity() * float64(t.ok) / w.p.WriteUnits)
	}
	return w
}

// runSteps runs one window of 16 goroutines on one hot name whose
// capacity is the partition's times each of factors in turn, a third of
// the window each.
func (mb modelBench) runSteps(b *testing.B, kind, mode string, seed uint64, factors []float64) window {
	var sched schedule
	sched.set(scheduleStep{0, factors[0]})
	srv := mb.start(b, dynamoseqtest.ThrottleOnDemand, seed, func(s *dynamoseqtest.Service) { s.Capacity = sched.at })
	table := srv.NewTable(b, sortKeyTableDef("bench"))
	const writers, hot = 16, "hot"
	call := benchAppender(b, srv.Client(), table, kind, mode, writers)
	origin := time.Now() // the model's clock starts at its first request, in warmUp
	warmUp(b, writers, "warm-", call)
	drainPartition(b, srv.Client(), table, hot, true, mb.depthUnits()*factors[0])
	step := mb.window / time.Duration(len(factors))
	settle := time.Duration(float64(2*time.Second) / mb.scale)
	var ok successes
	var open time.Time
	var before, after dynamoseqtest.ModelStats
	t := mb.runWindow(writers, func(ctx context.Context, g int) error {
		err := call(ctx, g, hot)
		if err == nil {
			ok.add(hot, time.Now())
		}
		return err
	}, func() {
		open, before = time.Now(), srv.ModelStats()
		steps := []scheduleStep{{0, factors[0]}}
		for i, f := range factors[1:] {
			at := open.Add(time.Duration(i+1) * step).Sub(origin)
			steps = append(steps, scheduleStep{time.Duration(float64(at) * mb.scale), f})
		}
		sched.set(steps...)
	}, func() { after = srv.ModelStats() })
	w := window{t: t, p: delta(after, before, table, "S:"+hot), extra: map[string]float64{}}
	if t.ok == 0 || w.p.WriteUnits <= 0 {
		return w
	}
	perNumber := w.p.WriteUnits / float64(t.ok)
	for i, f := range factors {
		from, to := open.Add(time.Duration(i)*step+settle), open.Add(time.Duration(i+1)*step)
		rate := float64(ok.count(hot, from, to)) / to.Sub(from).Seconds()
		w.extra["step"+strconv.Itoa(i+1)+"-%"] = 100 * rate / (mb.capacity() * f / perNumber)
	}
	return w
}
