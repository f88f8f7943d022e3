package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/spf13/pflag"

	"github.com/dynamoseq/dynamoseq"
)

// The levels of a finding. Only a problem makes check exit with status 1.
const (
	levelOK      = "ok"
	levelWarning = "warning"
	levelProblem = "problem"
)

// finding is one line of check's report.
type finding struct {
	Level   string `json:"level"`
	Subject string `json:"subject"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"` // the flags that fix it
}

// report is check's JSON answer.
type report struct {
	Table    string    `json:"table"`
	Kind     string    `json:"kind"`
	OK       bool      `json:"ok"`
	Findings []finding `json:"findings"`
}

func checkCommand() *command {
	return &command{
		name:     "check",
		synopsis: "",
		summary:  "Check a table against the options",
		doc: "Reads DescribeTable and DescribeTimeToLive and compares them with what the\n" +
			"strategy needs with these options: key schema and types, TTL (with --ttl),\n" +
			"billing, and whether the table is a global table, in which mode (MREC or\n" +
			"MRSC), with what that means for the strategy. One finding a line: ok,\n" +
			"warning or problem, and under a warning or a problem the flags that fix it\n" +
			"(fix: ...). Exit status 1 when there is a problem, something that would\n" +
			"break.\n",
		minArgs: 0, maxArgs: 0,
		define: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
			kind := defineKind(fs, kindCounter, kindBlock, kindSortKey, kindLatest)
			ttl := fs.String("ttl", "", "the TTL attribute the table must have enabled (an IDMinter's TTLAttribute)")
			return func(ctx context.Context, e *env, _ []string) error {
				if kind.given != "" {
					// Its unread flags refused before any request, even when
					// the table does not exist.
					if _, err := kind.of(ctx, e, ""); err != nil {
						return err
					}
				}
				client, err := e.client(ctx)
				if err != nil {
					return err
				}
				r := report{Table: e.table, OK: true}
				if r.Kind, r.Findings, err = e.check(ctx, client, kind, *ttl); err != nil {
					return err
				}
				var text strings.Builder
				problems := 0
				for _, f := range r.Findings {
					fmt.Fprintf(&text, "%-8s %s: %s\n", f.Level, f.Subject, f.Message)
					if f.Fix != "" {
						fmt.Fprintf(&text, "%-8s fix: %s\n", "", f.Fix)
					}
					if f.Level == levelProblem {
						problems++
					}
				}
				r.OK = problems == 0
				if err := e.print(text.String(), r); err != nil {
					return err
				}
				if problems > 0 {
					// Exit status 1; the report above says what.
					return fmt.Errorf("check: table %q: %d problem(s) for %s", e.table, problems, r.Kind)
				}
				return nil
			}
		},
	}
}

// check describes the table and returns the kind it checked the table for
// and what it found; or the usage error of a flag set on the command line
// that the kind read from the table does not read.
func (e *env) check(ctx context.Context, client *dynamodb.Client, k *kindFlag, ttl string) (string, []finding, error) {
	out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(e.table)})
	var notFound *types.ResourceNotFoundException
	switch {
	case errors.As(err, &notFound):
		return k.given, []finding{{Level: levelProblem, Subject: "table", Message: fmt.Sprintf("%q does not exist in this Region (or these credentials cannot see it)", e.table),
			Fix: "dynamoseq create-table --kind " + or(k.given, "counter|block|sortkey|latest") + " with the same flags"}}, nil
	case err != nil:
		return k.given, []finding{{Level: levelProblem, Subject: "table", Message: fmt.Sprintf("DescribeTable: %v", err)}}, nil
	}
	t := out.Table
	kind, err := k.fromTable(ctx, e, t, "") // no GetItem without a NAME
	var ue *usageError
	switch {
	case errors.As(err, &ue):
		return kind, nil, err
	case err != nil:
		return k.given, []finding{{Level: levelProblem, Subject: "kind", Message: err.Error()}}, nil
	}
	found := []finding{tableStatus(t), kindFinding(k, kind, t)}
	found = append(found, e.keySchema(t, kind), billing(t))
	found = append(found, e.timeToLive(ctx, client, kind, ttl))
	return kind, append(found, e.globalFinding(t, kind, ttl)), nil
}

// kindFinding says which kind check compares the table with, and where
// that came from.
func kindFinding(k *kindFlag, kind string, t *types.TableDescription) finding {
	if k.given != "" {
		return finding{Level: levelOK, Subject: "kind", Message: kind + ", as --kind says"}
	}
	key := "a partition key only"
	if len(t.KeySchema) > 1 {
		key = "a sort key"
	}
	return finding{Level: levelOK, Subject: "kind", Message: fmt.Sprintf("%s, read from the table's key (%s); --kind names another", kind, key)}
}

func tableStatus(t *types.TableDescription) finding {
	if t.TableStatus == types.TableStatusActive {
		return finding{Level: levelOK, Subject: "status", Message: "ACTIVE"}
	}
	return finding{Level: levelWarning, Subject: "status", Message: fmt.Sprintf("%s: requests may fail until it is ACTIVE", t.TableStatus)}
}

// keySchema compares the table's key with the one the strategy's table
// definition has.
func (e *env) keySchema(t *types.TableDescription, kind string) finding {
	want := e.tableDefinition(kind)
	got, wanted := describeKey(t.KeySchema, t.AttributeDefinitions), describeKey(want.KeySchema, want.AttributeDefinitions)
	if got == wanted {
		return finding{Level: levelOK, Subject: "key schema", Message: fmt.Sprintf("%s, as %s expects", got, kind)}
	}
	return finding{Level: levelProblem, Subject: "key schema", Message: fmt.Sprintf("%s, but %s with these options needs %s", got, kind, wanted),
		Fix: e.keyFix(t, kind)}
}

// describeKey writes a key schema as "pk (S, HASH), sk (N, RANGE)".
func describeKey(key []types.KeySchemaElement, defs []types.AttributeDefinition) string {
	parts := make([]string, len(key))
	for i, k := range key {
		name := aws.ToString(k.AttributeName)
		typ := "?"
		if j := slices.IndexFunc(defs, func(d types.AttributeDefinition) bool { return aws.ToString(d.AttributeName) == name }); j >= 0 {
			typ = string(defs[j].AttributeType)
		}
		parts[i] = fmt.Sprintf("%s (%s, %s)", name, typ, k.KeyType)
	}
	return strings.Join(parts, ", ")
}

func billing(t *types.TableDescription) finding {
	if t.BillingModeSummary != nil && t.BillingModeSummary.BillingMode == types.BillingModePayPerRequest {
		return finding{Level: levelOK, Subject: "billing", Message: "on-demand (PAY_PER_REQUEST)"}
	}
	p := t.ProvisionedThroughput
	if p == nil {
		return finding{Level: levelOK, Subject: "billing", Message: "provisioned"}
	}
	return finding{Level: levelOK, Subject: "billing", Message: fmt.Sprintf("provisioned, %d read and %d write units a second: a hot sequence is limited by them",
		aws.ToInt64(p.ReadCapacityUnits), aws.ToInt64(p.WriteCapacityUnits))}
}

// timeToLive reports the table's TTL setting against --ttl.
func (e *env) timeToLive(ctx context.Context, client *dynamodb.Client, kind, ttl string) finding {
	out, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(e.table)})
	if err != nil {
		return finding{Level: levelProblem, Subject: "ttl", Message: fmt.Sprintf("DescribeTimeToLive: %v", err)}
	}
	d := out.TimeToLiveDescription
	status, attr := types.TimeToLiveStatusDisabled, ""
	if d != nil {
		status, attr = d.TimeToLiveStatus, aws.ToString(d.AttributeName)
	}
	enabled := status == types.TimeToLiveStatusEnabled || status == types.TimeToLiveStatusEnabling
	switch {
	case ttl == "" && enabled:
		return finding{Level: levelOK, Subject: "ttl", Message: fmt.Sprintf("%s on %q; the options write no TTL attribute", status, attr)}
	case ttl == "":
		return finding{Level: levelOK, Subject: "ttl", Message: fmt.Sprintf("%s; not asked for (--ttl)", status)}
	case enabled && attr == ttl:
		return finding{Level: levelOK, Subject: "ttl", Message: fmt.Sprintf("%s on %q, as --ttl asks", status, attr)}
	case enabled:
		return finding{Level: levelProblem, Subject: "ttl", Message: fmt.Sprintf("%s on %q, but --ttl is %q: old periods would never expire", status, attr, ttl),
			Fix: "--ttl " + attr}
	}
	return finding{Level: levelProblem, Subject: "ttl", Message: fmt.Sprintf("%s, but --ttl is %q: old periods would never expire", status, ttl),
		Fix: fmt.Sprintf("dynamoseq create-table --kind %s --ttl %s with the same flags (it enables TTL)", kind, ttl)}
}

// globalFinding says whether the table is a global table, in which mode,
// and what that means for the strategy with --global-table (and --regions).
func (s *settings) globalFinding(t *types.TableDescription, kind, ttl string) finding {
	mode, _ := s.globalMode() // checked by validate
	if len(t.Replicas) == 0 {
		if mode != dynamoseq.GlobalTableNone {
			return finding{Level: levelWarning, Subject: "global table", Message: fmt.Sprintf("no replicas: a single-Region table, but --global-table is %s", s.globalTable),
				Fix: "--global-table none" + s.noRegions()}
		}
		return finding{Level: levelOK, Subject: "global table", Message: "no: a single-Region table"}
	}
	regions := make([]string, len(t.Replicas))
	for i, r := range t.Replicas {
		regions[i] = aws.ToString(r.RegionName)
	}
	where := "replicas in " + strings.Join(regions, ", ")
	if t.MultiRegionConsistency == types.MultiRegionConsistencyStrong {
		return s.mrscFinding("MRSC (multi-Region strong consistency), "+where, mode, kind, ttl)
	}
	return s.mrecFinding("MREC (multi-Region eventual consistency), "+where, regions, mode, kind)
}

// noRegions is the flag that takes --regions away, when it is set.
func (s *settings) noRegions() string {
	if s.regions == "" {
		return ""
	}
	return ` --regions ""`
}

func (s *settings) mrscFinding(what string, mode dynamoseq.GlobalTableMode, kind, ttl string) finding {
	switch {
	case (kind == kindSortKey || kind == kindLatest) && mode != dynamoseq.GlobalTableMRSC:
		return finding{Level: levelProblem, Subject: "global table", Message: what + ": " + kind + " writes with TransactWriteItems unless --global-table is mrsc, " +
			"and MRSC tables refuse transactions", Fix: "--global-table mrsc" + s.noRegions()}
	case kind == kindSortKey || kind == kindLatest:
		return finding{Level: levelOK, Subject: "global table", Message: what + ": " + kind + " writes every item with its own conditional PutItem, " +
			"consistent across Regions; a replicated write conflict is a lost race"}
	case ttl != "":
		return finding{Level: levelProblem, Subject: "global table", Message: what + ": MRSC tables do not support Time to Live, which --ttl needs",
			Fix: `--ttl ""`}
	case mode == dynamoseq.GlobalTableMREC:
		return finding{Level: levelWarning, Subject: "global table", Message: what + ": --global-table mrec slices the numbers by Region, which MRSC does not need",
			Fix: "--global-table mrsc" + s.noRegions()}
	}
	return finding{Level: levelOK, Subject: "global table", Message: what + ": " + kind + " works unchanged from any Region, ADD and conditions " +
		"being consistent across Regions; a replicated write conflict is resent"}
}

func (s *settings) mrecFinding(what string, replicas []string, mode dynamoseq.GlobalTableMode, kind string) finding {
	counter := kind == kindCounter || kind == kindBlock
	switch {
	case mode == dynamoseq.GlobalTableMRSC:
		return finding{Level: levelProblem, Subject: "global table", Message: what + ", but --global-table is mrsc: conditions are checked only " +
			"in the Region that receives the write, so two Regions would hand out the same numbers",
			Fix: s.mrecFix(kind, replicas)}
	case !counter && mode == dynamoseq.GlobalTableMREC:
		return finding{Level: levelProblem, Subject: "global table", Message: what + ": the library refuses " + kind + " with --global-table mrec; " +
			"write every sequence from one home Region", Fix: "--global-table none" + s.noRegions()}
	case !counter:
		return finding{Level: levelWarning, Subject: "global table", Message: what + ": conditions and transactions are checked only in the " +
			"Region that receives the write, so " + kind + " must write every sequence from one home Region"}
	case mode == dynamoseq.GlobalTableNone:
		return finding{Level: levelWarning, Subject: "global table", Message: what + ": each Region applies ADD to its own copy and replication " +
			"keeps the last writer, so two Regions would hand out the same numbers, unless each Region has its own " +
			"slice of numbers (--global-table mrec and --regions, in one order for every process) or one Region mints",
			Fix: s.mrecFix(kind, replicas)}
	}
	listed := s.regionList()
	for _, r := range append([]string{s.clientRegion}, replicas...) {
		if !slices.Contains(listed, r) {
			return finding{Level: levelProblem, Subject: "global table", Message: fmt.Sprintf("%s, but --regions %s leaves out %s: a process "+
				"there has no slice of numbers; add it at the end of the list, whose order must not change", what, s.regions, r),
				Fix: "--regions " + strings.Join(s.withRegions(replicas), ",")}
		}
	}
	return finding{Level: levelOK, Subject: "global table", Message: fmt.Sprintf("%s: Region-sliced, %s hands out one number in %d", what, s.clientRegion, len(listed))}
}

// mrecFix is the fix for a strategy kind on an MREC table with these
// replicas: counters Region-sliced, over --regions in their order with any
// missing Region added at the end; other kinds from one home Region.
func (s *settings) mrecFix(kind string, replicas []string) string {
	if kind != kindCounter && kind != kindBlock {
		return "--global-table none" + s.noRegions()
	}
	return "--global-table mrec --regions " + strings.Join(s.withRegions(replicas), ",")
}

// withRegions is --regions with the replicas it leaves out added at the
// end, in the table's order, and then this process's Region if it is not a
// replica: so that every process that runs check is told the same list.
func (s *settings) withRegions(replicas []string) []string {
	list := s.regionList()
	for _, r := range append(slices.Clone(replicas), s.clientRegion) {
		if r != "" && !slices.Contains(list, r) {
			list = append(list, r)
		}
	}
	return list
}
