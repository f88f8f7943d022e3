package dynamoseqtest

import "time"

// ModelStats are the cumulative figures of a service model (Start with
// WithService): of every request it received, or of one partition key
// value (Partition). Take one before and one after what a test measures,
// and compare.
type ModelStats struct {
	Requests   int64   // requests received; for a partition, the modelled requests on it
	WriteUnits float64 // write units charged
	Throttled  int64   // requests throttled and transactions cancelled for capacity, in either form
	Conflicts  int64   // requests refused and transactions cancelled for a transaction conflict

	// Overrun is how long, in all, answers were held past their drawn
	// latency because DynamoDB Local answered later: what the machine
	// added to the model's latencies (0 with NoLatency). Partition leaves
	// it 0.
	Overrun time.Duration

	ops   map[string]opStats
	parts map[partition]partStats
}

// Partition returns the figures of the partition key value key of table,
// where key is the value with its type, such as "S:SEQ#orders" or "N:42".
func (s ModelStats) Partition(table, key string) ModelStats {
	p := s.parts[partition{table: table, key: key}]
	return ModelStats{Requests: p.Requests, WriteUnits: p.WriteUnits, Throttled: p.Throttled, Conflicts: p.Conflicts}
}

// opStats are the figures of one operation.
type opStats struct {
	Requests   int64   // requests received
	WriteUnits float64 // write units charged
	ReadUnits  float64 // read units charged

	// Throttled counts the requests answered with the throttling
	// exception of the table's form (ThrottlingException or
	// ProvisionedThroughputExceededException).
	Throttled int64

	// ThrottledCancellations counts the transactions cancelled with
	// reason ThrottlingError or ProvisionedThroughputExceeded.
	ThrottledCancellations int64

	// TableThrottled counts the requests of Throttled and
	// ThrottledCancellations that the table's own ceiling refused.
	TableThrottled int64

	// Conflicts counts the PutItem, UpdateItem and DeleteItem requests
	// answered with TransactionConflictException.
	Conflicts int64

	// ConflictCancellations counts the transactions cancelled with reason
	// TransactionConflict.
	ConflictCancellations int64

	// Cancellations counts every TransactionCanceledException, whatever
	// its reasons (failed conditions included).
	Cancellations int64

	// InProgress counts the TransactWriteItems refused with
	// TransactionInProgressException (their ClientRequestToken was in
	// flight); Replays the ones answered as replays of a finished
	// transaction with the same token (charged as reads).
	InProgress, Replays int64

	// Overrun is how long its answers were held past their drawn latency
	// because DynamoDB Local answered later.
	Overrun time.Duration
}

// partition names a partition key value of a table. key is the value
// with its type, such as "S:SEQ#orders" or "N:42".
type partition struct {
	table, key string
}

// partStats are the figures of one partition key value.
type partStats struct {
	Requests   int64
	WriteUnits float64
	ReadUnits  float64
	Throttled  int64 // requests throttled, in either form
	Conflicts  int64 // requests refused or cancelled for a conflict
}

// add adds an operation's figures to s's totals.
func (s *ModelStats) add(o opStats) {
	s.Requests += o.Requests
	s.WriteUnits += o.WriteUnits
	s.Throttled += o.Throttled + o.ThrottledCancellations
	s.Conflicts += o.Conflicts + o.ConflictCancellations
	s.Overrun += o.Overrun
}

// ModelStats returns the figures of a server started with WithService so
// far; the zero ModelStats for any other.
func (s *Server) ModelStats() ModelStats {
	if s.model == nil {
		return ModelStats{}
	}
	return s.model.stats()
}
