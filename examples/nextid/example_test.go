package nextid_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/examples/nextid"
	"github.com/dynamoseq/dynamoseq/internal/dbtest"
)

func ExampleUserRepository_Create() {
	ctx := context.Background()
	client, base := dbtest.ExampleTable("")
	// The shared table as the teams have it, where user ids reached 41.
	idTable, userTable := base+"_NextId", base+"_Users"
	mustCreate(client, idTable, "NextKey")
	mustCreate(client, userTable, "Id")
	_, err := client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(idTable),
		Item: map[string]types.AttributeValue{
			"NextKey": &types.AttributeValueMemberS{Value: "user"},
			"NextId":  &types.AttributeValueMemberN{Value: "41"},
		},
	})
	if err != nil {
		panic(err)
	}

	ids, err := nextid.NewIDs(client, idTable)
	if err != nil {
		panic(err)
	}
	users, err := nextid.NewUserRepository(client, userTable, ids)
	if err != nil {
		panic(err)
	}
	u := &nextid.User{Name: "Ada", Email: "ada@example.com"}
	if err := users.Create(ctx, u); err != nil {
		panic(err)
	}
	fmt.Println("created user", u.Id)

	// A record whose id is taken is never overwritten.
	err = users.Create(ctx, &nextid.User{Id: "42", Name: "Grace"})
	fmt.Println("id 42 again:", errors.Is(err, nextid.ErrExists))
	// Output:
	// created user 42
	// id 42 again: true
}

func mustCreate(client *dynamodb.Client, table, key string) {
	_, err := client.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(key), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(key), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		panic(err)
	}
}
