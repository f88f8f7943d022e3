// Package dynamoseq mints sequence numbers and readable IDs on Amazon
// DynamoDB, which has no auto-increment.
//
// # Choosing a strategy
//
// Each strategy is a type with a Next method (the Sequencer interface) and
// takes a Client, which *dynamodb.Client satisfies:
//
//   - Counter: one atomic counter item per sequence, one UpdateItem per
//     number, shared by the calls that wait for each other (group commit).
//     Order numbers, user ids, anything that must be unique and roughly
//     increasing, thousands of numbers a second per sequence.
//   - Block: numbers leased from a Counter in ranges and handed out from
//     memory. Event ids, log lines, order lines: millions a second, no
//     network call on the request path, gaps when a process stops without
//     Close (Close hands the unused numbers back).
//   - SortKey: numbers are the sort keys of an item collection, stored
//     together with the item they number. Per-project ticket numbers,
//     invoice numbers that an auditor wants without gaps.
//   - Latest: numbered versions of a document plus a "latest" item, written
//     in one transaction. Document history with a one-read "current version".
//
// Above them, readable IDs whose number restarts each day, month or year
// ("ORD-261122-000042"), written and parsed by a Format: an IDMinter takes
// their numbers from a Counter or a Block; a SortKeyIDMinter from a
// SortKey, gap-free per period, storing an item under each ID (Append) and
// reading it back by its ID (Get). Both can have DynamoDB's Time to Live
// delete what past periods left (IDMinterOptions.TTLAttribute).
//
// # Guarantees and costs
//
//	                     Counter          Block                SortKey          Latest
//	unique               yes              yes                  yes              yes
//	gap-free             no               no                   yes              yes
//	order                increasing per   increasing within    increasing       increasing
//	                     sequence         a process
//	round trips/number   1                1 per block          2, 1 warm        2, 1 warm
//	write units/number   1 (1/k for k     1 per block          1 (2 batched)    4 (2(k+1) for k
//	                     batched)                                                 batched)
//
// "Unique" holds across every process that shares the table. "Gap-free"
// means a number exists only if its item was written: Counter and Block lose
// the numbers that callers take and do not use. A write whose context ends
// (or whose connection drops) after DynamoDB applied it may leave a gap in a
// Counter, never a duplicate.
//
// # Options
//
// Each constructor takes functions that change options of its own type,
// in the style of the AWS SDK: CounterOptions, BlockOptions,
// SortKeyOptions, LatestOptions, IDMinterOptions. A type holds exactly the
// fields its constructor reads (the groups Table and Retry are embedded
// where they apply), so a field another constructor reads does not
// compile. A zero field means its default, named in the field's doc. A
// value out of range is an *OptionError naming the field:
//
//	c, err := dynamoseq.NewCounter(client, "Sequences", func(o *dynamoseq.CounterOptions) {
//		o.KeyPrefix = "SEQ#"
//		o.Start = 1000
//	})
//
// # Tables
//
// Counter needs a table with a String partition key ("pk" by default); many
// sequences share it, one item each, so it can be the table of a
// single-table design (use KeyPrefix). SortKey and Latest need a
// partition key and a Number sort key ("pk", "sk"), or a String sort key
// with SortKeyDigits. The options name the attributes, so existing tables
// such as {NextKey: "user", NextId: 0} work as they are.
// CounterTable, SortKeyTable and LatestTable return the definition of the
// table a strategy needs under given options, and EnsureTable creates it if
// missing, waits for it, enables Time to Live once, and refuses a table of
// another shape:
//
//	err := dynamoseq.EnsureTable(ctx, client, dynamoseq.SortKeyTable("Tickets"), "")
//
// # Listing
//
// SortKey.Items and Latest.Versions return pages of Items; SortKey.All and
// Latest.All return iterators for a range loop that read the pages as the
// loop reaches them, and Item.Decode decodes one into the caller's type:
//
//	for it, err := range tickets.All(ctx, "projectA", dynamoseq.OldestFirst) {
//		var t Ticket
//		if err == nil {
//			err = it.Decode(&t)
//		}
//		if err != nil {
//			return err
//		}
//		fmt.Println(it.Number, t.Title)
//	}
//
// # Global tables
//
// On a DynamoDB global table set the GlobalTable option. With
// GlobalTableMREC (multi-Region eventually consistent) each Region's
// Counter hands out its own slice of the numbers from its own item
// (CounterOptions.Region and Regions), so that Regions never collide;
// SortKey and Latest are refused and belong in one home Region. With
// GlobalTableMRSC Counter and Block work as on one Region, and SortKey and
// Latest write without transactions, which MRSC refuses: one conditional
// PutItem per number, and for Latest the version item first, then 'latest'
// (NoTransactions gives the same path on one Region, for half the write
// units of a Latest).
// See docs/global-tables.md.
//
// # Throttling and deadlines
//
// On the service one partition key value (a hot name) serves at most
// 1,000 write units a second; over that DynamoDB throttles, and a write to
// an item another transaction holds is refused as a conflict. Every
// strategy waits these out itself (the SDK is told not to retry them),
// with waits that follow the refill DynamoDB has shown (and, after a
// throttle, the name's next writes paced at the rate it admitted), while the
// caller's context has time (or Retry.MaxWait, for a context without a
// deadline), and a SortKey's or a Latest's waiting calls join the next
// write. A caller sees ErrThrottled only once its context has ended, with
// nothing stored; while a name's writes are refused, a SortKey or a Latest
// sends no write for a caller whose deadline comes within a round trip, so
// that it gets ErrThrottled then (ErrContention, if the last refusal was a
// conflict) rather than a write in flight at its deadline. The caller's
// deadline bounds every call: a write whose outcome is unknown when it
// passes returns ErrUnknownOutcome within about one round trip
// (Retry.ResolveTimeout settles it past the deadline instead, opt-in).
//
// # Errors
//
// Every error is an *Error that names the operation, the table and the
// sequence (the document, for Latest). Match the cause with errors.Is:
// ErrNotFound, ErrContention, ErrThrottled, ErrExhausted,
// ErrInvalidArgument (with an *OptionError for an option),
// ErrTableNotFound, ErrTableMismatch, ErrClosed, ErrKeyReused (an
// idempotency key sent again with other content), ErrUnknownOutcome (a
// write whose outcome is unknown: its *Error's Number may hold the item),
// context.Canceled, context.DeadlineExceeded; the SDK's typed errors are
// reachable with errors.As.
//
// A request handler tells three cases apart, one way each: RetryAfter
// reports that nothing was stored and the same call may succeed later
// (HTTP 503 with its wait in Retry-After); errors.Is(err,
// ErrUnknownOutcome) that the write may be stored at the *Error's Number
// (500, and read it back); ErrInvalidArgument, ErrNotFound, ErrExhausted,
// ErrTableNotFound and ErrTableMismatch that the request, or the setup, is
// wrong (400, 404, 409, 500). RetryAfter's doc lists the errors of each
// case.
//
// # Exactly once per request key
//
// SortKey.AppendOnce, Latest.AppendOnce, SortKeyIDMinter.AppendOnce,
// Counter.NextOnce and IDMinter.NextOnce take a caller's key, such as an
// HTTP request's Idempotency-Key: the same key on the same sequence within
// Table.KeyWindow (default 24 hours) returns the first call's number with
// replayed true and stores nothing, across retries, processes and
// restarts; the same key with other content returns ErrKeyReused. A key
// item in the same table holds the key, in the same transaction as the
// item (after a Counter's update); calls without a key pay nothing new.
// See docs/idempotency.md for the design and its costs.
//
// # Concurrency
//
// Every type is safe for concurrent use by any number of goroutines and
// keeps no global state. Only Block keeps goroutines running (its
// background refills); its Close stops them. Latest.Versions and Latest.All
// read up to 8 items at once with goroutines that end before a page is
// returned.
package dynamoseq
