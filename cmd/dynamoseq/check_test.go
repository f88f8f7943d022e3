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
	for _, tc := range []struct {
		table      *types.TableDescription
		kind, ttl  string
		level, has string
	}{
		{single, kindCounter, "", levelOK, "single-Region"},
		{single, kindLatest, "expires", levelOK, "single-Region"},
		{mrec, kindCounter, "", levelWarning, "Region and Regions"},
		{mrec, kindBlock, "", levelWarning, "replicas in us-east-1, us-east-2, us-west-2"},
		{mrec, kindSortKey, "", levelWarning, "one home Region"},
		{mrec, kindLatest, "", levelWarning, "refuses GlobalTableMREC"},
		{mrsc, kindCounter, "", levelOK, "works unchanged"},
		{mrsc, kindBlock, "", levelOK, "works unchanged"},
		{mrsc, kindCounter, "expires", levelProblem, "Time to Live"},
		{mrsc, kindSortKey, "", levelProblem, "TransactWriteItems"},
		{mrsc, kindLatest, "", levelProblem, "TransactWriteItems"},
	} {
		f := globalTable(tc.table, tc.kind, tc.ttl)
		assert.Equal(t, tc.level, f.Level, "%s, %d replicas, %s, ttl %q: %s", tc.kind, len(tc.table.Replicas), tc.table.MultiRegionConsistency, tc.ttl, f.Message)
		assert.Contains(t, f.Message, tc.has)
	}
}
