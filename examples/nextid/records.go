package nextid

import (
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq"
)

// User is a user record. Its Id comes from the NextId item "user".
type User struct {
	Id    string // "" until Create assigns one
	Name  string
	Email string
}

// RecordID implements Record.
func (u *User) RecordID() *string { return &u.Id }

// MarshalItem implements Record.
func (u *User) MarshalItem() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"Name":  &types.AttributeValueMemberS{Value: u.Name},
		"Email": &types.AttributeValueMemberS{Value: u.Email},
	}
}

// UnmarshalItem implements Record.
func (u *User) UnmarshalItem(item map[string]types.AttributeValue) error {
	var err error
	if u.Name, err = stringAttr(item, "Name"); err != nil {
		return err
	}
	u.Email, err = stringAttr(item, "Email")
	return err
}

// Order is an order record. Its Id comes from the NextId item "order".
type Order struct {
	Id         string
	UserId     string
	TotalCents int64
}

// OrderRepository stores orders; their ids come from the NextId item "order".
type OrderRepository = Repository[Order, *Order]

// NewOrderRepository returns the repository of orders stored in table.
func NewOrderRepository(client dynamoseq.Client, table string, ids *IDs) (*OrderRepository, error) {
	return NewRepository[Order](client, table, "order", ids)
}

// RecordID implements Record.
func (o *Order) RecordID() *string { return &o.Id }

// MarshalItem implements Record.
func (o *Order) MarshalItem() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"UserId":     &types.AttributeValueMemberS{Value: o.UserId},
		"TotalCents": &types.AttributeValueMemberN{Value: strconv.FormatInt(o.TotalCents, 10)},
	}
}

// UnmarshalItem implements Record.
func (o *Order) UnmarshalItem(item map[string]types.AttributeValue) error {
	var err error
	if o.UserId, err = stringAttr(item, "UserId"); err != nil {
		return err
	}
	o.TotalCents, err = intAttr(item, "TotalCents")
	return err
}

// Comment is a comment record. Its Id comes from the NextId item "comment".
type Comment struct {
	Id     string
	UserId string
	Text   string
}

// CommentRepository stores comments; their ids come from the NextId item
// "comment".
type CommentRepository = Repository[Comment, *Comment]

// NewCommentRepository returns the repository of comments stored in table.
func NewCommentRepository(client dynamoseq.Client, table string, ids *IDs) (*CommentRepository, error) {
	return NewRepository[Comment](client, table, "comment", ids)
}

// RecordID implements Record.
func (c *Comment) RecordID() *string { return &c.Id }

// MarshalItem implements Record.
func (c *Comment) MarshalItem() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"UserId": &types.AttributeValueMemberS{Value: c.UserId},
		"Text":   &types.AttributeValueMemberS{Value: c.Text},
	}
}

// UnmarshalItem implements Record.
func (c *Comment) UnmarshalItem(item map[string]types.AttributeValue) error {
	var err error
	if c.UserId, err = stringAttr(item, "UserId"); err != nil {
		return err
	}
	c.Text, err = stringAttr(item, "Text")
	return err
}

func stringAttr(item map[string]types.AttributeValue, name string) (string, error) {
	switch v := item[name].(type) {
	case nil:
		return "", nil
	case *types.AttributeValueMemberS:
		return v.Value, nil
	default:
		return "", fmt.Errorf("attribute %q is %T, want a String", name, v)
	}
}

func intAttr(item map[string]types.AttributeValue, name string) (int64, error) {
	switch v := item[name].(type) {
	case nil:
		return 0, nil
	case *types.AttributeValueMemberN:
		return strconv.ParseInt(v.Value, 10, 64)
	default:
		return 0, fmt.Errorf("attribute %q is %T, want a Number", name, v)
	}
}

// Compile-time checks that the records satisfy Record.
var (
	_ Record = (*User)(nil)
	_ Record = (*Order)(nil)
	_ Record = (*Comment)(nil)
)
