package dynamoseq_test

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/dbtest"
)

// Issue numbers per project, gap-free: each issue is an item of its
// project's collection, and its number is its sort key. The table has
// partition key "pk" (String) and sort key "sk" (Number).
func ExampleSortKey_Append() {
	client, table := dbtest.ExampleTable(types.ScalarAttributeTypeN)
	ctx := context.Background()

	issues, err := dynamoseq.NewSortKey(client, table)
	if err != nil {
		panic(err)
	}
	type Issue struct {
		Title string `dynamodbav:"title"`
	}
	for _, in := range []struct{ project, title string }{
		{"projectA", "Login fails"},
		{"projectA", "Typo on the home page"},
		{"projectB", "Crash on start"},
	} {
		// The issue is stored under the number, in one write.
		n, err := issues.Append(ctx, in.project, Issue{Title: in.title})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s-%d %s\n", in.project, n, in.title)
	}
	last, err := issues.Last(ctx, "projectA")
	if err != nil {
		panic(err)
	}
	fmt.Println("projectA has", last, "issues")

	// Read one back, and list them newest first, a page at a time.
	var issue Issue
	if err := issues.Get(ctx, "projectA", 1, &issue); err != nil {
		panic(err)
	}
	fmt.Println("projectA-1 is", issue.Title)
	for cursor := int64(0); ; {
		page, next, err := issues.Items(ctx, "projectA", cursor, 1, dynamoseq.NewestFirst)
		if err != nil {
			panic(err)
		}
		for _, v := range page {
			if err := v.Decode(&issue); err != nil {
				panic(err)
			}
			fmt.Printf("  %d %s\n", v.Number, issue.Title)
		}
		if next == 0 {
			break
		}
		cursor = next
	}
	// Output:
	// projectA-1 Login fails
	// projectA-2 Typo on the home page
	// projectB-1 Crash on start
	// projectA has 2 issues
	// projectA-1 is Login fails
	//   2 Typo on the home page
	//   1 Login fails
}

// A table whose sort key is a String can hold the numbers too, zero-padded
// so that the string order is the numeric order.
func ExampleSortKey_Next_stringSortKey() {
	client, table := dbtest.ExampleTable(types.ScalarAttributeTypeS)
	ctx := context.Background()

	versions, err := dynamoseq.NewSortKey(client, table, func(o *dynamoseq.SortKeyOptions) {
		o.SortKeyDigits = 6 // a String sort key: "000001", "000002"...
		o.KeyPrefix = "DOC#"
	})
	if err != nil {
		panic(err)
	}
	for range 3 {
		v, err := versions.Next(ctx, "readme")
		if err != nil {
			panic(err)
		}
		fmt.Println("version", v)
	}
	// Output:
	// version 1
	// version 2
	// version 3
}
