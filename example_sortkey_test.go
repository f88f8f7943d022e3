package dynamoseq_test

import (
	"context"
	"fmt"
	"log"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
)

// Issue numbers per project, gap-free: each issue is an item of its
// project's collection, and its number is its sort key. The table has
// partition key "pk" (String) and sort key "sk" (Number).
func ExampleSortKey_Append() {
	client, table := dynamoseqtest.SharedTable(dynamoseq.SortKeyTable("Issues"))
	ctx := context.Background()

	issues, err := dynamoseq.NewSortKey(client, table)
	if err != nil {
		log.Fatal(err)
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
			log.Fatal(err)
		}
		fmt.Printf("%s-%d %s\n", in.project, n, in.title)
	}
	last, err := issues.Last(ctx, "projectA")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("projectA has", last, "issues")

	var issue Issue
	if err := issues.Get(ctx, "projectA", 1, &issue); err != nil {
		log.Fatal(err)
	}
	fmt.Println("projectA-1 is", issue.Title)
	// Output:
	// projectA-1 Login fails
	// projectA-2 Typo on the home page
	// projectB-1 Crash on start
	// projectA has 2 issues
	// projectA-1 is Login fails
}

// All lists a sequence's items in a range loop, reading a page when the
// loop reaches it; Decode decodes each into the caller's type.
func ExampleSortKey_All() {
	client, table := dynamoseqtest.SharedTable(dynamoseq.SortKeyTable("Issues"))
	ctx := context.Background()

	issues, err := dynamoseq.NewSortKey(client, table)
	if err != nil {
		log.Fatal(err)
	}
	type Issue struct {
		Title string `dynamodbav:"title"`
	}
	for _, title := range []string{"Login fails", "Typo on the home page", "Slow search"} {
		if _, err := issues.Append(ctx, "projectA", Issue{Title: title}); err != nil {
			log.Fatal(err)
		}
	}

	for it, err := range issues.All(ctx, "projectA", dynamoseq.NewestFirst) {
		var issue Issue
		if err == nil {
			err = it.Decode(&issue)
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("projectA-%d %s\n", it.Number, issue.Title)
	}
	// Output:
	// projectA-3 Slow search
	// projectA-2 Typo on the home page
	// projectA-1 Login fails
}

// Items reads one page: here the two oldest issues, and the cursor of the
// page after them.
func ExampleSortKey_Items() {
	client, table := dynamoseqtest.SharedTable(dynamoseq.SortKeyTable("Issues"))
	ctx := context.Background()

	issues, err := dynamoseq.NewSortKey(client, table)
	if err != nil {
		log.Fatal(err)
	}
	for _, title := range []string{"Login fails", "Typo on the home page", "Slow search"} {
		if _, err := issues.Append(ctx, "projectA", map[string]string{"title": title}); err != nil {
			log.Fatal(err)
		}
	}

	page, next, err := issues.Items(ctx, "projectA", 0, 2, dynamoseq.OldestFirst)
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range page {
		var issue map[string]string
		if err := it.Decode(&issue); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("projectA-%d %s\n", it.Number, issue["title"])
	}
	fmt.Println("next page after", next)
	// Output:
	// projectA-1 Login fails
	// projectA-2 Typo on the home page
	// next page after 2
}

// A table whose sort key is a String can hold the numbers too, zero-padded
// so that the string order is the numeric order.
func ExampleSortKey_Next_stringSortKey() {
	opts := func(o *dynamoseq.SortKeyOptions) {
		o.SortKeyDigits = 6 // a String sort key: "000001", "000002"...
		o.KeyPrefix = "DOC#"
	}
	client, table := dynamoseqtest.SharedTable(dynamoseq.SortKeyTable("Documents", opts))
	ctx := context.Background()

	versions, err := dynamoseq.NewSortKey(client, table, opts)
	if err != nil {
		log.Fatal(err)
	}
	for range 3 {
		v, err := versions.Next(ctx, "readme")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("version", v)
	}
	// Output:
	// version 1
	// version 2
	// version 3
}
