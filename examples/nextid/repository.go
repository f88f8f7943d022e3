package nextid

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq"
)

// IDAttribute is the hash key of the records' tables: the id, a String.
const IDAttribute = "Id"

// Record is what a Repository stores: a value with a string id and a
// mapping to and from a DynamoDB item. The item the methods exchange
// excludes the Id attribute, which the Repository owns.
type Record interface {
	// RecordID points at the record's Id field.
	RecordID() *string
	// MarshalItem returns the record's attributes other than Id.
	MarshalItem() map[string]types.AttributeValue
	// UnmarshalItem sets the record's fields, other than Id, from item.
	UnmarshalItem(item map[string]types.AttributeValue) error
}

// Repository stores the records of one data type in their own table (hash
// key Id, a String), with ids from the shared NextId table.
//
// A Repository is safe for concurrent use.
type Repository[T any, P interface {
	*T
	Record
}] struct {
	client   dynamoseq.Client
	table    string
	dataType string
	ids      *IDs
}

// UserRepository stores users; their ids come from the NextId item "user".
type UserRepository = Repository[User, *User]

// NewRepository returns a Repository of records of dataType (the NextKey of
// their item in the NextId table) stored in table. It makes no call to
// DynamoDB.
func NewRepository[T any, P interface {
	*T
	Record
}](client dynamoseq.Client, table, dataType string, ids *IDs) (*Repository[T, P], error) {
	switch {
	case client == nil:
		return nil, fmt.Errorf("nextid: NewRepository: nil client")
	case ids == nil:
		return nil, fmt.Errorf("nextid: NewRepository: nil IDs")
	case table == "" || dataType == "":
		return nil, fmt.Errorf("nextid: NewRepository: table %q and data type %q must not be empty", table, dataType)
	}
	return &Repository[T, P]{client: client, table: table, dataType: dataType, ids: ids}, nil
}

// NewUserRepository returns the repository of users stored in table, with
// ids from the NextId item "user".
func NewUserRepository(client dynamoseq.Client, table string, ids *IDs) (*UserRepository, error) {
	return NewRepository[User](client, table, "user", ids)
}

// Create stores rec. When rec has no Id, Create first takes the next id of
// the data type from the NextId table (one UpdateItem) and sets it in rec;
// an Id set by the caller is kept. It then issues one PutItem with the
// condition attribute_not_exists(Id), so a record is never overwritten: when
// one with that id exists, Create fails with ErrExists and writes nothing.
//
// Cost: two round trips and two write units (one with an id set by the
// caller). If the PutItem fails, the id stays set in rec, so that a retry of
// Create with the same rec either stores it or, when the first attempt did
// land after all, reports ErrExists instead of storing a second copy; an id
// that is never stored is a gap in the numbering.
func (r *Repository[T, P]) Create(ctx context.Context, rec P) error {
	fail := func(err error) error {
		id := ""
		if rec != nil {
			id = *rec.RecordID()
		}
		return &Error{Op: "Repository.Create", Table: r.table, DataType: r.dataType, ID: id, Err: err}
	}
	if rec == nil {
		return fail(errors.New("nil record"))
	}
	id := rec.RecordID()
	if *id == "" {
		next, err := r.ids.Next(ctx, r.dataType)
		if err != nil {
			return fail(err)
		}
		*id = next
	}
	item := rec.MarshalItem()
	if _, ok := item[IDAttribute]; ok {
		return fail(fmt.Errorf("MarshalItem returned the key attribute %q", IDAttribute))
	}
	item[IDAttribute] = &types.AttributeValueMemberS{Value: *id}
	_, err := r.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                aws.String(r.table),
		Item:                     item,
		ConditionExpression:      aws.String("attribute_not_exists(#id)"),
		ExpressionAttributeNames: map[string]string{"#id": IDAttribute},
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return fail(ErrExists)
	}
	if err != nil {
		return fail(err)
	}
	return nil
}

// Get returns the record with id, read with one strongly consistent
// GetItem, or ErrNotFound.
func (r *Repository[T, P]) Get(ctx context.Context, id string) (P, error) {
	fail := func(err error) (P, error) {
		return nil, &Error{Op: "Repository.Get", Table: r.table, DataType: r.dataType, ID: id, Err: err}
	}
	if id == "" {
		return fail(errors.New("empty id"))
	}
	out, err := r.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(r.table),
		Key:            map[string]types.AttributeValue{IDAttribute: &types.AttributeValueMemberS{Value: id}},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return fail(err)
	}
	if out.Item == nil {
		return fail(ErrNotFound)
	}
	rec := P(new(T))
	*rec.RecordID() = id
	if err := rec.UnmarshalItem(out.Item); err != nil {
		return fail(err)
	}
	return rec, nil
}
