package dynamoseq

import (
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dynamoseq/dynamoseq/internal/testsupport/answer"
)

// TestOptionErrors: a constructor refuses an option out of range with an
// *OptionError that names the field as Go code writes it (and the other
// field of a refused combination), matches ErrInvalidArgument, and is
// wrapped in the constructor's *Error.
func TestOptionErrors(t *testing.T) {
	f := newOptionFixtures(t)
	tests := append(f.counterCases(), f.appendCases()...)
	for _, tt := range tests {
		var oe *OptionError
		var e *Error
		switch {
		case !errors.Is(tt.err, ErrInvalidArgument) || !errors.As(tt.err, &oe) || !errors.As(tt.err, &e):
			t.Errorf("%s: %v, want an *Error holding an *OptionError", tt.name, tt.err)
		case oe.Field != tt.field || oe.Other != tt.other:
			t.Errorf("%s: Field %q, Other %q, want %q, %q (%v)", tt.name, oe.Field, oe.Other, tt.field, tt.other, tt.err)
		case !strings.HasPrefix(e.Op, "New"):
			t.Errorf("%s: Op %q, want the constructor", tt.name, e.Op)
		}
	}
}

// optionCase is a constructor's refusal of TestOptionErrors: the field it
// must name, and the other field of a refused combination.
type optionCase struct {
	name, field, other string
	err                error
}

// optionFixtures are what TestOptionErrors's constructors are given: a
// client answering nothing (no constructor sends a request), and a
// Counter, one on an MRSC table and a Block, for the IDMinters.
type optionFixtures struct {
	client        Client
	counter, mrsc *Counter
	block         *Block
}

func newOptionFixtures(t *testing.T) optionFixtures {
	t.Helper()
	f := optionFixtures{client: answer.Client(&answer.Transport{Answer: answer.Reset}, 1)}
	var err error
	if f.counter, err = NewCounter(f.client, "table"); err != nil {
		t.Fatal(err)
	}
	if f.mrsc, err = NewCounter(f.client, "table", func(o *CounterOptions) { o.GlobalTable = GlobalTableMRSC }); err != nil {
		t.Fatal(err)
	}
	if f.block, err = NewBlock(f.counter, 10); err != nil {
		t.Fatal(err)
	}
	return f
}

// counterCases are the refusals of NewCounter and NewBlock.
func (f optionFixtures) counterCases() []optionCase {
	newCounter := func(fn func(*CounterOptions)) error { _, err := NewCounter(f.client, "table", fn); return err }
	newBlock := func(fn func(*BlockOptions)) error { _, err := NewBlock(f.counter, 10, fn); return err }
	return []optionCase{
		{"Counter Start", "Start", "", newCounter(func(o *CounterOptions) { o.Start = -3 })},
		{"Counter Step", "Step", "", newCounter(func(o *CounterOptions) { o.Step = -1 })},
		{"Counter MaxValue", "MaxValue", "Start", newCounter(func(o *CounterOptions) { o.Start, o.MaxValue = 9, 5 })},
		{"Counter ValueAttribute", "ValueAttribute", "PartitionKey", newCounter(func(o *CounterOptions) { o.ValueAttribute = "pk" })},
		{"Counter KeyPrefix", "KeyPrefix", "", newCounter(func(o *CounterOptions) { o.KeyPrefix = strings.Repeat("p", 2048) })},
		{"Counter SortKeyValue", "SortKeyValue", "SortKey", newCounter(func(o *CounterOptions) { o.SortKey = "sk" })},
		{"Counter SortKeyValue size", "SortKeyValue", "", newCounter(func(o *CounterOptions) { o.SortKeyValue = strings.Repeat("v", 1025) })},
		{"Counter SortKey", "SortKey", "PartitionKey", newCounter(func(o *CounterOptions) { o.SortKey, o.SortKeyValue = "pk", "C" })},
		{"Counter SortKey value", "SortKey", "ValueAttribute", newCounter(func(o *CounterOptions) { o.SortKey, o.SortKeyValue = "value", "C" })},
		{"Counter MaxAttempts", "MaxAttempts", "", newCounter(func(o *CounterOptions) { o.MaxAttempts = -1 })},
		{"Counter MaxDelay", "MaxDelay", "BaseDelay", newCounter(func(o *CounterOptions) { o.BaseDelay = time.Second })},
		{"Counter ResolveTimeout", "ResolveTimeout", "", newCounter(func(o *CounterOptions) { o.ResolveTimeout = 6 * time.Minute })},
		{"Counter GlobalTable", "GlobalTable", "", newCounter(func(o *CounterOptions) { o.GlobalTable = 7 })},
		{"Counter Regions without MREC", "Regions", "GlobalTable", newCounter(func(o *CounterOptions) { o.Regions = []string{"a"} })},
		{"Counter Region without MREC", "Region", "GlobalTable", newCounter(func(o *CounterOptions) { o.Region = "a" })},
		{"Counter MREC without Regions", "Regions", "", newCounter(func(o *CounterOptions) { o.GlobalTable, o.Region = GlobalTableMREC, "a" })},
		{"Counter MREC Regions twice", "Regions", "", newCounter(func(o *CounterOptions) {
			o.GlobalTable, o.Region, o.Regions = GlobalTableMREC, "a", []string{"a", "a"}
		})},
		{"Counter MREC Region", "Region", "Regions", newCounter(func(o *CounterOptions) {
			o.GlobalTable, o.Region, o.Regions = GlobalTableMREC, "c", []string{"a", "b"}
		})},
		{"Block MaxSize", "MaxSize", "", newBlock(func(o *BlockOptions) { o.MaxSize = 5 })},
		{"Block RefillTimeout", "RefillTimeout", "", newBlock(func(o *BlockOptions) { o.RefillTimeout = -time.Second })},
		{"Block MinSize", "MinSize", "", newBlock(func(o *BlockOptions) { o.MinSize = 11 })},
		{"Block Lifetime", "Lifetime", "", newBlock(func(o *BlockOptions) { o.Lifetime = -1 })},
	}
}

// appendCases are the refusals of NewSortKey, NewLatest and NewIDMinter.
func (f optionFixtures) appendCases() []optionCase {
	newSortKey := func(fn func(*SortKeyOptions)) error { _, err := NewSortKey(f.client, "table", fn); return err }
	newLatest := func(fn func(*LatestOptions)) error { _, err := NewLatest(f.client, "table", fn); return err }
	newMinter := func(seq *Counter) func(fn func(*IDMinterOptions)) error {
		return func(fn func(*IDMinterOptions)) error {
			_, err := NewIDMinter(seq, orderFormatForTest, Daily, fn)
			return err
		}
	}
	counter, mrsc := f.counter, f.mrsc
	return []optionCase{
		{"SortKey SortKeyDigits", "SortKeyDigits", "", newSortKey(func(o *SortKeyOptions) { o.SortKeyDigits = 20 })},
		{"SortKey SortKey", "SortKey", "PartitionKey", newSortKey(func(o *SortKeyOptions) { o.SortKey = "pk" })},
		{"SortKey TokenAttribute", "TokenAttribute", "SortKey", newSortKey(func(o *SortKeyOptions) { o.TokenAttribute = "sk" })},
		{"SortKey MaxValue", "MaxValue", "Start", newSortKey(func(o *SortKeyOptions) { o.Start = 100; o.MaxValue = 99 })},
		{"SortKey MREC", "GlobalTable", "", newSortKey(func(o *SortKeyOptions) { o.GlobalTable = GlobalTableMREC })},
		{"Latest VersionKeyFormat", "Layout.VersionKeyFormat", "", newLatest(func(o *LatestOptions) { o.Layout = LayoutPartitionKey{VersionKeyFormat: "%d"} })},
		{"Latest LatestKeyFormat", "Layout.LatestKeyFormat", "", newLatest(func(o *LatestOptions) { o.Layout = &LayoutPartitionKey{LatestKeyFormat: "latest"} })},
		{"Latest LatestKeyFormat a version's", "Layout.LatestKeyFormat", "Layout.VersionKeyFormat", newLatest(func(o *LatestOptions) {
			o.Layout = LayoutPartitionKey{LatestKeyFormat: "%s#v7"}
		})},
		{"Latest SortKeyDigits", "Layout.SortKeyDigits", "", newLatest(func(o *LatestOptions) { o.Layout = LayoutSortKey{SortKeyDigits: -1} })},
		{"Latest Layout.SortKey", "Layout.SortKey", "PartitionKey", newLatest(func(o *LatestOptions) { o.PartitionKey = "id"; o.Layout = LayoutSortKey{SortKey: "id"} })},
		{"Latest VersionAttribute", "VersionAttribute", "Layout.SortKey", newLatest(func(o *LatestOptions) { o.VersionAttribute = "sk" })},
		{"Latest TokenAttribute", "TokenAttribute", "VersionAttribute", newLatest(func(o *LatestOptions) { o.TokenAttribute = "version" })},
		{"Latest MREC", "GlobalTable", "", newLatest(func(o *LatestOptions) { o.GlobalTable = GlobalTableMREC })},
		{"SortKey KeyWindow", "KeyWindow", "", newSortKey(func(o *SortKeyOptions) { o.KeyWindow = -time.Second })},
		{"SortKey KeyTTLAttribute", "KeyTTLAttribute", "SortKey", newSortKey(func(o *SortKeyOptions) { o.KeyTTLAttribute = "sk" })},
		{"SortKey KeyTTLAttribute a key item's", "KeyTTLAttribute", "", newSortKey(func(o *SortKeyOptions) { o.KeyTTLAttribute = "dynamoseq_n" })},
		{"Latest KeyTTLAttribute", "KeyTTLAttribute", "Layout.SortKey", newLatest(func(o *LatestOptions) { o.KeyTTLAttribute = "sk" })},
		{"Latest KeyTTLAttribute the partition key", "KeyTTLAttribute", "PartitionKey", newLatest(func(o *LatestOptions) { o.KeyTTLAttribute = "pk" })},
		{"IDMinter TTLRetention without TTLAttribute", "TTLRetention", "", newMinter(counter)(func(o *IDMinterOptions) { o.TTLRetention = time.Hour })},
		{"IDMinter TTLRetention", "TTLRetention", "", newMinter(counter)(func(o *IDMinterOptions) { o.TTLAttribute = "ttl"; o.TTLRetention = -1 })},
		{"IDMinter TTL on the value", "TTLAttribute", "", newMinter(counter)(func(o *IDMinterOptions) { o.TTLAttribute = "value" })},
		{"IDMinter TTL on MRSC", "TTLAttribute", "", newMinter(mrsc)(func(o *IDMinterOptions) { o.TTLAttribute = "ttl" })},
	}
}

// TestOptionErrorMessage: the message names the field, its value and the
// other field of a combination.
func TestOptionErrorMessage(t *testing.T) {
	client := answer.Client(&answer.Transport{Answer: answer.Reset}, 1)
	_, err := NewCounter(client, "table", func(o *CounterOptions) { o.Start, o.MaxValue = 9, 5 })
	want := `dynamoseq: NewCounter: table "table": invalid argument: MaxValue is 5, below the first value (Start is 9)`
	if err == nil || err.Error() != want {
		t.Errorf("NewCounter() = %v, want %s", err, want)
	}
	_, err = NewLatest(client, "table", func(o *LatestOptions) { o.Layout = LayoutPartitionKey{VersionKeyFormat: "%d"} })
	want = `invalid argument: Layout.VersionKeyFormat is "%d", want one %s and then one %d, as in "%s#v%d"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("NewLatest() = %v, want it to hold %s", err, want)
	}
}

// TestOptionsMisuseDoesNotCompile: a field that a constructor does not read
// cannot be written: testdata/misuse, which writes such fields, does not
// build, and the compiler refuses every one of its lines.
func TestOptionsMisuseDoesNotCompile(t *testing.T) {
	src, err := os.ReadFile("testdata/misuse/misuse.go")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "build", "-gcflags=-e", "-o", os.DevNull, "./testdata/misuse").CombinedOutput()
	if err == nil {
		t.Fatalf("testdata/misuse built; want a compile error per line:\n%s", src)
	}
	lines := regexp.MustCompile(`(?m)^\t_ = dynamoseq\.\w+\{(\w+):`).FindAllStringSubmatch(string(src), -1)
	if len(lines) == 0 {
		t.Fatal("no misuse found in testdata/misuse/misuse.go")
	}
	for _, l := range lines {
		if !strings.Contains(string(out), "unknown field "+l[1]) {
			t.Errorf("the compiler accepted the field %s of testdata/misuse; go build said:\n%s", l[1], out)
		}
	}
}

var orderFormatForTest = Format{Prefix: "ORD", DateLayout: "060102", Separator: "-", Width: 6}
