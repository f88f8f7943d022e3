package dynamoseqtest

// StartOption changes what Start returns.
type StartOption func(*startConfig)

type startConfig struct {
	service  *Service
	upstream string
}

// WithService makes Start return a model of Amazon DynamoDB of the test's
// own: a server on a loopback port that speaks DynamoDB's protocol, in
// front of DynamoDB Local, which adds the service's rules that DynamoDB
// Local lacks, as svc sets them (the zero Service: as AWS documents them):
//
//   - capacity per partition key value: token buckets of write units
//     (1,000 a second) and read units (3,000 a second), charged as the
//     service charges (1 write unit per KB written, also when a condition
//     fails; 1 read unit per 4 KB read strongly, half eventually; twice
//     that in a transaction);
//   - throttling over that capacity, in the form of an on-demand table
//     (ThrottlingException; a transaction cancelled with reason
//     ThrottlingError) or of a provisioned one
//     (ProvisionedThroughputExceededException; reason
//     ProvisionedThroughputExceeded), with HTTP 400 and ThrottlingReasons;
//   - conflicts: while a TransactWriteItems is in flight its items are
//     held, and another transaction on one of them is cancelled with
//     reason TransactionConflict, a PutItem, UpdateItem or DeleteItem of
//     one refused with TransactionConflictException;
//   - latency: each answer is held until a time drawn for its operation
//     has passed since the request arrived;
//   - ConsumedCapacity in the answers that ask for it, as the model
//     charged;
//   - figures per operation and per partition key value (ModelStats).
//
// Every other operation (CreateTable, DescribeTable, Scan, BatchWriteItem,
// ...) passes through unchanged. Clients from Client and worker processes
// given Endpoint share the model. It stops when the test ends.
func WithService(svc Service) StartOption {
	return func(c *startConfig) { c.service = &svc }
}

// WithUpstream puts the model of WithService in front of the DynamoDB (Local)
// at endpoint, such as a server of New, instead of the shared one.
func WithUpstream(endpoint string) StartOption {
	return func(c *startConfig) { c.upstream = endpoint }
}

// ModelStats returns the figures of a server started with WithService so
// far; the zero ModelStats for any other.
func (s *Server) ModelStats() ModelStats {
	if s.model == nil {
		return ModelStats{}
	}
	return s.model.stats()
}
