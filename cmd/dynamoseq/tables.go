package main

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// tableDefinition is the table a strategy needs with these settings.
// TODO(tables): a stub until dynamoseq.CounterTable, SortKeyTable and
// LatestTable land; then it calls them.
func (s *settings) tableDefinition(kind string) *dynamodb.CreateTableInput {
	pk := or(s.partitionKey, "pk")
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(s.table),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(pk), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash}},
	}
	layout, _ := s.parseLayout()
	if kind == kindSortKey || kind == kindLatest && layout == 0 {
		sk := or(s.sortKey, "sk")
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(sk), AttributeType: types.ScalarAttributeType(or(s.sortKeyType, "N"))})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange})
	}
	return in
}
