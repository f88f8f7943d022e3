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
			"warning or problem. Exit status 1 when there is a problem, something that\n" +
			"would break.\n" + kindRule,
		minArgs: 0, maxArgs: 0,
		define: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
			kind := defineKind(fs, kindCounter, kindBlock, kindSortKey, kindLatest)
			ttl := fs.String("ttl", "", "the TTL attribute the table must have enabled (IDMinter's TTLAttribute)")
			return func(ctx context.Context, e *env, _ []string) error {
				client, err := e.client(ctx)
				if err != nil {
					return err
				}
				r := report{Table: e.table, OK: true}
				r.Kind, r.Findings = e.check(ctx, client, kind, *ttl)
				var text strings.Builder
				problems := 0
				for _, f := range r.Findings {
					fmt.Fprintf(&text, "%-8s %s: %s\n", f.Level, f.Subject, f.Message)
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
// and what it found.
func (e *env) check(ctx context.Context, client *dynamodb.Client, k *kindFlag, ttl string) (string, []finding) {
	out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(e.table)})
	var notFound *types.ResourceNotFoundException
	switch {
	case errors.As(err, &notFound):
		return k.given, []finding{{levelProblem, "table", fmt.Sprintf("%q does not exist in this Region (or these credentials cannot see it); create-table makes it", e.table)}}
	case err != nil:
		return k.given, []finding{{levelProblem, "table", fmt.Sprintf("DescribeTable: %v", err)}}
	}
	t := out.Table
	kind, err := k.fromTable(ctx, e, t, "") // no GetItem without a NAME
	if err != nil {
		return k.given, []finding{{levelProblem, "kind", err.Error()}}
	}
	found := []finding{tableStatus(t), kindFinding(k, kind, t)}
	found = append(found, e.keySchema(t, kind), billing(t))
	found = append(found, e.timeToLive(ctx, client, ttl, t))
	return kind, append(found, e.globalFinding(t, kind, ttl))
}

// kindFinding says which kind check compares the table with, and where
// that came from.
func kindFinding(k *kindFlag, kind string, t *types.TableDescription) finding {
	if k.given != "" {
		return finding{levelOK, "kind", kind + ", as --kind says"}
	}
	key := "a partition key only"
	if len(t.KeySchema) > 1 {
		key = "a sort key"
	}
	return finding{levelOK, "kind", fmt.Sprintf("%s, read from the table's key (%s); --kind names another", kind, key)}
}

func tableStatus(t *types.TableDescription) finding {
	if t.TableStatus == types.TableStatusActive {
		return finding{levelOK, "status", "ACTIVE"}
	}
	return finding{levelWarning, "status", fmt.Sprintf("%s: requests may fail until it is ACTIVE", t.TableStatus)}
}

// keySchema compares the table's key with the one the strategy's table
// definition has.
func (e *env) keySchema(t *types.TableDescription, kind string) finding {
	want := e.tableDefinition(kind)
	got, wanted := describeKey(t.KeySchema, t.AttributeDefinitions), describeKey(want.KeySchema, want.AttributeDefinitions)
	if got == wanted {
		return finding{levelOK, "key schema", fmt.Sprintf("%s, as %s expects", got, kind)}
	}
	return finding{levelProblem, "key schema", fmt.Sprintf("%s, but %s with these options needs %s", got, kind, wanted)}
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
		return finding{levelOK, "billing", "on-demand (PAY_PER_REQUEST)"}
	}
	p := t.ProvisionedThroughput
	if p == nil {
		return finding{levelOK, "billing", "provisioned"}
	}
	return finding{levelOK, "billing", fmt.Sprintf("provisioned, %d read and %d write units a second: a hot sequence is limited by them",
		aws.ToInt64(p.ReadCapacityUnits), aws.ToInt64(p.WriteCapacityUnits))}
}

// timeToLive reports the table's TTL setting against --ttl.
func (e *env) timeToLive(ctx context.Context, client *dynamodb.Client, ttl string, t *types.TableDescription) finding {
	out, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(e.table)})
	if err != nil {
		return finding{levelProblem, "ttl", fmt.Sprintf("DescribeTimeToLive: %v", err)}
	}
	d := out.TimeToLiveDescription
	status, attr := types.TimeToLiveStatusDisabled, ""
	if d != nil {
		status, attr = d.TimeToLiveStatus, aws.ToString(d.AttributeName)
	}
	enabled := status == types.TimeToLiveStatusEnabled || status == types.TimeToLiveStatusEnabling
	switch {
	case ttl == "" && enabled:
		return finding{levelOK, "ttl", fmt.Sprintf("%s on %q; the options write no TTL attribute", status, attr)}
	case ttl == "":
		return finding{levelOK, "ttl", fmt.Sprintf("%s; not asked for (--ttl)", status)}
	case enabled && attr == ttl:
		return finding{levelOK, "ttl", fmt.Sprintf("%s on %q, as --ttl asks", status, attr)}
	case enabled:
		return finding{levelProblem, "ttl", fmt.Sprintf("%s on %q, but --ttl is %q: old periods would never expire", status, attr, ttl)}
	}
	return finding{levelProblem, "ttl", fmt.Sprintf("%s, but --ttl is %q: old periods would never expire; create-table --ttl enables it", status, ttl)}
}

// globalFinding says whether the table is a global table, in which mode,
// and what that means for the strategy with --global-table (and --regions).
func (s *settings) globalFinding(t *types.TableDescription, kind, ttl string) finding {
	mode, _ := s.globalMode() // checked by validate
	if len(t.Replicas) == 0 {
		if mode != dynamoseq.GlobalTableNone {
			return finding{levelWarning, "global table", fmt.Sprintf("no replicas: a single-Region table, but --global-table is %s; leave it at none", s.globalTable)}
		}
		return finding{levelOK, "global table", "no: a single-Region table"}
	}
	regions := make([]string, len(t.Replicas))
	for i, r := range t.Replicas {
		regions[i] = aws.ToString(r.RegionName)
	}
	where := "replicas in " + strings.Join(regions, ", ")
	if t.MultiRegionConsistency == types.MultiRegionConsistencyStrong {
		return mrscFinding("MRSC (multi-Region strong consistency), "+where, mode, kind, ttl)
	}
	return s.mrecFinding("MREC (multi-Region eventual consistency), "+where, regions, mode, kind)
}

func mrscFinding(what string, mode dynamoseq.GlobalTableMode, kind, ttl string) finding {
	switch {
	case (kind == kindSortKey || kind == kindLatest) && mode != dynamoseq.GlobalTableMRSC:
		return finding{levelProblem, "global table", what + ": " + kind + " writes with TransactWriteItems unless --global-table is mrsc, " +
			"and MRSC tables refuse transactions; use --global-table mrsc"}
	case kind == kindSortKey || kind == kindLatest:
		return finding{levelOK, "global table", what + ": " + kind + " writes every item with its own conditional PutItem, " +
			"consistent across Regions; a replicated write conflict is a lost race"}
	case ttl != "":
		return finding{levelProblem, "global table", what + ": MRSC tables do not support Time to Live, which --ttl needs"}
	case mode == dynamoseq.GlobalTableMREC:
		return finding{levelWarning, "global table", what + ": --global-table mrec slices the numbers by Region, which MRSC does not need; use mrsc"}
	}
	return finding{levelOK, "global table", what + ": " + kind + " works unchanged from any Region, ADD and conditions " +
		"being consistent across Regions; a replicated write conflict is resent"}
}

func (s *settings) mrecFinding(what string, replicas []string, mode dynamoseq.GlobalTableMode, kind string) finding {
	counter := kind == kindCounter || kind == kindBlock
	switch {
	case mode == dynamoseq.GlobalTableMRSC:
		return finding{levelProblem, "global table", what + ", but --global-table is mrsc: conditions are checked only " +
			"in the Region that receives the write, so two Regions would hand out the same numbers"}
	case !counter && mode == dynamoseq.GlobalTableMREC:
		return finding{levelProblem, "global table", what + ": the library refuses " + kind + " with --global-table mrec; " +
			"write every sequence from one home Region with --global-table none"}
	case !counter:
		return finding{levelWarning, "global table", what + ": conditions and transactions are checked only in the " +
			"Region that receives the write, so " + kind + " must write every sequence from one home Region"}
	case mode == dynamoseq.GlobalTableNone:
		return finding{levelWarning, "global table", what + ": each Region applies ADD to its own copy and replication " +
			"keeps the last writer, so two Regions would hand out the same numbers; pass --global-table mrec and " +
			"--regions (each Region its own slice of numbers), or mint from one Region only"}
	}
	listed := s.regionList()
	for _, r := range append([]string{s.clientRegion}, replicas...) {
		if !slices.Contains(listed, r) {
			return finding{levelProblem, "global table", fmt.Sprintf("%s, but --regions %s leaves out %s: a process "+
				"there has no slice of numbers; add it at the end of the list, whose order must not change", what, s.regions, r)}
		}
	}
	return finding{levelOK, "global table", fmt.Sprintf("%s: Region-sliced, %s hands out one number in %d", what, s.clientRegion, len(listed))}
}
