package nextid_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/examples/nextid"
)

func ExampleUserRepository_Create() {
	ctx := context.Background()
	srv, err := dynamoseqtest.Shared() // the test binary's DynamoDB Local
	if err != nil {
		panic(err)
	}
	client := srv.Client()
	// The shared table as the teams have it, where user ids reached 41.
	idTable, userTable := unique("NextId"), unique("Users")
	mustCreate(client, keyTable(idTable, "NextKey"))
	mustCreate(client, keyTable(userTable, "Id"))
	_, err = client.PutItem(ctx, &dynamodb.PutItemInput{
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

// mustCreate creates a table for the example, left for the server's end.
func mustCreate(client *dynamodb.Client, in *dynamodb.CreateTableInput) {
	if _, err := client.CreateTable(context.Background(), in); err != nil {
		panic(err)
	}
}

// unique is a table name of its own for each run of the example.
func unique(stem string) string {
	return fmt.Sprintf("%s_%d", stem, time.Now().UnixNano())
}
