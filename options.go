package dynamoseq

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Options configures the constructors of this package. Pass functions that
// change it, in the style of the AWS SDK:
//
//	c, err := dynamoseq.NewCounter(client, "Sequences", func(o *dynamoseq.Options) {
//		o.KeyPrefix = "SEQ#"
//		o.Start = 1000
//	})
//
// A zero field means its default. Each field says its default and which
// constructors read it; the constructors validate every field they read and
// return ErrInvalidArgument for one out of range, and for a field set that
// they do not read, so that no one believes a limit holds that does not.
type Options struct {
	// PartitionKey is the name of the table's partition key attribute, of
	// type String. Default "pk". All strategies.
	PartitionKey string

	// SortKey is the name of the table's sort key attribute. Default "sk".
	// SortKey and Latest (with a sort key table); Counter with
	// CounterSortKeyValue.
	SortKey string

	// CounterSortKeyValue puts every counter item at this String value of
	// the sort key SortKey, {PartitionKey: KeyPrefix+name, SortKey:
	// CounterSortKeyValue}, for a single-table design whose table has a
	// String sort key ("COUNTER" beside a user's other items). Default "":
	// the counter table has a partition key only. At most 1,024 bytes of
	// UTF-8. Counter, and so Block and IDMinter over it.
	CounterSortKeyValue string

	// ValueAttribute is the Number attribute that holds a counter's last
	// value handed out. Default "value". Counter.
	ValueAttribute string

	// KeyPrefix is prepended to every sequence name to form the partition
	// key value, so that sequences can share a single-table design
	// ("SEQ#orders"). Default "". All strategies.
	KeyPrefix string

	// Start is the first value of a new sequence. Default 1; must be
	// positive. It applies to a sequence that does not exist yet: an
	// existing counter continues from its stored value, an item collection
	// from its largest number. Counter, SortKey.
	Start int64

	// Step is the difference between consecutive values. Default 1; must be
	// positive. Counter.
	Step int64

	// MaxValue is the largest value a sequence hands out; past it calls
	// return ErrExhausted and leave the stored value unchanged. Default
	// math.MaxInt64. Counter, SortKey.
	MaxValue int64

	// MaxAttempts bounds how many times a write that lost a race to another
	// process is tried before ErrContention. Default 25 (see
	// docs/sortkey.md for how it was chosen). A Counter bounds by it the
	// resends of a write refused with ReplicatedWriteConflictException on
	// a multi-Region strongly consistent table. SortKey, Latest, Counter.
	MaxAttempts int

	// ResolveTimeout bounds how long a write whose outcome is unknown (its
	// answer was lost, it timed out, DynamoDB answered with a server
	// error) is sent again, identical, to find out whether it was stored.
	// It applies even after the caller's context has ended, so that the
	// caller learns the outcome; when it runs out, the call returns
	// ErrUnknownOutcome. Default 10s; at most 5 minutes, well inside the
	// 10 minutes for which DynamoDB recognises a transaction's
	// ClientRequestToken (a Latest's resend after that could be applied a
	// second time). SortKey, Latest.
	ResolveTimeout time.Duration

	// TokenAttribute is the String attribute in which a SortKey writes, on
	// every item it stores, a random token of the request that stored it
	// and the last number of that request. The Put's condition accepts the
	// number's slot when it is free or holds this token, so that a resend
	// of a write that was applied (by the SDK's retryer or by the library)
	// succeeds instead of storing the item again under another number. It
	// costs about 40 bytes per item, about 25 more while processes take
	// turns at the name (see docs/sortkey.md, "Many processes, one name").
	// Latest writes it on 'latest' while processes take turns, and without
	// transactions (NoTransactions, GlobalTableMRSC) on its version items.
	// Items passed to Append must not set it. Default "wtok". SortKey,
	// Latest.
	TokenAttribute string

	// BaseDelay and MaxDelay bound the exponential backoff, with full
	// jitter, between attempts after a lost race. Defaults 2ms and 200ms.
	// MaxDelay also caps the turn that a writer takes at a name that
	// other processes write, and the wait for another's turn to end (see
	// docs/sortkey.md, "Many processes, one name"). SortKey, Latest, and
	// Counter after a ReplicatedWriteConflictException.
	BaseDelay time.Duration
	MaxDelay  time.Duration

	// Now is the clock. Default time.Now. Injectable for tests that cross
	// midnight. Readable IDs, TTL housekeeping.
	Now func() time.Time

	// SortKeyType is the type of the sort key attribute: types.ScalarAttributeTypeN
	// (default) or types.ScalarAttributeTypeS, in which case numbers are
	// written zero-padded to SortKeyWidth digits so that the string order is
	// the numeric order. SortKey, Latest.
	SortKeyType types.ScalarAttributeType

	// SortKeyWidth is the number of digits of a String sort key. Default
	// 19, the width of math.MaxInt64. SortKey, Latest.
	SortKeyWidth int

	// Block.

	// RefillThreshold is the fraction of a range handed out after which a
	// Block leases the next range in the background. Default 0.5; must be
	// above 0 and at most 1. Lower leaves more time for the lease, higher
	// leaves fewer numbers unused when the process stops. NewBlock.
	RefillThreshold float64

	// MaxBlockSize bounds the range size of a Block. Default 64 times the
	// size given to NewBlock. Ranges start at size and grow after a caller
	// had to wait for a lease (a range ran out before the next arrived), so
	// that a steady stream stops waiting; the larger they are, the more
	// numbers a process that stops without Close loses. MaxBlockSize equal
	// to size makes the size fixed. NewBlock.
	MaxBlockSize int64

	// MinBlockSize, when below the size given to NewBlock, makes a Block's
	// range sizes follow the rate of consumption instead of growing: each
	// range is sized to last about BlockLifetime, between MinBlockSize and
	// MaxBlockSize, so that an idle name leases small ranges. Default: the
	// size. 1 <= MinBlockSize <= size <= MaxBlockSize. NewBlock.
	MinBlockSize int64

	// BlockLifetime is how long a range should last when a Block's sizes
	// follow the rate: each lease is sized to last about this long at the
	// rate the previous range was used. Default 10s. NewBlock, with
	// MinBlockSize.
	BlockLifetime time.Duration

	// RefillTimeout bounds one lease of a Block (one Counter.NextN, with
	// the SDK's retries), so that a request that never gets an answer does
	// not hold up every later caller. Default 10s. NewBlock.
	RefillTimeout time.Duration

	// Readable IDs (NewIDMinter).

	// Location is the time zone in which periods start and end and in which
	// the date part of an ID is written. Default time.UTC. NewIDMinter.
	Location *time.Location

	// TTLAttribute is the Number attribute in which an IDMinter writes, on
	// each period's counter item, the instant (Unix epoch seconds) after
	// which DynamoDB's Time to Live may delete the item: the end of the
	// period plus Retention. It must be the table's TTL attribute, and TTL
	// must be enabled on the table. Default "": no TTL attribute is written.
	// NewIDMinter, with a *Counter.
	TTLAttribute string

	// Retention is how long a period's counter item is kept after the
	// period ends, before its TTL lets DynamoDB delete it. It must exceed
	// the largest clock difference between the processes minting IDs: a
	// process whose clock lags behind would otherwise find yesterday's
	// counter gone and restart it, repeating IDs. Default 7 days.
	// NewIDMinter, with TTLAttribute.
	Retention time.Duration

	// Latest.

	// Layout is how a Latest lays out a document's items. LayoutSortKey
	// (the default, the zero value) keeps them in one item collection:
	// version n at sort key n, 'latest' at sort key 0. LayoutPartitionKey
	// is for a table with only a partition key: each item under its own
	// partition key value, formed by VersionKeyFormat and LatestKeyFormat.
	// Latest.
	Layout Layout

	// VersionKeyFormat forms the partition key value of version n with
	// fmt.Sprintf(VersionKeyFormat, KeyPrefix+name, n); it must hold one %s
	// and then one %d. Default "%s#v%d" ("doc1#v3"). Latest with
	// LayoutPartitionKey.
	VersionKeyFormat string

	// LatestKeyFormat forms the partition key value of the 'latest' item
	// with fmt.Sprintf(LatestKeyFormat, KeyPrefix+name); it must hold one %s
	// and no other verb. Default "%s#latest". Latest with LayoutPartitionKey.
	LatestKeyFormat string

	// VersionAttribute is the Number attribute that holds the version
	// number on every item a Latest writes; its condition on the 'latest'
	// item is what serialises writers. Items passed to Append must not set
	// it. Default "version". Latest.
	VersionAttribute string

	// NoTransactions makes a SortKey and a Latest write without
	// TransactWriteItems: every item with its own conditional PutItem.
	// A SortKey writes the calls queued for one name as consecutive
	// PutItems instead of one transaction; a Latest writes the version
	// item first (the version item is the lock), then moves 'latest'
	// forward with a second conditional PutItem that never moves it back.
	// That halves the write units of a Latest (a transaction charges two
	// per KB of each item) and costs a round trip per item written; a
	// reader of the 'latest' item itself may find it one version behind
	// (GetLatest never does; see docs/latest.md). Every SortKey or Latest
	// writing one table must be set alike. Default false; always on with
	// GlobalTableMRSC, whose tables refuse transactions. SortKey, Latest.
	NoTransactions bool

	// Global tables (see docs/global-tables.md).

	// GlobalTable is the kind of table: GlobalTableNone (the default, the
	// zero value) for a table in one Region, GlobalTableMREC or
	// GlobalTableMRSC for a global table. With GlobalTableMREC a Counter
	// (and a Block or IDMinter over it) slices its numbers by Region, and
	// NewSortKey and NewLatest refuse it; with GlobalTableMRSC SortKey and
	// Latest write without transactions (see NoTransactions). Counter,
	// SortKey, Latest (a Block
	// or IDMinter follows its Counter).
	GlobalTable GlobalTableMode

	// Region is the Region of the replica this process writes to, such as
	// "eu-west-1". Required with GlobalTableMREC, which alone reads it, and
	// must be one of Regions.
	Region string

	// Regions is the ordered list of the global table's Regions, which
	// every process writing the table must be given identically: the
	// position of Region in it decides which numbers this process hands
	// out. No duplicates, no empty names. Required with GlobalTableMREC,
	// which alone reads it. List a Region you may add later now, and
	// adding it needs no migration (see docs/global-tables.md).
	Regions []string
}

// maxResolveTimeout bounds Options.ResolveTimeout: resends of a transaction
// must stay well inside the 10 minutes for which DynamoDB recognises its
// ClientRequestToken.
const maxResolveTimeout = 5 * time.Minute

// defaultOptions are the values a zero field stands for.
var defaultOptions = Options{
	PartitionKey:   "pk",
	SortKey:        "sk",
	ValueAttribute: "value",
	Start:          1,
	Step:           1,
	MaxValue:       math.MaxInt64,
	MaxAttempts:    25,
	BaseDelay:      2 * time.Millisecond,
	MaxDelay:       200 * time.Millisecond,
	Now:            time.Now,
	SortKeyType:    types.ScalarAttributeTypeN,
	SortKeyWidth:   19,

	RefillThreshold: 0.5,
	BlockLifetime:   10 * time.Second,
	RefillTimeout:   10 * time.Second,
	Location:        time.UTC,
	Retention:       7 * 24 * time.Hour,

	VersionKeyFormat: "%s#v%d",
	LatestKeyFormat:  "%s#latest",
	VersionAttribute: "version",

	ResolveTimeout: 10 * time.Second,
	TokenAttribute: "wtok",
}

// resolveOptions applies optFns to zero Options, fills in the defaults and
// checks the fields every constructor relies on.
func resolveOptions(optFns []func(*Options)) (Options, error) {
	var o Options
	for _, fn := range optFns {
		fn(&o)
	}
	d := defaultOptions
	setDefault(&o.PartitionKey, d.PartitionKey)
	setDefault(&o.SortKey, d.SortKey)
	setDefault(&o.ValueAttribute, d.ValueAttribute)
	setDefault(&o.Start, d.Start)
	setDefault(&o.Step, d.Step)
	setDefault(&o.MaxValue, d.MaxValue)
	setDefault(&o.MaxAttempts, d.MaxAttempts)
	setDefault(&o.BaseDelay, d.BaseDelay)
	setDefault(&o.MaxDelay, d.MaxDelay)
	setDefault(&o.SortKeyType, d.SortKeyType)
	setDefault(&o.SortKeyWidth, d.SortKeyWidth)
	setDefault(&o.RefillThreshold, d.RefillThreshold)
	setDefault(&o.BlockLifetime, d.BlockLifetime)
	setDefault(&o.RefillTimeout, d.RefillTimeout)
	setDefault(&o.VersionKeyFormat, d.VersionKeyFormat)
	setDefault(&o.LatestKeyFormat, d.LatestKeyFormat)
	setDefault(&o.VersionAttribute, d.VersionAttribute)
	if o.Now == nil {
		o.Now = d.Now
	}
	if o.Location == nil {
		o.Location = d.Location
	}
	setDefault(&o.Retention, d.Retention)
	setDefault(&o.ResolveTimeout, d.ResolveTimeout)
	setDefault(&o.TokenAttribute, d.TokenAttribute)
	return o, o.validate()
}

// checkRead returns ErrInvalidArgument naming the first field that optFns
// set to a value other than zero and its default, and that is not among
// reads, the fields the constructor reads: a limit it ignored would hold in
// the caller's mind only. A constructor calls it after its own checks of
// the options, whose errors say more.
func checkRead(optFns []func(*Options), reads ...string) error {
	var o Options
	for _, fn := range optFns {
		fn(&o)
	}
	v, d := reflect.ValueOf(o), reflect.ValueOf(defaultOptions)
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		if isUnset(v.Field(i), d.Field(i)) || slices.Contains(reads, name) {
			continue
		}
		return invalidf("option %s is set, but this constructor does not read it; it reads %s", name, strings.Join(reads, ", "))
	}
	return nil
}

// isUnset reports whether f is zero, empty or its default def.
func isUnset(f, def reflect.Value) bool {
	switch f.Kind() {
	case reflect.Slice, reflect.Map:
		return f.Len() == 0
	case reflect.Func, reflect.Pointer:
		return f.IsNil()
	}
	return f.IsZero() || f.Equal(def)
}

func setDefault[T comparable](field *T, def T) {
	var zero T
	if *field == zero {
		*field = def
	}
}

func (o *Options) validate() error {
	switch {
	case o.PartitionKey == o.SortKey:
		return invalidf("PartitionKey and SortKey are both %q", o.PartitionKey)
	case o.ValueAttribute == o.PartitionKey:
		return invalidf("ValueAttribute and PartitionKey are both %q", o.PartitionKey)
	case len(o.CounterSortKeyValue) > maxSortKeyBytes:
		return invalidf("CounterSortKeyValue is %d bytes, DynamoDB's limit for a sort key is %d", len(o.CounterSortKeyValue), maxSortKeyBytes)
	case !utf8.ValidString(o.CounterSortKeyValue):
		return invalidf("CounterSortKeyValue is not valid UTF-8")
	case o.CounterSortKeyValue != "" && o.ValueAttribute == o.SortKey:
		return invalidf("ValueAttribute and SortKey are both %q, and CounterSortKeyValue is set", o.SortKey)
	case len(o.KeyPrefix) > maxKeyBytes-1:
		return invalidf("KeyPrefix is %d bytes, the limit is %d", len(o.KeyPrefix), maxKeyBytes-1)
	case o.Start < 1:
		return invalidf("Start is %d, want at least 1", o.Start)
	case o.Step < 1:
		return invalidf("Step is %d, want at least 1", o.Step)
	case o.MaxValue < o.Start:
		return invalidf("MaxValue %d is below Start %d", o.MaxValue, o.Start)
	case o.MaxAttempts < 1:
		return invalidf("MaxAttempts is %d, want at least 1", o.MaxAttempts)
	case o.ResolveTimeout < 0 || o.ResolveTimeout > maxResolveTimeout:
		return invalidf("ResolveTimeout is %v, want 0 (the default) up to %v", o.ResolveTimeout, maxResolveTimeout)
	case o.TokenAttribute == o.PartitionKey || o.TokenAttribute == o.SortKey:
		return invalidf("TokenAttribute %q is also a key attribute", o.TokenAttribute)
	case o.BaseDelay < 0 || o.MaxDelay < o.BaseDelay:
		return invalidf("BaseDelay %v and MaxDelay %v: want 0 <= BaseDelay <= MaxDelay", o.BaseDelay, o.MaxDelay)
	case o.SortKeyType != types.ScalarAttributeTypeN && o.SortKeyType != types.ScalarAttributeTypeS:
		return invalidf("SortKeyType is %q, want N or S", o.SortKeyType)
	case o.SortKeyWidth < 1 || o.SortKeyWidth > 19:
		return invalidf("SortKeyWidth is %d, want 1 to 19", o.SortKeyWidth)
	case !(o.RefillThreshold > 0 && o.RefillThreshold <= 1): // also refuses NaN
		return invalidf("RefillThreshold is %v, want above 0 and at most 1", o.RefillThreshold)
	case o.BlockLifetime < 0:
		return invalidf("BlockLifetime is %v, want at least 0", o.BlockLifetime)
	case o.RefillTimeout < 0:
		return invalidf("RefillTimeout is %v, want at least 0", o.RefillTimeout)
	case o.Retention < 0:
		return invalidf("Retention is %v, want a positive duration (0 means the default)", o.Retention)
	case o.TTLAttribute != "" && (o.TTLAttribute == o.PartitionKey || o.TTLAttribute == o.ValueAttribute):
		return invalidf("TTLAttribute %q is also the partition key or the value attribute", o.TTLAttribute)
	}
	return o.validateGlobal()
}
