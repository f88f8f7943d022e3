package dynamoseq

import (
	"math"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/dynamoseq/dynamoseq/internal/backoff"
	"github.com/dynamoseq/dynamoseq/internal/engine"
)

// Each constructor takes options of its own type, changed by functions in
// the style of the AWS SDK:
//
//	c, err := dynamoseq.NewCounter(client, "Sequences", func(o *dynamoseq.CounterOptions) {
//		o.KeyPrefix = "SEQ#"
//		o.Start = 1000
//	})
//
// A type holds exactly the fields its constructor reads; groups that
// several share (Table, Retry) are embedded. A zero field means its default,
// named in the field's comment. The constructors validate every field
// and return an *OptionError naming the one refused.

// The defaults a zero option stands for.
const (
	defaultPartitionKey     = "pk"      // Table.PartitionKey, of type String
	defaultSortKey          = "sk"      // the sort key attribute's name
	defaultValueAttribute   = "value"   // CounterOptions.ValueAttribute
	defaultVersionAttribute = "version" // LatestOptions.VersionAttribute
	defaultTokenAttribute   = "wtok"    // SortKeyOptions.TokenAttribute, LatestOptions.TokenAttribute

	defaultStart    = 1             // the first value of a new sequence
	defaultStep     = 1             // CounterOptions.Step
	defaultMaxValue = math.MaxInt64 // the largest value of a sequence

	defaultMaxAttempts = 25                     // Retry.MaxAttempts
	defaultBaseDelay   = 2 * time.Millisecond   // Retry.BaseDelay
	defaultMaxDelay    = 200 * time.Millisecond // Retry.MaxDelay
	defaultMaxWait     = time.Minute            // Retry.MaxWait
	maxResolveTimeout  = 5 * time.Minute        // the largest Retry.ResolveTimeout

	defaultRefillThreshold = 0.5              // BlockOptions.RefillThreshold
	defaultBlockGrowth     = 64               // BlockOptions.MaxSize, in times the size given to NewBlock
	defaultRefillTimeout   = 10 * time.Second // BlockOptions.RefillTimeout

	defaultVersionKeyFormat = "%s#v%d"    // LayoutPartitionKey.VersionKeyFormat
	defaultLatestKeyFormat  = "%s#latest" // LayoutPartitionKey.LatestKeyFormat

	defaultRetention = 7 * 24 * time.Hour // IDMinterOptions.TTLRetention

	defaultKeyWindow       = 24 * time.Hour // Table.KeyWindow
	defaultKeyTTLAttribute = "expires"      // Table.KeyTTLAttribute
)

// Table describes a strategy's table: where its items are in it, and what
// kind of table it is. CounterOptions, SortKeyOptions and LatestOptions
// embed it.
type Table struct {
	// PartitionKey is the name of the table's partition key attribute, of
	// type String. Default "pk".
	PartitionKey string

	// KeyPrefix is prepended to every sequence name to form the partition
	// key value, so that sequences can share a single-table design
	// ("SEQ#orders"). Default "".
	KeyPrefix string

	// GlobalTable is the kind of table. Default GlobalTableNone, a table
	// in one Region. A Counter takes all three modes: with GlobalTableMREC
	// each Region hands out its own slice of the numbers (see
	// CounterOptions.Region). SortKey and Latest refuse GlobalTableMREC:
	// gap-free numbering needs one writer per sequence
	// (docs/global-tables.md).
	GlobalTable GlobalTableMode

	// KeyWindow is how long an idempotency key (AppendOnce, NextOnce)
	// names its first call's number: a call with the key within the
	// window replays it, one after it is a new call. Default 24 hours.
	KeyWindow time.Duration

	// KeyTTLAttribute is the Number attribute in which a key item holds
	// the end of its window (Unix epoch seconds). Make it the table's TTL
	// attribute, and DynamoDB deletes the key items whose window ended;
	// the window holds without TTL too (docs/idempotency.md). Default
	// "expires".
	KeyTTLAttribute string

	clock *keyClock // the key items' clock: nil for time.Now, or a test's (a pointer keeps Table comparable)
}

func (k *Table) resolve() error {
	setDefault(&k.PartitionKey, defaultPartitionKey)
	setDefault(&k.KeyWindow, defaultKeyWindow)
	setDefault(&k.KeyTTLAttribute, defaultKeyTTLAttribute)
	switch {
	case k.KeyWindow < 0:
		return optionErrorf("KeyWindow", k.KeyWindow, "want a positive duration (0 means the default)")
	case k.KeyTTLAttribute == k.PartitionKey:
		return optionErrorf("KeyTTLAttribute", k.KeyTTLAttribute, "the partition key's name too").with("PartitionKey", k.PartitionKey)
	case strings.HasPrefix(k.KeyTTLAttribute, keyAttrPrefix):
		return optionErrorf("KeyTTLAttribute", k.KeyTTLAttribute, "an attribute the key items hold already (those starting %q)", keyAttrPrefix)
	}
	if strings.Contains(k.KeyPrefix, keySeparator) {
		return optionErrorf("KeyPrefix", k.KeyPrefix, "holds the byte 0x1f, which the library reserves for idempotency keys")
	}
	if len(k.KeyPrefix) > maxKeyBytes-1 {
		return optionErrorf("KeyPrefix", k.KeyPrefix, "%d bytes long, want at most %d (DynamoDB's limit for a partition key, less a byte of name)", len(k.KeyPrefix), maxKeyBytes-1)
	}
	return nil
}

// Retry bounds how writes are sent again: after a lost race to another
// writer, after a throttle or a conflict, and when their outcome is
// unknown.
type Retry struct {
	// MaxAttempts bounds how many times a write that lost a race to another
	// writer (or, on a multi-Region strongly consistent table, was refused
	// with ReplicatedWriteConflictException) is tried before
	// ErrContention. Throttles and transaction conflicts do not count:
	// they are waited out (see MaxWait). Default 25 (
	// docs/sortkey.md says how it was chosen).
	MaxAttempts int

	// BaseDelay and MaxDelay bound the exponential backoff, with full
	// jitter, between attempts. MaxDelay also caps the turn a writer takes
	// at a name that other processes write, and ten times over the solo
	// turn of a writer alone flat out and the wait for another's turn
	// (docs/sortkey.md, "Many processes, one name"). Defaults 2ms and
	// 200ms.
	BaseDelay time.Duration
	MaxDelay  time.Duration

	// MaxWait bounds how long a call keeps waiting, when its context
	// allows longer (a context without a deadline): for capacity, from
	// its first throttle or conflict to its last send, after which it
	// returns ErrThrottled (or ErrContention for conflicts) with nothing
	// stored; and for the outcome of a write left unknown (with
	// ResolveTimeout 0), after which it returns ErrUnknownOutcome. The
	// waits for capacity themselves grow from one round trip to a second
	// (docs/sortkey.md, "Throttling is backpressure"). Default
	// 1 minute.
	MaxWait time.Duration

	// ResolveTimeout, when above 0, makes a write whose outcome is unknown
	// (its answer was lost, it timed out, DynamoDB answered with a server
	// error) be sent again, identical, for up to ResolveTimeout, even
	// after the caller's context has ended, so that the caller learns
	// whether it was stored; when it runs out the call returns
	// ErrUnknownOutcome. At most 5 minutes, well
	// inside the 10 minutes for which DynamoDB recognises a transaction's
	// ClientRequestToken. Default 0: the caller's deadline bounds the
	// call; the write is sent again only while the caller's context lasts
	// (and MaxWait), and a caller whose context ends first returns, within
	// about one round trip, ErrUnknownOutcome with the number that may
	// hold its item. A Counter (and the Blocks and IDMinters over it)
	// sends a lost update again for up to ResolveTimeout too, but only
	// while its caller's context lasts: an unknown outcome there loses
	// numbers, never hands one out twice.
	ResolveTimeout time.Duration
}

func (r *Retry) resolve() error {
	setDefault(&r.MaxAttempts, defaultMaxAttempts)
	setDefault(&r.BaseDelay, defaultBaseDelay)
	setDefault(&r.MaxDelay, defaultMaxDelay)
	setDefault(&r.MaxWait, defaultMaxWait)
	switch {
	case r.MaxAttempts < 1:
		return optionErrorf("MaxAttempts", r.MaxAttempts, "want at least 1")
	case r.BaseDelay < 0:
		return optionErrorf("BaseDelay", r.BaseDelay, "want at least 0")
	case r.MaxDelay < r.BaseDelay:
		return optionErrorf("MaxDelay", r.MaxDelay, "below the first delay").with("BaseDelay", r.BaseDelay)
	case r.MaxWait < 0:
		return optionErrorf("MaxWait", r.MaxWait, "want at least 0 (0 means the default)")
	case r.ResolveTimeout < 0 || r.ResolveTimeout > maxResolveTimeout:
		return optionErrorf("ResolveTimeout", r.ResolveTimeout, "want 0 (the default) up to %v", maxResolveTimeout)
	}
	return nil
}

// policy is the backoff between attempts that r describes.
func (r Retry) policy() backoff.Policy {
	return backoff.Policy{Base: r.BaseDelay, Max: r.MaxDelay}
}

// resender is the engine.Resender that sends again, identical, a write
// whose outcome is unknown, with r's backoff: while the caller's context
// lasts and for at most r.MaxWait, or, with r.ResolveTimeout set, for up
// to that past the caller's deadline; it counts the requests sent again in
// resent (nil counts nothing).
func (r Retry) resender(resent *atomic.Int64) engine.Resender {
	return engine.Resender{Timeout: r.ResolveTimeout, Bound: r.MaxWait, Policy: r.policy(), Resent: resent, Unknown: ErrUnknownOutcome}
}

// CounterOptions are NewCounter's options, and CounterTable's.
type CounterOptions struct {
	Table

	// SortKeyValue, when set, puts every counter item at this String
	// value of the table's sort key, {PartitionKey: KeyPrefix+name,
	// SortKey: SortKeyValue}, for a single-table design ("COUNTER" beside
	// a user's other items); at most 1,024 bytes of UTF-8. Default "": the
	// table has a partition key only.
	SortKeyValue string

	// SortKey is the name of the table's sort key attribute, of type
	// String, read only with SortKeyValue. Default "sk".
	SortKey string

	// ValueAttribute is the Number attribute that holds a counter's last
	// value handed out. Default "value".
	ValueAttribute string

	// Start is the first value of a new sequence; an existing counter
	// continues from its stored value. Default 1; must be
	// positive.
	Start int64

	// Step is the difference between consecutive values. Default
	// 1; must be positive.
	Step int64

	// MaxValue is the largest value a sequence hands out; past it calls
	// return ErrExhausted and leave the stored value unchanged. Default
	// math.MaxInt64.
	MaxValue int64

	// Retry bounds the resends of an update whose outcome is unknown
	// (ResolveTimeout) and of one refused by a replicated write conflict
	// on a multi-Region strongly consistent table (MaxAttempts and the
	// delays).
	Retry

	// Region is the Region of the replica this process writes to, such as
	// "eu-west-1". Required with GlobalTableMREC, and one of Regions; set
	// with another mode, it is refused.
	Region string

	// Regions is the ordered list of the global table's Regions, which
	// every process writing the table must be given identically: the
	// position of Region in it decides which numbers this process hands
	// out. No duplicates, no empty names. Required with GlobalTableMREC;
	// set with another mode, it is refused. List now a Region you may add
	// later, and adding it needs no migration.
	Regions []string
}

func (o *CounterOptions) resolve() error {
	if err := o.Table.resolve(); err != nil {
		return err
	}
	setDefault(&o.ValueAttribute, defaultValueAttribute)
	if o.ValueAttribute == o.PartitionKey {
		return optionErrorf("ValueAttribute", o.ValueAttribute, "a key attribute's name too").with("PartitionKey", o.PartitionKey)
	}
	switch {
	case o.SortKeyValue != "":
		if err := o.resolveSortKey(); err != nil {
			return err
		}
	case o.SortKey != "":
		return optionErrorf("SortKeyValue", "", "want the String value every counter item has at the sort key").with("SortKey", o.SortKey)
	}
	setDefault(&o.Step, defaultStep)
	if o.Step < 1 {
		return optionErrorf("Step", o.Step, "want at least 1")
	}
	if err := resolveRange(&o.Start, &o.MaxValue); err != nil {
		return err
	}
	if err := o.Retry.resolve(); err != nil {
		return err
	}
	o.Regions = append([]string(nil), o.Regions...)
	return o.validateGlobal()
}

// validateGlobal checks GlobalTable, Region and Regions.
func (o *CounterOptions) validateGlobal() error {
	if err := checkMode(o.GlobalTable); err != nil {
		return err
	}
	if o.GlobalTable != GlobalTableMREC {
		const reason = "read only on a multi-Region eventually consistent table"
		switch {
		case o.Region != "":
			return optionErrorf("Region", o.Region, reason).with("GlobalTable", o.GlobalTable)
		case len(o.Regions) > 0:
			return optionErrorf("Regions", o.Regions, reason).with("GlobalTable", o.GlobalTable)
		}
		return nil
	}
	if len(o.Regions) == 0 {
		return optionErrorf("Regions", o.Regions, "want the ordered list of the table's Regions, which a multi-Region eventually consistent table needs")
	}
	seen := make(map[string]bool, len(o.Regions))
	for i, r := range o.Regions {
		switch {
		case r == "":
			return optionErrorf("Regions", o.Regions, "entry %d is empty", i)
		case seen[r]:
			return optionErrorf("Regions", o.Regions, "lists %q twice", r)
		}
		seen[r] = true
	}
	if !seen[o.Region] {
		return optionErrorf("Region", o.Region, "not one of the table's Regions; a multi-Region eventually consistent table needs this process's Region").with("Regions", o.Regions)
	}
	return nil
}

func (o *CounterOptions) resolveSortKey() error {
	setDefault(&o.SortKey, defaultSortKey)
	if o.KeyTTLAttribute == o.SortKey {
		return optionErrorf("KeyTTLAttribute", o.KeyTTLAttribute, "a key attribute's name too").with("SortKey", o.SortKey)
	}
	switch k := o.SortKeyValue; {
	case o.SortKey == o.PartitionKey:
		return optionErrorf("SortKey", o.SortKey, "the partition key's name too").with("PartitionKey", o.PartitionKey)
	case o.SortKey == o.ValueAttribute:
		return optionErrorf("SortKey", o.SortKey, "the value attribute's name too").with("ValueAttribute", o.ValueAttribute)
	case len(k) > maxSortKeyBytes:
		return optionErrorf("SortKeyValue", k, "%d bytes long, DynamoDB's limit for a sort key is %d", len(k), maxSortKeyBytes)
	case !utf8.ValidString(k):
		return optionErrorf("SortKeyValue", k, "not valid UTF-8")
	}
	return nil
}

// resolveRange applies the defaults of Start and MaxValue and checks them.
func resolveRange(start, maxValue *int64) error {
	setDefault(start, defaultStart)
	setDefault(maxValue, defaultMaxValue)
	switch {
	case *start < 1:
		return optionErrorf("Start", *start, "want at least 1")
	case *maxValue < *start:
		return optionErrorf("MaxValue", *maxValue, "below the first value").with("Start", *start)
	}
	return nil
}

// BlockOptions are NewBlock's options. The table, the keys, Start, Step,
// MaxValue and the Region slicing are the Counter's.
type BlockOptions struct {
	// MaxSize bounds the range size. Default 64 times the size given to
	// NewBlock; at least that size. The larger the ranges, the more
	// numbers a process that stops without Close loses. MaxSize equal to
	// the size makes the size fixed (unless Lifetime is set).
	MaxSize int64

	// RefillTimeout bounds one lease (one Counter.NextN, with the SDK's
	// retries), so that a request that never gets an answer does not hold
	// up every later caller, and the hand-backs of Close in all. Default
	// 10s.
	RefillTimeout time.Duration

	// Lifetime, when set, sizes every range to last about Lifetime at the
	// rate the previous one was used, between MinSize and MaxSize, so that
	// an idle name leases small ranges. Default 0: ranges start at the
	// size given to NewBlock and grow after a caller had to wait for a
	// lease (see NewBlock).
	Lifetime time.Duration

	// MinSize is the smallest range when Lifetime is set. Default 1; at
	// most the size given to NewBlock.
	MinSize int64

	refillThreshold float64          // the used share of a range after which the next is leased: 0.5
	now             func() time.Time // the clock the rate is measured by: time.Now
}

// resolve applies the defaults for a Block of size and checks them.
func (o *BlockOptions) resolve(size int64) error {
	setDefault(&o.refillThreshold, defaultRefillThreshold)
	setDefault(&o.RefillTimeout, defaultRefillTimeout)
	setDefault(&o.MinSize, 1)
	if o.now == nil {
		o.now = time.Now
	}
	if o.MaxSize == 0 {
		o.MaxSize = size * defaultBlockGrowth
		if o.MaxSize/defaultBlockGrowth != size {
			o.MaxSize = math.MaxInt64
		}
	}
	switch {
	case o.MaxSize < size:
		return optionErrorf("MaxSize", o.MaxSize, "below the size %d given to NewBlock", size)
	case o.RefillTimeout < 0:
		return optionErrorf("RefillTimeout", o.RefillTimeout, "want at least 0")
	case o.Lifetime < 0:
		return optionErrorf("Lifetime", o.Lifetime, "want at least 0")
	case o.MinSize < 1 || o.MinSize > size:
		return optionErrorf("MinSize", o.MinSize, "want 1 up to the size %d given to NewBlock", size)
	}
	return nil
}

// SortKeyOptions are NewSortKey's options, and SortKeyTable's.
type SortKeyOptions struct {
	Table

	// SortKey is the name of the table's sort key attribute. Default
	// "sk".
	SortKey string

	// SortKeyDigits is 0 (the default) for a sort key of type Number, or 1
	// to 19 for a sort key of type String that holds the numbers
	// zero-padded to that many digits, so that the string order is the
	// numeric order (19 holds any int64; 4 holds up to 9999).
	SortKeyDigits int

	// Start is the first number of an empty sequence; an item collection
	// continues from its largest number. Default 1; must be
	// positive.
	Start int64

	// MaxValue is the largest number; past it calls return ErrExhausted.
	// Default math.MaxInt64.
	MaxValue int64

	// TokenAttribute is the String attribute in which every stored item
	// carries a token of the request that stored it and the last number of
	// that request, so that a resend of a write that was applied succeeds
	// instead of storing the item again under another number (see
	// docs/sortkey.md for its size). Items passed to Append must not set
	// it. Default "wtok".
	TokenAttribute string

	// Retry bounds the attempts after lost races and the resends of a
	// write whose outcome is unknown.
	Retry

	// NoTransactions writes every item with its own conditional PutItem
	// instead of batching queued calls in one TransactWriteItems: k calls
	// cost k round trips and k write units per KB instead of one round
	// trip and 2k. Every SortKey writing one table must be set alike.
	// Default false; always on with GlobalTableMRSC, whose tables refuse
	// transactions.
	NoTransactions bool
}

func (o *SortKeyOptions) resolve() error {
	if err := o.Table.resolve(); err != nil {
		return err
	}
	setDefault(&o.SortKey, defaultSortKey)
	setDefault(&o.TokenAttribute, defaultTokenAttribute)
	switch {
	case o.SortKey == o.PartitionKey:
		return optionErrorf("SortKey", o.SortKey, "the partition key's name too").with("PartitionKey", o.PartitionKey)
	case o.TokenAttribute == o.PartitionKey:
		return optionErrorf("TokenAttribute", o.TokenAttribute, "a key attribute's name too").with("PartitionKey", o.PartitionKey)
	case o.TokenAttribute == o.SortKey:
		return optionErrorf("TokenAttribute", o.TokenAttribute, "a key attribute's name too").with("SortKey", o.SortKey)
	case o.KeyTTLAttribute == o.SortKey:
		return optionErrorf("KeyTTLAttribute", o.KeyTTLAttribute, "a key attribute's name too").with("SortKey", o.SortKey)
	}
	if err := checkDigits("SortKeyDigits", o.SortKeyDigits); err != nil {
		return err
	}
	if err := resolveRange(&o.Start, &o.MaxValue); err != nil {
		return err
	}
	if err := o.Retry.resolve(); err != nil {
		return err
	}
	return refuseMREC(o.GlobalTable, "SortKey")
}

// refuseMREC is the check of NewSortKey and NewLatest (what). Their
// numbering needs one writer per sequence, which an MREC table cannot give
// across Regions. On an MRSC table they write without transactions (see
// singleItemWrites).
func refuseMREC(m GlobalTableMode, what string) error {
	if err := checkMode(m); err != nil {
		return err
	}
	if m == GlobalTableMREC {
		return optionErrorf("GlobalTable", m, "refused by %s: gap-free numbering needs one writer per sequence, "+
			"and on a multi-Region eventually consistent table conditions and transactions are checked only "+
			"in the Region that receives them, so two Regions would write the same number; point this client "+
			"at one home Region of the table and use it as a table in one Region "+
			"(see docs/global-tables.md)", what)
	}
	return nil
}

// singleItemWrites reports whether a SortKey or a Latest writes every item
// with its own conditional PutItem instead of TransactWriteItems: when asked
// to (noTransactions), and always on an MRSC table, which refuses
// transactions.
func singleItemWrites(noTransactions bool, m GlobalTableMode) bool {
	return noTransactions || m == GlobalTableMRSC
}

// checkDigits checks the digits of a sort key, the option field.
func checkDigits(field string, digits int) error {
	if digits < 0 || digits > 19 {
		return optionErrorf(field, digits, "want 0 (a Number sort key) or 1 to 19 (a String of that many digits)")
	}
	return nil
}

// LatestOptions are NewLatest's options, and LatestTable's.
type LatestOptions struct {
	Table

	// Layout is how a document's items are laid out: LayoutSortKey, the
	// default (nil), keeps them in one item collection of a table with a
	// sort key; LayoutPartitionKey puts each under its own partition key
	// value, for a table without one.
	Layout Layout

	// VersionAttribute is the Number attribute that holds the version
	// number on every item a Latest writes; its condition on the 'latest'
	// item is what serialises writers. Items passed to Append must not set
	// it. Default "version".
	VersionAttribute string

	// TokenAttribute is the String attribute in which 'latest' carries a
	// write token while processes take turns at a document, and so do the
	// version items without transactions, so that a resend of an applied
	// write is recognised (see docs/latest.md). Items passed to Append must
	// not set it. Default "wtok".
	TokenAttribute string

	// Retry bounds the attempts after lost races and the resends of a
	// write whose outcome is unknown.
	Retry

	// NoTransactions writes the version item first (the version item is
	// the lock), then moves 'latest' forward with a second conditional
	// PutItem, instead of one TransactWriteItems: half the write units, a
	// round trip more per Append, and a 'latest' item that may be one
	// version behind for a reader of it (GetLatest never is; see Latest).
	// Every Latest writing one table must be set alike. Default false;
	// always on with GlobalTableMRSC, whose tables refuse transactions.
	NoTransactions bool
}

func (o *LatestOptions) resolve() (docLayout, error) {
	if err := o.Table.resolve(); err != nil {
		return nil, err
	}
	o.Layout = layoutValue(o.Layout)
	layout, err := o.Layout.docLayout(o.PartitionKey)
	if err != nil {
		return nil, err
	}
	setDefault(&o.VersionAttribute, defaultVersionAttribute)
	setDefault(&o.TokenAttribute, defaultTokenAttribute)
	if field, ok := layout.keyField(o.VersionAttribute); ok {
		return nil, optionErrorf("VersionAttribute", o.VersionAttribute, "a key attribute's name too").with(field, o.VersionAttribute)
	}
	if field, ok := layout.keyField(o.TokenAttribute); ok {
		return nil, optionErrorf("TokenAttribute", o.TokenAttribute, "a key attribute's name too").with(field, o.TokenAttribute)
	}
	if o.TokenAttribute == o.VersionAttribute {
		return nil, optionErrorf("TokenAttribute", o.TokenAttribute, "the version attribute's name too").with("VersionAttribute", o.VersionAttribute)
	}
	if field, ok := layout.keyField(o.KeyTTLAttribute); ok {
		return nil, optionErrorf("KeyTTLAttribute", o.KeyTTLAttribute, "a key attribute's name too").with(field, o.KeyTTLAttribute)
	}
	if err := o.Retry.resolve(); err != nil {
		return nil, err
	}
	return layout, refuseMREC(o.GlobalTable, "Latest")
}

// IDMinterOptions are the options of NewIDMinter and NewSortKeyIDMinter.
// The first value of each period and the key layout are the Counter's (the
// SortKey's).
type IDMinterOptions struct {
	// Location is the time zone in which periods start and end and in
	// which the date part of an ID is written. Default time.UTC.
	Location *time.Location

	// Now is the clock, read once per ID. Default time.Now; injectable for
	// tests that cross midnight.
	Now func() time.Time

	// TTLAttribute, when set, turns Time to Live on: every write of a
	// period's counter item (every lease of a Block) also sets it, in the
	// same UpdateItem, so that DynamoDB deletes the counters of past
	// periods; over a SortKey, every item stored carries it, and DynamoDB
	// deletes the items of past periods. It is the table's TTL attribute (a
	// Number of Unix epoch seconds: the period's end plus TTLRetention), and
	// TTL must be enabled on the table. Default "": no TTL is written.
	TTLAttribute string

	// TTLRetention is how long a period's counter item (or items) is kept
	// after the period ends. It must exceed the largest clock difference
	// between the processes minting IDs: a process whose clock lags behind
	// would otherwise find yesterday's counter (or items) gone and restart
	// the numbering, repeating IDs. Default 7 days; set only with
	// TTLAttribute.
	TTLRetention time.Duration

	// TimeAttribute, set, makes every item a SortKeyIDMinter stores carry
	// the instant that dated its ID (a String, RFC 3339 with nanoseconds,
	// in Location), to read back as the item's created_at. AppendOnce
	// leaves it out of the comparison: a retry dated later is the same
	// request. NewIDMinter refuses it (a Counter stores no item). Default
	// "": no instant is written.
	TimeAttribute string
}

func (o *IDMinterOptions) resolve() error {
	if o.Location == nil {
		o.Location = time.UTC
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	switch {
	case o.TTLRetention < 0:
		return optionErrorf("TTLRetention", o.TTLRetention, "want a positive duration (0 means the default)")
	case o.TTLAttribute == "" && o.TTLRetention != 0:
		return optionErrorf("TTLRetention", o.TTLRetention, "set without TTLAttribute, which turns the TTL on")
	}
	setDefault(&o.TTLRetention, defaultRetention)
	return nil
}

// apply returns the options that optFns make of zero options.
func apply[T any](optFns []func(*T)) T {
	var o T
	for _, fn := range optFns {
		fn(&o)
	}
	return o
}

func setDefault[T comparable](field *T, def T) {
	var zero T
	if *field == zero {
		*field = def
	}
}
