package dynamoseq

import "context"

// Sequencer hands out the next number of a named sequence. Counter, Block,
// SortKey and Latest implement it; code that only needs "a new number" can
// accept a Sequencer and let the caller choose the strategy.
//
// What "next" guarantees depends on the strategy: every implementation
// returns numbers that are unique within a sequence, SortKey and Latest are
// also gap-free, and the order guarantees differ. See the package overview.
type Sequencer interface {
	Next(ctx context.Context, name string) (int64, error)
}

var (
	_ Sequencer = (*Counter)(nil)
	_ Sequencer = (*Block)(nil)
	_ Sequencer = (*SortKey)(nil)
	_ Sequencer = (*Latest)(nil)
)
