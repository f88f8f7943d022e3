package dynamoseqtest

import (
	"fmt"
	"math"
	"time"
)

// Service holds the rules of Amazon DynamoDB that the service model (Start
// with WithService) adds in front of DynamoDB Local, which has none of them.
// The zero Service is the service as AWS documents it: each field's comment
// gives its default, and the package overview says what the model does.
type Service struct {
	// WriteUnits and ReadUnits are the capacity of one partition key value
	// a second, in either capacity mode. Default 1,000 and 3,000, as AWS
	// documents per partition.
	WriteUnits, ReadUnits float64

	// Burst is how much capacity a partition key value's buckets hold, as
	// time at their rate: 20ms to 5s are modelled alike, and a request
	// costing more than a bucket holds passes when it is full. Default one
	// second, a choice of the model: AWS publishes no depth.
	Burst time.Duration

	// Capacity is the capacity schedule: at elapsed service time since the
	// model applied its rules to its first request, every partition's and
	// the table's units are multiplied by Capacity(elapsed), so that steps
	// (1, 3, 6) and outages (0: every modelled request throttled) can be
	// played. Default nil: 1 at all times.
	Capacity func(elapsed time.Duration) float64

	// SplitAfter is split for heat: a partition key value throttled for
	// SplitAfter of service time without its bucket filling up, with
	// requests on two items or more (an item collection: one item cannot
	// split), has its capacity doubled, up to 3 times (8x). Default 0:
	// never. AWS documents the mechanism, not its timing.
	SplitAfter time.Duration

	// BurstCredit is burst capacity: what a partition key value's bucket
	// cannot hold of its refill is saved, up to BurstCredit of its rate
	// (AWS: "up to five minutes (300 seconds) of unused read and write
	// capacity"), and admits requests the bucket refuses, at up to the
	// documented 1,000 write or 3,000 read units a second of a partition.
	// Default 0: none.
	BurstCredit time.Duration

	// ShareCapacity makes a partition key value's reads and writes draw
	// on one capacity, a read unit taking a third of a write unit, as
	// "3,000 read units or 1,000 write units, or a linear combination".
	// Default false: each its own, as AWS documents today.
	ShareCapacity bool

	// Conflicts selects the narrow conflict model: a request meeting an
	// item held by a write in flight conflicts with chance Conflicts, and
	// a PutItem, UpdateItem or DeleteItem that conflicts in the first half
	// of a transaction's flight is carried out and cancels it with
	// TransactionConflict, the transaction carried out only once
	// prepared. Default 0: every meeting conflicts, a single write is
	// refused with TransactionConflictException.
	Conflicts float64

	// TableWriteUnits and TableReadUnits are a table's own ceiling a
	// second, shared by all its partition key values, as a provisioned
	// table's capacity or an on-demand table's maximum or warm throughput
	// (4,000 and 12,000 for a new on-demand table). A request over it is
	// throttled with reason TableWriteProvisionedThroughputExceeded, or in
	// the on-demand form TableWriteMaxOnDemandThroughputExceeded (Read for
	// reads). Default 0: no table ceiling.
	TableWriteUnits, TableReadUnits float64

	// Throttle is the form a throttle takes. Default "": the form of the
	// table's billing mode, as on the service.
	Throttle ThrottleForm

	// WriteLatency is the answer time of PutItem, UpdateItem and DeleteItem,
	// and of GetItem, Query and refusals. Default p50 7.5ms, p99 16ms.
	WriteLatency Latency

	// TransactLatency is the answer time of a transaction of up to 5 items,
	// each item beyond them adding 1.4% of P50. Default p50 25ms, p99 95ms.
	TransactLatency Latency

	// NoLatency answers as soon as DynamoDB Local does.
	NoLatency bool

	// Scale multiplies every capacity by Scale and divides every duration
	// by it, so that a small machine sees the service's dynamics at a rate
	// it keeps up with. Default 1.
	Scale float64

	// Seed seeds the latency draws, so that a run can be repeated.
	Seed uint64
}

// ThrottleForm is the form in which the model refuses a request over its
// partition's capacity; "" is the form of the table's billing mode.
type ThrottleForm string

const (
	// ThrottleOnDemand answers ThrottlingException, and cancels a
	// transaction with reason ThrottlingError at the throttled items.
	ThrottleOnDemand ThrottleForm = "on-demand"

	// ThrottleProvisioned answers ProvisionedThroughputExceededException,
	// and cancels a transaction with reason ProvisionedThroughputExceeded
	// at the throttled items.
	ThrottleProvisioned ThrottleForm = "provisioned"
)

// Latency is the distribution of an operation's answer time: log-normal
// with this median and 99th percentile, bounded at four times P99.
type Latency struct {
	P50, P99 time.Duration
}

// The defaults of Service, before Scale. The figures and their sources are
// in the package overview.
const (
	defaultWriteUnits     = 1000
	defaultReadUnits      = 3000
	defaultBurst          = time.Second
	defaultCancelledShare = 0.5
	// transactPerItemShare is what each item of a transaction beyond 5
	// adds to its P50: 0.35ms of 25ms (25ms at 5 items, 32ms at 25).
	transactPerItemShare = 0.014
)

// The default latencies, before Scale.
var (
	defaultWriteLatency    = Latency{P50: 7500 * time.Microsecond, P99: 16 * time.Millisecond}
	defaultTransactLatency = Latency{P50: 25 * time.Millisecond, P99: 95 * time.Millisecond}
)

// tokenWindow is how long a ClientRequestToken makes a TransactWriteItems
// idempotent after the first request that used it finished: "A client
// token is valid for 10 minutes after the request that uses it finishes."
const tokenWindow = 10 * time.Minute

// rules is a Service with its defaults filled in and its scale applied.
type rules struct {
	writeRate, readRate   float64 // units a second
	writeDepth, readDepth float64 // units a bucket holds
	burst                 float64 // seconds of its rate a bucket holds
	tableWrite, tableRead float64 // a table's units a second; 0: no ceiling
	capacity              func(time.Duration) float64
	splitAfter            time.Duration // 0: never
	credit                float64       // seconds of its rate a partition saves; 0: none
	maxWrite, maxRead     float64       // a partition's documented maximum, scaled
	shared                bool
	conflicts             float64 // the narrow model's chance; 0: the wide model
	throttle              ThrottleForm
	cancelledShare        float64
	write, read, transact Latency
	transactPerItem       time.Duration
	latencyOff            bool
	tokenWindow           time.Duration
	seed                  uint64
	scale                 float64
}

func (s Service) rules() (rules, error) {
	def := func(v, d float64) float64 {
		if v == 0 {
			return d
		}
		return v
	}
	scale := def(s.Scale, 1)
	if scale < 0 || math.IsNaN(scale) || math.IsInf(scale, 0) {
		return rules{}, fmt.Errorf("dynamoseqtest: Service.Scale %v: want a positive number", s.Scale)
	}
	if s.WriteUnits < 0 || s.ReadUnits < 0 || s.Burst < 0 || s.TableWriteUnits < 0 || s.TableReadUnits < 0 {
		return rules{}, fmt.Errorf("dynamoseqtest: Service capacities must not be negative")
	}
	if s.SplitAfter < 0 || s.BurstCredit < 0 || s.Conflicts < 0 || s.Conflicts > 1 || math.IsNaN(s.Conflicts) {
		return rules{}, fmt.Errorf("dynamoseqtest: Service.SplitAfter and BurstCredit must not be negative, Conflicts must be in [0, 1]")
	}
	if s.Throttle != "" && s.Throttle != ThrottleOnDemand && s.Throttle != ThrottleProvisioned {
		return rules{}, fmt.Errorf("dynamoseqtest: Service.Throttle %q: unknown form", s.Throttle)
	}
	burst := s.Burst
	if burst == 0 {
		burst = defaultBurst
	}
	r := rules{
		writeRate:      def(s.WriteUnits, defaultWriteUnits) * scale,
		readRate:       def(s.ReadUnits, defaultReadUnits) * scale,
		tableWrite:     s.TableWriteUnits * scale,
		tableRead:      s.TableReadUnits * scale,
		capacity:       s.Capacity,
		splitAfter:     scaled(s.SplitAfter, scale),
		credit:         scaled(s.BurstCredit, scale).Seconds(),
		maxWrite:       defaultWriteUnits * scale,
		maxRead:        defaultReadUnits * scale,
		shared:         s.ShareCapacity,
		conflicts:      s.Conflicts,
		throttle:       s.Throttle,
		cancelledShare: defaultCancelledShare,
		latencyOff:     s.NoLatency,
		tokenWindow:    scaled(tokenWindow, scale),
		seed:           s.Seed,
		scale:          scale,
	}
	// A bucket holds Burst of time at its rate; both scale alike, so the
	// units it holds do not change with the scale.
	r.burst = scaled(burst, scale).Seconds()
	r.writeDepth = r.writeRate * r.burst
	r.readDepth = r.readRate * r.burst
	r.write = s.WriteLatency.orDefault(defaultWriteLatency).scaled(scale)
	r.read = r.write
	r.transact = s.TransactLatency.orDefault(defaultTransactLatency).scaled(scale)
	r.transactPerItem = time.Duration(float64(r.transact.P50) * transactPerItemShare)
	for _, l := range []Latency{r.write, r.read, r.transact} {
		if l.P50 <= 0 || l.P99 < l.P50 {
			return rules{}, fmt.Errorf("dynamoseqtest: Service latency %v: want 0 < P50 <= P99", l)
		}
	}
	return r, nil
}

func (l Latency) orDefault(d Latency) Latency {
	if l == (Latency{}) {
		return d
	}
	return l
}

func (l Latency) scaled(s float64) Latency {
	return Latency{P50: scaled(l.P50, s), P99: scaled(l.P99, s)}
}

func scaled(d time.Duration, s float64) time.Duration {
	return time.Duration(float64(d) / s)
}
