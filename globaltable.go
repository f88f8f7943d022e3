package dynamoseq

import (
	"fmt"
	"math/bits"
)

// GlobalTableMode is the kind of table a constructor is given: one Region,
// or a DynamoDB global table in one of its two consistency modes. It is set
// in the GlobalTable field of CounterOptions, SortKeyOptions and
// LatestOptions; docs/global-tables.md says what each strategy does
// in each mode.
type GlobalTableMode int

const (
	// GlobalTableNone is a table in one Region (the default).
	GlobalTableNone GlobalTableMode = iota

	// GlobalTableMREC is a multi-Region eventually consistent global table
	// (DescribeTable's MultiRegionConsistency EVENTUAL, the default of
	// global tables). Each Region applies writes locally and replicates
	// them asynchronously, last writer wins per item, and conditions are
	// checked against the local copy only. A Counter therefore slices its
	// numbers by Region (CounterOptions.Region and Regions); SortKey and
	// Latest, which need one writer per sequence, are refused.
	GlobalTableMREC

	// GlobalTableMRSC is a multi-Region strongly consistent global table
	// (MultiRegionConsistency STRONG): conditional writes and ADD are
	// consistent across its three Regions, transactions and TTL are not
	// supported. A Counter and a Block work unchanged; SortKey and Latest
	// write every item with its own conditional PutItem (as with
	// NoTransactions); an IDMinter's TTL is refused.
	GlobalTableMRSC
)

// name returns the constant's name, such as "GlobalTableMREC".
func (m GlobalTableMode) name() string {
	switch m {
	case GlobalTableNone:
		return "GlobalTableNone"
	case GlobalTableMREC:
		return "GlobalTableMREC"
	case GlobalTableMRSC:
		return "GlobalTableMRSC"
	}
	return fmt.Sprintf("GlobalTableMode(%d)", int(m))
}

// checkMode refuses a GlobalTableMode that is none of the constants.
func checkMode(m GlobalTableMode) error {
	switch m {
	case GlobalTableNone, GlobalTableMREC, GlobalTableMRSC:
		return nil
	}
	return optionErrorf("GlobalTable", m, "want GlobalTableNone, GlobalTableMREC or GlobalTableMRSC")
}

// regionSlice is the share of every sequence's numbers that one Region of
// an MREC global table hands out. With Regions r0..r(R-1), Start S and Step
// D, Region ri hands out S+i*D, S+(i+R)*D, S+(i+2R)*D, ...: for Start 1 and
// Step 1 the numbers n with n-1 = i modulo R. The slices of different
// Regions are disjoint, so numbers never collide whatever replication does,
// and each Region keeps its own counter item (the sequence's key plus
// "#"+Region), which no other Region writes, so last-writer-wins never has
// two writers of one item to choose between.
//
// The item holds a watermark w: every number the Region handed out is at
// most w, and the next one is the first number of its slice above w. ADD
// moves w by R*D per number. Counter.AdvanceTo may set w to any value, and
// the Region then continues with the first number of its slice above it.
type regionSlice struct {
	suffix  string   // appended to the partition key value: "#" + Region
	regions []string // CounterOptions.Regions, for Counter.Current
	first   int64    // the Region's first number: Start + i*Step
	stride  int64    // R*Step, the distance between its numbers
}

// newRegionSlice returns the slice of o.Region, or nil without
// GlobalTableMREC. It fails when the Region would have no number to hand
// out at or below MaxValue, or its arithmetic would pass the int64 range.
func newRegionSlice(o *CounterOptions) (*regionSlice, error) {
	if o.GlobalTable != GlobalTableMREC {
		return nil, nil
	}
	i := 0
	for i < len(o.Regions) && o.Regions[i] != o.Region {
		i++
	}
	hi, stride := bits.Mul64(uint64(o.Step), uint64(len(o.Regions)))
	if hi != 0 || stride > 1<<63-1 {
		return nil, optionErrorf("Step", o.Step, "times the number of Regions passes the int64 range").with("Regions", o.Regions)
	}
	offset := int64(i) * o.Step // < stride, so it fits
	if o.Start > o.MaxValue-offset {
		return nil, optionErrorf("Region", o.Region, "position %d of %d Regions, would start at Start+%d*Step, above the largest value", i, len(o.Regions), i).with("MaxValue", o.MaxValue)
	}
	return &regionSlice{
		suffix:  "#" + o.Region,
		regions: append([]string(nil), o.Regions...),
		first:   o.Start + offset,
		stride:  int64(stride),
	}, nil
}

// firstAbove returns the first number of the slice above the watermark w.
func (s *regionSlice) firstAbove(w int64) int64 {
	d := w - s.first
	k := d / s.stride // floor division: Go truncates towards zero
	if d%s.stride != 0 && d < 0 {
		k--
	}
	return s.first + (k+1)*s.stride
}

// keys returns the partition key values of the sequence whose unsliced
// value is pk in every Region, in the order of CounterOptions.Regions.
func (s *regionSlice) keys(pk string) []string {
	keys := make([]string, len(s.regions))
	for i, r := range s.regions {
		keys[i] = pk + "#" + r
	}
	return keys
}
