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
	}{
		{single, "", "", kindCounter, "", levelOK, "single-Region"},
		{single, "", "", kindLatest, "expires", levelOK, "single-Region"},
		{single, "mrec", all, kindCounter, "", levelWarning, "leave it at none"},
		{mrec, "", "", kindCounter, "", levelWarning, "--global-table mrec"},
		{mrec, "none", "", kindBlock, "", levelWarning, "replicas in us-east-1, us-east-2, us-west-2"},
		{mrec, "mrec", all, kindCounter, "", levelOK, "Region-sliced, us-east-2 hands out one number in 3"},
		{mrec, "mrec", "us-east-1,us-east-2", kindBlock, "", levelProblem, "leaves out us-west-2"},
		{mrec, "mrec", "us-east-1,us-west-2", kindCounter, "", levelProblem, "leaves out us-east-2"},
		{mrec, "mrsc", "", kindCounter, "", levelProblem, "same numbers"},
		{mrec, "", "", kindSortKey, "", levelWarning, "one home Region"},
		{mrec, "mrec", all, kindLatest, "", levelProblem, "refuses latest"},
		{mrsc, "", "", kindCounter, "", levelOK, "works unchanged"},
		{mrsc, "mrsc", "", kindBlock, "", levelOK, "works unchanged"},
		{mrsc, "mrec", all, kindCounter, "", levelWarning, "use mrsc"},
		{mrsc, "", "", kindCounter, "expires", levelProblem, "Time to Live"},
		{mrsc, "mrsc", "", kindSortKey, "", levelOK, "conditional PutItem"},
		{mrsc, "mrsc", "", kindLatest, "", levelOK, "conditional PutItem"},
		{mrsc, "", "", kindLatest, "", levelProblem, "TransactWriteItems"},
	} {
		s := settings{globalTable: tc.mode, regions: tc.regions, clientRegion: "us-east-2"}
		f := s.globalFinding(tc.table, tc.kind, tc.ttl)
		assert.Equal(t, tc.level, f.Level, "%s, %d replicas, %s, --global-table %q --regions %q, ttl %q: %s",
			tc.kind, len(tc.table.Replicas), tc.table.MultiRegionConsistency, tc.mode, tc.regions, tc.ttl, f.Message)
		assert.Contains(t, f.Message, tc.contains)
	}
}
