package main

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
)

// TestGlobalTableFindings covers the global table modes, which DynamoDB
// Local cannot create: the finding for each mode and strategy.
func TestGlobalTableFindings(t *testing.T) {
	replicas := []types.ReplicaDescription{{RegionName: aws.String("us-east-1")}, {RegionName: aws.String("us-east-2")}, {RegionName: aws.String("us-west-2")}}
	single := &types.TableDescription{}
	mrec := &types.TableDescription{Replicas: replicas, MultiRegionConsistency: types.MultiRegionConsistencyEventual}
	mrsc := &types.TableDescription{Replicas: replicas, MultiRegionConsistency: types.MultiRegionConsistencyStrong}
	all := "us-east-1,us-east-2,us-west-2"
	for _, tc := range []struct {
		table           *types.TableDescription
		mode, regions   string
		kind, ttl       string
		level, contains string
		fix             string
	}{
		{single, "", "", kindCounter, "", levelOK, "single-Region", ""},
		{single, "", "", kindLatest, "expires", levelOK, "single-Region", ""},
		{single, "mrec", all, kindCounter, "", levelWarning, "but --global-table is mrec", `--global-table none --regions ""`},
		{mrec, "", "", kindCounter, "", levelWarning, "--global-table mrec", "--global-table mrec --regions " + all},
		{mrec, "none", "", kindBlock, "", levelWarning, "replicas in us-east-1, us-east-2, us-west-2", "--global-table mrec --regions " + all},
		{mrec, "mrec", all, kindCounter, "", levelOK, "Region-sliced, us-east-2 hands out one number in 3", ""},
		{mrec, "mrec", "us-east-1,us-east-2", kindBlock, "", levelProblem, "leaves out us-west-2", "--regions " + all},
		{mrec, "mrec", "us-east-1,us-west-2", kindCounter, "", levelProblem, "leaves out us-east-2", "--regions us-east-1,us-west-2,us-east-2"},
		{mrec, "mrsc", "", kindCounter, "", levelProblem, "same numbers", "--global-table mrec --regions " + all},
		{mrec, "", "", kindSortKey, "", levelWarning, "one home Region", ""},
		{mrec, "mrec", all, kindLatest, "", levelProblem, "refuses latest", `--global-table none --regions ""`},
		{mrsc, "", "", kindCounter, "", levelOK, "works unchanged", ""},
		{mrsc, "mrsc", "", kindBlock, "", levelOK, "works unchanged", ""},
		{mrsc, "mrec", all, kindCounter, "", levelWarning, "which MRSC does not need", `--global-table mrsc --regions ""`},
		{mrsc, "", "", kindCounter, "expires", levelProblem, "Time to Live", `--ttl ""`},
		{mrsc, "mrsc", "", kindSortKey, "", levelOK, "conditional PutItem", ""},
		{mrsc, "mrsc", "", kindLatest, "", levelOK, "conditional PutItem", ""},
		{mrsc, "", "", kindLatest, "", levelProblem, "TransactWriteItems", "--global-table mrsc"},
	} {
		s := settings{globalTable: tc.mode, regions: tc.regions, clientRegion: "us-east-2"}
		f := s.globalFinding(tc.table, tc.kind, tc.ttl)
		assert.Equal(t, tc.level, f.Level, "%s, %d replicas, %s, --global-table %q --regions %q, ttl %q: %s",
			tc.kind, len(tc.table.Replicas), tc.table.MultiRegionConsistency, tc.mode, tc.regions, tc.ttl, f.Message)
		assert.Contains(t, f.Message, tc.contains)
		assert.Equal(t, tc.fix, f.Fix, "%s, %s, --global-table %q --regions %q: fix", tc.kind, tc.table.MultiRegionConsistency, tc.mode, tc.regions)
	}
}

// TestKeyFix finds the flags that make the options fit a table's key, and
// the kinds that fit it when no flag can.
func TestKeyFix(t *testing.T) {
	table := func(pk, sk, skType string) *types.TableDescription {
		d := &types.TableDescription{
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash}},
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(pk), AttributeType: types.ScalarAttributeTypeS}},
		}
		if sk != "" {
			d.KeySchema = append(d.KeySchema, types.KeySchemaElement{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange})
			d.AttributeDefinitions = append(d.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(sk), AttributeType: types.ScalarAttributeType(skType)})
		}
		return d
	}
	for _, tc := range []struct {
		table *types.TableDescription
		s     settings
		kind  string
		want  string
	}{
		{table("pk", "", ""), settings{}, kindCounter, ""},
		{table("id", "", ""), settings{}, kindCounter, "--partition-key id"},
		{table("id", "", ""), settings{}, kindBlock, "--partition-key id"},
		{table("pk", "", ""), settings{}, kindSortKey, "--kind counter (or --kind latest --layout partitionkey)"},
		{table("pk", "", ""), settings{}, kindLatest, "--layout partitionkey"},
		{table("pk", "", ""), settings{counterSortKey: "C"}, kindCounter, `--counter-sort-key-value ""`},
		{table("pk", "sk", "N"), settings{}, kindCounter, "--kind sortkey (or --kind latest)"},
		{table("pk", "sk", "S"), settings{}, kindCounter, "--counter-sort-key-value VALUE"},
		{table("PK", "SK", "S"), settings{}, kindSortKey, "--partition-key PK --sort-key SK --sort-key-type S"},
		{table("pk", "sk", "N"), settings{layout: "partitionkey"}, kindLatest, "--layout sortkey"},
		{table("pk", "sk", "N"), settings{sortKeyType: "S"}, kindLatest, "--sort-key-type N"},
		{table("pk", "my key", "N"), settings{}, kindSortKey, "--sort-key 'my key'"},
	} {
		tc.s.table = "T"
		assert.Equal(t, tc.want, tc.s.keyFix(tc.table, tc.kind), "%s on %s, %+v", tc.kind, describeKey(tc.table.KeySchema, tc.table.AttributeDefinitions), tc.s)
	}
}
