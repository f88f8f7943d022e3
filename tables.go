package dynamoseq

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/internal/backoff"
)

// TableClient is the part of *dynamodb.Client that EnsureTable uses. Its
// methods have the SDK's exact signatures.
type TableClient interface {
	CreateTable(ctx context.Context, params *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	DescribeTable(ctx context.Context, params *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	DescribeTimeToLive(ctx context.Context, params *dynamodb.DescribeTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error)
	UpdateTimeToLive(ctx context.Context, params *dynamodb.UpdateTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error)
}

var _ TableClient = (*dynamodb.Client)(nil)

// CounterTable returns the definition of a table named name for a Counter
// (and so a Block or an IDMinter) under the options: a String partition key
// named PartitionKey, and with SortKeyValue set a String sort key named
// SortKey; on-demand billing. Pass it to EnsureTable, or to
// CreateTable after adding what the application needs (tags, streams). The
// options are not validated here: NewCounter reports a bad one.
func CounterTable(name string, optFns ...func(*CounterOptions)) *dynamodb.CreateTableInput {
	o := apply(optFns)
	pk := or(o.PartitionKey, defaultPartitionKey)
	if o.SortKeyValue != "" {
		return tableInput(name, pk, or(o.SortKey, defaultSortKey), types.ScalarAttributeTypeS)
	}
	return tableInput(name, pk, "", "")
}

// SortKeyTable returns the definition of a table named name for a SortKey
// under the options: a String partition key named PartitionKey, a sort key
// named SortKey, of type Number, or String with SortKeyDigits; on-demand
// billing. As for CounterTable, the options are not validated here.
func SortKeyTable(name string, optFns ...func(*SortKeyOptions)) *dynamodb.CreateTableInput {
	o := apply(optFns)
	sk := newNumberCodec(or(o.SortKey, defaultSortKey), o.SortKeyDigits)
	return tableInput(name, or(o.PartitionKey, defaultPartitionKey), sk.attr, sk.typ)
}

// LatestTable returns the definition of a table named name for a Latest
// under the options: with LayoutSortKey (the default) a String partition
// key named PartitionKey and the layout's sort key, with LayoutPartitionKey
// the partition key only; on-demand billing. As for CounterTable, the
// options are not validated here.
func LatestTable(name string, optFns ...func(*LatestOptions)) *dynamodb.CreateTableInput {
	o := apply(optFns)
	pk := or(o.PartitionKey, defaultPartitionKey)
	if l, ok := layoutValue(o.Layout).(LayoutSortKey); ok {
		sk := newNumberCodec(or(l.SortKey, defaultSortKey), l.SortKeyDigits)
		return tableInput(name, pk, sk.attr, sk.typ)
	}
	return tableInput(name, pk, "", "")
}

// or returns s, or def when s is empty.
func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// tableInput is an on-demand table with a String partition key named pk
// and, when sk is not "", a sort key named sk of type skType.
func tableInput(name, pk, sk string, skType types.ScalarAttributeType) *dynamodb.CreateTableInput {
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(pk), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash}},
	}
	if sk != "" {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(sk), AttributeType: skType})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange})
	}
	return in
}

// EnsureTable makes the table that in defines ready for use, and is safe to
// call on every start of a service or a test: it creates the table when it
// does not exist (one created meanwhile by another process is taken as it
// is), waits until it is ACTIVE (or UPDATING) for as long as ctx allows,
// and with a ttlAttribute enables Time to Live on it unless it already is.
//
// An existing table whose key schema differs from in, or with Time to Live
// on another attribute, is refused with ErrTableMismatch naming what
// differs; nothing is changed. Other settings (billing mode, indexes,
// streams) are not compared. Errors are *Error naming the table;
// ErrInvalidArgument for a nil client or an input without a valid table
// name or key schema.
//
// A table that exists and is ready costs one DescribeTable, plus one
// DescribeTimeToLive with a ttlAttribute. EnsureTable is safe for
// concurrent use, also by several processes on one table.
func EnsureTable(ctx context.Context, client TableClient, in *dynamodb.CreateTableInput, ttlAttribute string) error {
	var table string
	if in != nil {
		table = aws.ToString(in.TableName)
	}
	fail := func(err error) error {
		return &Error{Op: "EnsureTable", Table: table, Err: err}
	}
	switch {
	case client == nil:
		return fail(invalidf("nil client"))
	case in == nil:
		return fail(invalidf("nil CreateTableInput"))
	case len(in.KeySchema) == 0:
		return fail(invalidf("the CreateTableInput has no key schema"))
	}
	if err := validateTable(table); err != nil {
		return fail(err)
	}
	desc, err := describeTable(ctx, client, table)
	if errors.Is(err, ErrTableNotFound) {
		desc, err = createTable(ctx, client, in)
	}
	if err != nil {
		return fail(err)
	}
	if err := compareKeys(in, desc); err != nil {
		return fail(err)
	}
	if err := waitActive(ctx, client, table, desc); err != nil {
		return fail(err)
	}
	if ttlAttribute != "" {
		if err := enableTTL(ctx, client, table, ttlAttribute); err != nil {
			return fail(err)
		}
	}
	return nil
}

// describeTable returns the table's description, or ErrTableNotFound.
func describeTable(ctx context.Context, client TableClient, table string) (*types.TableDescription, error) {
	out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return nil, classify(err)
	}
	if out.Table == nil {
		return nil, fmt.Errorf("DescribeTable returned no table description")
	}
	return out.Table, nil
}

// createTable creates the table, or describes it when another process
// created it first.
func createTable(ctx context.Context, client TableClient, in *dynamodb.CreateTableInput) (*types.TableDescription, error) {
	out, err := client.CreateTable(ctx, in)
	var inUse *types.ResourceInUseException
	switch {
	case errors.As(err, &inUse):
		return describeTable(ctx, client, aws.ToString(in.TableName))
	case err != nil:
		return nil, fmt.Errorf("CreateTable: %w", err)
	case out.TableDescription == nil:
		return nil, fmt.Errorf("CreateTable returned no table description")
	}
	return out.TableDescription, nil
}

// waitActive polls DescribeTable until the table serves reads and writes,
// with waits from 50ms growing to 5s, until ctx ends.
func waitActive(ctx context.Context, client TableClient, table string, desc *types.TableDescription) error {
	for attempt := 1; ; attempt++ {
		switch desc.TableStatus {
		case types.TableStatusActive, types.TableStatusUpdating:
			return nil
		case types.TableStatusCreating:
		default:
			return fmt.Errorf("the table is %s, want ACTIVE", desc.TableStatus)
		}
		wait := min(50*time.Millisecond<<min(attempt-1, 7), 5*time.Second)
		if err := backoff.Sleep(ctx, wait); err != nil {
			return fmt.Errorf("waiting for the table to become ACTIVE (it is %s): %w", desc.TableStatus, err)
		}
		var err error
		if desc, err = describeTable(ctx, client, table); err != nil {
			return err
		}
	}
}

// compareKeys returns ErrTableMismatch naming every key attribute of the
// table that differs from the definition in.
func compareKeys(in *dynamodb.CreateTableInput, desc *types.TableDescription) error {
	var diffs []string
	for _, role := range []types.KeyType{types.KeyTypeHash, types.KeyTypeRange} {
		want := keyOf(in.KeySchema, in.AttributeDefinitions, role)
		have := keyOf(desc.KeySchema, desc.AttributeDefinitions, role)
		if want != have {
			diffs = append(diffs, fmt.Sprintf("%s is %s, want %s", keyRole(role), have, want))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%w: %s", ErrTableMismatch, strings.Join(diffs, "; "))
	}
	return nil
}

// keyOf describes the key attribute of the role in a key schema, such as
// `"sk" of type N`, or "none".
func keyOf(schema []types.KeySchemaElement, defs []types.AttributeDefinition, role types.KeyType) string {
	for _, k := range schema {
		if k.KeyType != role {
			continue
		}
		name := aws.ToString(k.AttributeName)
		for _, d := range defs {
			if aws.ToString(d.AttributeName) == name {
				return fmt.Sprintf("%q of type %s", name, d.AttributeType)
			}
		}
		return fmt.Sprintf("%q of no defined type", name)
	}
	return "none"
}

func keyRole(role types.KeyType) string {
	if role == types.KeyTypeHash {
		return "the partition key"
	}
	return "the sort key"
}

// enableTTL enables Time to Live on attribute unless it already is, and
// refuses a table whose TTL is on another attribute.
func enableTTL(ctx context.Context, client TableClient, table, attribute string) error {
	enabled, err := ttlEnabled(ctx, client, table, attribute)
	if err != nil || enabled {
		return err
	}
	_, err = client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(attribute),
			Enabled:       aws.Bool(true),
		},
	})
	if err != nil {
		// DynamoDB refuses to enable it twice: another process may have
		// enabled it since the first look.
		if enabled, rerr := ttlEnabled(ctx, client, table, attribute); rerr == nil && enabled {
			return nil
		}
		return fmt.Errorf("UpdateTimeToLive: %w", classify(err))
	}
	return nil
}

// ttlEnabled reports whether Time to Live is enabled (or being enabled) on
// attribute, and returns ErrTableMismatch when it is on another one.
func ttlEnabled(ctx context.Context, client TableClient, table, attribute string) (bool, error) {
	out, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
	if err != nil {
		return false, fmt.Errorf("DescribeTimeToLive: %w", classify(err))
	}
	d := out.TimeToLiveDescription
	if d == nil {
		return false, nil
	}
	current := aws.ToString(d.AttributeName)
	switch d.TimeToLiveStatus {
	case types.TimeToLiveStatusEnabled, types.TimeToLiveStatusEnabling:
		if current != attribute {
			return false, fmt.Errorf("%w: Time to Live is enabled on attribute %q, want %q", ErrTableMismatch, current, attribute)
		}
		return true, nil
	case types.TimeToLiveStatusDisabling:
		return false, fmt.Errorf("the Time to Live on attribute %q is being disabled; DynamoDB lets it be enabled again once that is done (up to an hour)", current)
	}
	return false, nil
}
