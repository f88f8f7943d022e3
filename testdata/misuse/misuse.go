// Package misuse writes options that their constructor does not read. It
// must not compile: TestOptionsMisuseDoesNotCompile builds it and checks
// that every line below is refused.
package misuse

import "github.com/dynamoseq/dynamoseq"

var (
	_ = dynamoseq.CounterOptions{VersionAttribute: "v"}   // a Latest's
	_ = dynamoseq.CounterOptions{TokenAttribute: "t"}     // a SortKey's and a Latest's
	_ = dynamoseq.SortKeyOptions{Step: 2}                 // a Counter's
	_ = dynamoseq.SortKeyOptions{Region: "eu-west-1"}     // a Counter's, with GlobalTableMREC
	_ = dynamoseq.LatestOptions{MaxValue: 99}             // a Counter's and a SortKey's
	_ = dynamoseq.LatestOptions{SortKey: "sk"}            // the Layout's
	_ = dynamoseq.LayoutSortKey{VersionKeyFormat: "%s%d"} // LayoutPartitionKey's
	_ = dynamoseq.BlockOptions{PartitionKey: "id"}        // the Counter's
	_ = dynamoseq.BlockOptions{Start: 1}                  // the Counter's
	_ = dynamoseq.IDMinterOptions{Retention: 1}           // the TTL's
)
