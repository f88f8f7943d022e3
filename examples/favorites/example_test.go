package favorites_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamoseq/dynamoseq/dynamoseqtest"
	"github.com/dynamoseq/dynamoseq/examples/favorites"
)

func Example() {
	ctx := context.Background()
	srv, err := dynamoseqtest.Shared() // the test binary's DynamoDB Local
	if err != nil {
		panic(err)
	}
	client := srv.Client()
	table := fmt.Sprintf("Favorites_%d", time.Now().UnixNano()) // a table of this run's own
	createFromFile(client, "testdata/table.json", table)

	svc, err := favorites.New(client, table)
	if err != nil {
		panic(err)
	}
	at := time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC)
	for i, title := range []string{"Sunset at sea", "Harbour map", "Sea shanty"} {
		kind := []favorites.Kind{favorites.KindImage, favorites.KindLocation, favorites.KindMusic}[i]
		it := favorites.Item{Creator: "alice", Title: title, Kind: kind, ClipTime: at.Add(time.Duration(i) * time.Minute)}
		if err := svc.Save(ctx, "alice", &it); err != nil {
			panic(err)
		}
	}
	trip, err := svc.CreateTag(ctx, "alice", "trip")
	if err != nil {
		panic(err)
	}
	for _, id := range []int64{1, 3} {
		if err := svc.AddTag(ctx, "alice", id, trip.ID); err != nil {
			panic(err)
		}
	}

	page, err := svc.ListByTag(ctx, "alice", trip.ID, favorites.PageRequest{Limit: 10})
	if err != nil {
		panic(err)
	}
	fmt.Printf("tag %d %q:\n", trip.ID, trip.Name)
	for _, it := range page.Items {
		fmt.Printf("  %d %s (%s)\n", it.ID, it.Title, it.Kind)
	}
	found, err := svc.Search(ctx, "alice", "sea", favorites.PageRequest{})
	if err != nil {
		panic(err)
	}
	fmt.Println("search \"sea\":")
	for _, it := range found.Items {
		fmt.Printf("  %d %s\n", it.ID, it.Title)
	}
	// Output:
	// tag 1 "trip":
	//   3 Sea shanty (music)
	//   1 Sunset at sea (image)
	// search "sea":
	//   3 Sea shanty
	//   1 Sunset at sea
}

// createFromFile creates a table from a CreateTable input JSON in testdata.
func createFromFile(client *dynamodb.Client, file, name string) {
	b, err := os.ReadFile(file)
	if err != nil {
		panic(err)
	}
	var in dynamodb.CreateTableInput
	if err := json.Unmarshal(b, &in); err != nil {
		panic(err)
	}
	in.TableName = aws.String(name)
	if _, err := client.CreateTable(context.Background(), &in); err != nil {
		panic(err)
	}
}
