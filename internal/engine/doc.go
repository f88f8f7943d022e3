// Package engine is the library's write engine: it owns the life of a
// batch, from the call that queues it to the answer that settles it, for
// every strategy of the root package (SortKey, Latest and Counter, with and
// without transactions). A strategy supplies only how to build its request
// and how to read its answer.
//
// One concept per file:
//   - queue.go: the calls of one key queue and are batched; the first caller
//     leads, runs a batch and hands the lead on (Group, Call); what the run
//     does with its calls: their writes' size (BatchLen, RunBatches, key
//     items included), the numbers published before the write (Publish),
//     the calls put back after a lost race (RaceLost, PutBack), and a hot
//     name's callers kept together (Linger).
//   - capacity.go: the pace of a name's writes: the rate DynamoDB admitted
//     them at (Capacity), the table's write budget in a process, in which
//     its names take turns once a ceiling they share throttles them
//     (Share), and a run's steps before and after each write (Slot before
//     it; Pace.Won or WonBatch after it, with the units Charged says);
//     scope.go reads which ceiling a throttle met (ThrottleScope).
//   - turns.go: the turns that processes writing one name flat out take, and
//     the write tokens that name them.
//   - send.go: one request on the wire: its resends while its outcome is
//     unknown (Resender), the strategy's round trips (RoundTrip), the probe that tells whether it was sent, the
//     library's own handling of throttles (OwnBackpressure), and the brief
//     form of the SDK's errors (BriefSDK).
//   - verdict.go: the one decision on a write's answer (Decide: stored,
//     unknown, throttled, conflict, lost race, refused item, key taken,
//     other; DecideWrite for a write's own key items), read by the SDK's typed errors, error codes and cancellation
//     reasons, never by message text; faults.go names the items a cancelled
//     transaction refused, keys.go the key items (KeyItems) that came back
//     with a failed condition on an idempotency key.
//
// docs/architecture.md follows one call through these files.
package engine
