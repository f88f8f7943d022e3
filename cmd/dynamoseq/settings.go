package main

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/spf13/pflag"

	"github.com/dynamoseq/dynamoseq"
)

// settings holds what the flags shared by every subcommand set: where the
// table is and the library's options that describe it.
type settings struct {
	table    string
	endpoint string
	region   string
	profile  string
	output   string

	partitionKey     string
	sortKey          string
	sortKeyType      string
	sortKeyWidth     int
	counterSortKey   string
	valueAttribute   string
	keyPrefix        string
	start            int64
	step             int64
	maxValue         int64
	layout           string
	versionAttribute string
	versionKeyFormat string
	latestKeyFormat  string
	globalTable      string
	regions          string

	// clientRegion is the Region the client was configured with, set by
	// env.client: this process's Region of an MREC global table.
	clientRegion string
}

// register defines the shared flags on fs. A zero value means the library's
// default, as in its options.
func (s *settings) register(fs *pflag.FlagSet) {
	fs.StringVar(&s.table, "table", "", "the DynamoDB table (required)")
	fs.StringVar(&s.endpoint, "endpoint-url", "", "send requests to this URL instead of the Region's endpoint (DynamoDB Local: http://localhost:8000)")
	fs.StringVar(&s.region, "region", "", "the AWS Region (default: the profile's)")
	fs.StringVar(&s.profile, "profile", "", "the named profile of the shared AWS config and credentials files")
	choiceVar(fs, &s.output, "output", "text", "the format of the answers on stdout", "text", "json")

	fs.StringVar(&s.partitionKey, "partition-key", "", fmt.Sprintf("the partition key attribute, a String (default %q)", defaultPartitionKey))
	fs.StringVar(&s.sortKey, "sort-key", "", fmt.Sprintf("the sort key attribute (default %q) of a SortKey's or a Latest's table, or of a single-table design's counters", defaultSortKey))
	choiceVar(fs, &s.sortKeyType, "sort-key-type", "", "the sort key's type (default N)", "N", "S")
	fs.IntVar(&s.sortKeyWidth, "sort-key-width", 0, "digits of a String sort key (default 19)")
	fs.StringVar(&s.counterSortKey, "counter-sort-key-value", "", `the String sort key value of every counter item, in a single-table design with a String sort key ("COUNTER")`)
	fs.StringVar(&s.valueAttribute, "value-attribute", "", fmt.Sprintf("the Number attribute of a counter (default %q)", defaultValueAttribute))
	fs.StringVar(&s.keyPrefix, "key-prefix", "", `prepended to every sequence name in the partition key ("SEQ#")`)
	fs.Int64Var(&s.start, "start", 0, fmt.Sprintf("the first value of a new counter or SortKey sequence (default %d)", defaultStart))
	fs.Int64Var(&s.step, "step", 0, fmt.Sprintf("the difference between consecutive counter values (default %d)", defaultStep))
	fs.Int64Var(&s.maxValue, "max-value", 0, fmt.Sprintf("the largest value a counter or a SortKey sequence hands out (default %d)", int64(defaultMaxValue)))
	choiceVar(fs, &s.layout, "layout", "", "Latest's layout: a Number sort key per version, or a partition key per version on a table without a sort key (default sortkey)", "sortkey", "partitionkey")
	fs.StringVar(&s.versionAttribute, "version-attribute", "", fmt.Sprintf("Latest's version attribute (default %q)", defaultVersionAttribute))
	fs.StringVar(&s.versionKeyFormat, "version-key-format", "", fmt.Sprintf("Latest's version key with --layout partitionkey (default %q)", defaultVersionKeyFormat))
	fs.StringVar(&s.latestKeyFormat, "latest-key-format", "", fmt.Sprintf("Latest's 'latest' key with --layout partitionkey (default %q)", defaultLatestKeyFormat))
	choiceVar(fs, &s.globalTable, "global-table", "", "the kind of table: single-Region, or global in either mode (default none; see docs/global-tables.md)", "none", "mrec", "mrsc")
	fs.StringVar(&s.regions, "regions", "", "with --global-table mrec: the table's Regions, comma-separated, in the order every process is given; this process's Region is --region's")
}

// validate reports a missing table; the flags with choices refused other
// values when they were parsed, and the library validates the rest when the
// strategy is built.
func (s *settings) validate() error {
	if s.table == "" {
		return usageErrorf("--table is required (or set DYNAMOSEQ_TABLE)")
	}
	if _, err := s.parseLayout(); err != nil {
		return err
	}
	_, err := s.globalMode()
	return err
}

func (s *settings) globalMode() (dynamoseq.GlobalTableMode, error) {
	switch strings.ToLower(s.globalTable) {
	case "", "none":
		return dynamoseq.GlobalTableNone, nil
	case "mrec":
		return dynamoseq.GlobalTableMREC, nil
	case "mrsc":
		return dynamoseq.GlobalTableMRSC, nil
	}
	return 0, usageErrorf("--global-table is %q, want none, mrec or mrsc", s.globalTable)
}

// regionList is --regions as a list.
func (s *settings) regionList() []string {
	if s.regions == "" {
		return nil
	}
	return strings.Split(s.regions, ",")
}

// parseLayout returns the Latest's layout the flags describe.
func (s *settings) parseLayout() (dynamoseq.Layout, error) {
	switch strings.ToLower(s.layout) {
	case "", "sortkey":
		return dynamoseq.LayoutSortKey{SortKey: s.sortKey, SortKeyDigits: s.sortKeyDigits()}, nil
	case "partitionkey":
		return dynamoseq.LayoutPartitionKey{VersionKeyFormat: s.versionKeyFormat, LatestKeyFormat: s.latestKeyFormat}, nil
	}
	return nil, usageErrorf("--layout is %q, want sortkey or partitionkey", s.layout)
}

// partitionKeyLayout reports whether --layout is partitionkey.
func (s *settings) partitionKeyLayout() bool {
	_, ok := s.mustLayout().(dynamoseq.LayoutPartitionKey)
	return ok
}

// mustLayout is parseLayout, which validate has checked.
func (s *settings) mustLayout() dynamoseq.Layout {
	l, _ := s.parseLayout()
	return l
}

// sortKeyDigits is the library's SortKeyDigits for --sort-key-type and
// --sort-key-width: 0 for a Number, the width (default 19) for a String.
func (s *settings) sortKeyDigits() int {
	if s.sortKeyType != "S" {
		return 0
	}
	return cmp.Or(s.sortKeyWidth, 19)
}

// counterOptions copies the flags into a Counter's options.
func (s *settings) counterOptions(o *dynamoseq.CounterOptions) {
	o.PartitionKey, o.KeyPrefix = s.partitionKey, s.keyPrefix
	if s.counterSortKey != "" {
		o.SortKey, o.SortKeyValue = s.sortKey, s.counterSortKey
	}
	o.ValueAttribute = s.valueAttribute
	o.Start, o.Step, o.MaxValue = s.start, s.step, s.maxValue
	o.GlobalTable, _ = s.globalMode() // checked by validate
	o.Regions = s.regionList()
	if o.GlobalTable == dynamoseq.GlobalTableMREC {
		o.Region = s.clientRegion
	}
}

// sortKeyOptions copies the flags into a SortKey's options.
func (s *settings) sortKeyOptions(o *dynamoseq.SortKeyOptions) {
	o.PartitionKey, o.KeyPrefix = s.partitionKey, s.keyPrefix
	o.SortKey, o.SortKeyDigits = s.sortKey, s.sortKeyDigits()
	o.Start, o.MaxValue = s.start, s.maxValue
	o.GlobalTable, _ = s.globalMode() // checked by validate
}

// latestOptions copies the flags into a Latest's options.
func (s *settings) latestOptions(o *dynamoseq.LatestOptions) {
	s.latestKeys(o)
	o.GlobalTable, _ = s.globalMode() // checked by validate
}

// latestKeys copies into o only the flags that say where a Latest's items
// are, for reading a document's 'latest' item whatever strategy the other
// flags are meant for.
func (s *settings) latestKeys(o *dynamoseq.LatestOptions) {
	o.PartitionKey, o.KeyPrefix = s.partitionKey, s.keyPrefix
	o.Layout = s.mustLayout()
	o.VersionAttribute = s.versionAttribute
}

// periodMinter is an IDMinter of the calendar period in loc, made for its
// SequenceAt, which names a period's counter as every IDMinter does. It is
// never asked for an ID.
func periodMinter(period dynamoseq.CalendarPeriod, loc *time.Location) (*dynamoseq.IDMinter, error) {
	// A date layout that tells the periods apart, which NewIDMinter checks.
	layout := map[dynamoseq.CalendarPeriod]string{dynamoseq.Daily: "20060102", dynamoseq.Monthly: "200601", dynamoseq.Yearly: "2006"}[period]
	return namingMinter(dynamoseq.Format{DateLayout: layout}, period, loc)
}

// namingMinter is an IDMinter of format, period and loc over a Counter
// whose client is never called: the command's IDMinters only name the
// periods' sequences and write IDs, they never mint.
func namingMinter(format dynamoseq.Format, period dynamoseq.CalendarPeriod, loc *time.Location) (*dynamoseq.IDMinter, error) {
	names, err := dynamoseq.NewCounter(dynamodb.New(dynamodb.Options{}), "period-names")
	if err != nil {
		return nil, err
	}
	return dynamoseq.NewIDMinter(names, format, period, func(o *dynamoseq.IDMinterOptions) { o.Location = loc })
}

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}
