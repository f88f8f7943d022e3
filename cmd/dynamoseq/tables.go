package main

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamoseq/dynamoseq"
)

// tableDefinition is the table the strategy kind needs with these settings,
// as the library defines it.
func (s *settings) tableDefinition(kind string) *dynamodb.CreateTableInput {
	switch kind {
	case kindSortKey:
		return dynamoseq.SortKeyTable(s.table, s.sortKeyOptions)
	case kindLatest:
		return dynamoseq.LatestTable(s.table, s.latestOptions)
	}
	return dynamoseq.CounterTable(s.table, s.counterOptions)
}
