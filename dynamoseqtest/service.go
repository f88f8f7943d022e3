package dynamoseqtest

import (
	"fmt"
	"math"
	"time"
)

// Service holds the rules of Amazon DynamoDB that the service model (Start
// with WithService) adds in front of DynamoDB Local, which has none of them.
// The zero Service is the service as AWS documents it; each field's comment
// gives its default and its source, and docs/real-dynamodb.md in the
// dynamoseq repository gives each rule in full.
type Service struct {
	// WriteUnits is the write capacity one partition key value serves a
	// second, in either capacity mode. Default 1,000: "each partition
	// individually is limited to 1,000 write units per second and 3,000
	// read units per second"
	// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html).
	WriteUnits float64

	// ReadUnits is the read capacity of one partition key value a second.
	// Default 3,000 (same source).
	ReadUnits float64

	// Burst is how much capacity a partition key value's buckets hold,
	// as time at their rate: a bucket holds WriteUnits×Burst write units
	// and ReadUnits×Burst read units. AWS documents no burst for one
	// partition beyond its per-second limit. Default one second: the
	// limit read as "at most 1,000 units in any one second".
	Burst time.Duration

	// Throttle is the form a throttle takes. Default ThrottleByBillingMode.
	Throttle ThrottleForm

	// CancelledShare is the share of a transaction's write units charged
	// when it is cancelled after it reached the items (a failed
	// condition, a conflict). AWS says a transaction writes every item
	// twice, "one to prepare the transaction and one to commit"
	// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling)
	// and documents no figure for a cancelled one: default 0.5, the
	// prepare writes. A throttled transaction is charged nothing.
	CancelledShare float64

	// Latency is the time the service takes to answer each operation.
	// The zero Latencies is the published figures (see Latencies).
	Latency Latencies

	// Scale slows the service's time: at scale s every capacity is
	// multiplied by s and every duration (latency, Burst, the token
	// window of ClientRequestToken) divided by s. The units one round trip
	// carries, the share of the ceiling a pattern reaches and the number
	// of round trips a bucket holds are unchanged, so a test on a small
	// machine sees the dynamics of the service at a rate it can keep up
	// with. Scale 0.3 gives 300 write units a second per partition key
	// value and a PutItem p50 of 25ms. Default 1.
	Scale float64

	// Seed seeds the latency draws, so that a run can be repeated (as far
	// as the order of concurrent requests allows).
	Seed uint64
}

// ThrottleForm is the form in which the model refuses a request over its
// partition's capacity.
type ThrottleForm int

const (
	// ThrottleByBillingMode throttles as the service does a table of the
	// table's billing mode: on-demand tables (PAY_PER_REQUEST) as
	// ThrottleOnDemand, provisioned tables as ThrottleProvisioned.
	ThrottleByBillingMode ThrottleForm = iota

	// ThrottleOnDemand answers ThrottlingException, and cancels a
	// transaction with reason ThrottlingError at the throttled items.
	ThrottleOnDemand

	// ThrottleProvisioned answers ProvisionedThroughputExceededException,
	// and cancels a transaction with reason ProvisionedThroughputExceeded
	// at the throttled items.
	ThrottleProvisioned
)

func (f ThrottleForm) String() string {
	switch f {
	case ThrottleByBillingMode:
		return "by billing mode"
	case ThrottleOnDemand:
		return "on-demand"
	case ThrottleProvisioned:
		return "provisioned"
	}
	return fmt.Sprintf("ThrottleForm(%d)", int(f))
}

// Latency is the distribution of an operation's answer time: log-normal
// with this median and 99th percentile, bounded at four times P99.
type Latency struct {
	P50, P99 time.Duration
}

// Latencies are the answer times of the modelled operations. A zero field
// is its default; operations the model passes through (CreateTable,
// DescribeTable, Scan, BatchWriteItem...) get no added latency.
type Latencies struct {
	// Write is PutItem's, UpdateItem's and DeleteItem's. Default p50
	// 7.5ms, p99 16ms, measured from an EC2 instance in the table's Region
	// (https://www.alexdebrie.com/posts/dynamodb-transactions-performance/).
	Write Latency

	// Read is GetItem's and Query's, and that of a refusal (a throttle, a
	// conflict, a token in progress): one round trip, no commit. No
	// figure is published; default Write's: a strongly consistent read is
	// one round trip to the partition's leader, as a write is (which
	// waits for one more replica), so this errs on the long side, where
	// races show.
	Read Latency

	// Transact is TransactWriteItems' and TransactGetItems' for up to 5
	// items. Default p50 25ms, p99 95ms (same source: 5 and 25 items
	// measured p50 25ms and 32ms, p99 about 95ms).
	Transact Latency

	// TransactPerItem is added to Transact's P50 for each item beyond 5.
	// Default 0.35ms: 25ms at 5 items, 32ms at 25.
	TransactPerItem time.Duration

	// Off answers as soon as DynamoDB Local does: no latency is added.
	Off bool
}

// Defaults of Service, before Scale.
const (
	DefaultWriteUnits     = 1000
	DefaultReadUnits      = 3000
	DefaultBurst          = time.Second
	DefaultCancelledShare = 0.5
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
	if s.WriteUnits < 0 || s.ReadUnits < 0 || s.Burst < 0 {
		return rules{}, fmt.Errorf("dynamoseqtest: Service capacities must not be negative")
	}
	if s.CancelledShare < 0 || s.CancelledShare > 1 {
		return rules{}, fmt.Errorf("dynamoseqtest: Service.CancelledShare %v: want 0 to 1", s.CancelledShare)
	}
	if s.Throttle < ThrottleByBillingMode || s.Throttle > ThrottleProvisioned {
		return rules{}, fmt.Errorf("dynamoseqtest: Service.Throttle %v: unknown form", s.Throttle)
	}
	burst := s.Burst
	if burst == 0 {
		burst = DefaultBurst
	}
	r := rules{
		writeRate:       def(s.WriteUnits, DefaultWriteUnits) * scale,
		readRate:        def(s.ReadUnits, DefaultReadUnits) * scale,
		throttle:        s.Throttle,
		cancelledShare:  def(s.CancelledShare, DefaultCancelledShare),
		latencyOff:      s.Latency.Off,
		tokenWindow:     scaled(tokenWindow, scale),
		seed:            s.Seed,
		scale:           scale,
		transactPerItem: scaled(orDuration(s.Latency.TransactPerItem, 350*time.Microsecond), scale),
	}
	// A bucket holds Burst of time at its rate; both scale alike, so the
	// units it holds do not change with the scale.
	r.writeDepth = r.writeRate * scaled(burst, scale).Seconds()
	r.readDepth = r.readRate * scaled(burst, scale).Seconds()
	r.write = s.Latency.Write.orDefault(defaultWriteLatency).scaled(scale)
	r.read = s.Latency.Read.orDefault(s.Latency.Write.orDefault(defaultWriteLatency)).scaled(scale)
	r.transact = s.Latency.Transact.orDefault(defaultTransactLatency).scaled(scale)
	for _, l := range []Latency{r.write, r.read, r.transact} {
		if l.P50 <= 0 || l.P99 < l.P50 {
			return rules{}, fmt.Errorf("dynamoseqtest: Service.Latency %v: want 0 < P50 <= P99", l)
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

func orDuration(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}
