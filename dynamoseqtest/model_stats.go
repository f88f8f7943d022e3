package dynamoseqtest

// ModelStats are the cumulative figures of a service model: what it was
// asked, what it charged and what it refused, per operation and per
// partition key value.
type ModelStats struct {
	// Operations are keyed by operation name, such as "PutItem";
	// operations the model passes through count their requests only.
	Operations map[string]OperationStats

	// Partitions are the partition key values the modelled operations
	// touched.
	Partitions map[Partition]PartitionStats
}

// OperationStats are the figures of one operation.
type OperationStats struct {
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
}

// Partition names a partition key value of a table. Key is the value
// with its type, such as "S:SEQ#orders" or "N:42".
type Partition struct {
	Table, Key string
}

// PartitionStats are the figures of one partition key value.
type PartitionStats struct {
	Requests   int64
	WriteUnits float64
	ReadUnits  float64
	Throttled  int64 // requests throttled, in either form
	Conflicts  int64 // requests refused or cancelled for a conflict
}

// Total adds up the figures of every operation.
func (s ModelStats) Total() OperationStats {
	var t OperationStats
	for _, o := range s.Operations {
		t.Requests += o.Requests
		t.WriteUnits += o.WriteUnits
		t.ReadUnits += o.ReadUnits
		t.Throttled += o.Throttled
		t.ThrottledCancellations += o.ThrottledCancellations
		t.Conflicts += o.Conflicts
		t.ConflictCancellations += o.ConflictCancellations
		t.Cancellations += o.Cancellations
		t.InProgress += o.InProgress
		t.Replays += o.Replays
	}
	return t
}
