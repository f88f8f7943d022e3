// Package idmisuse uses an IDMinter with what it does not wrap. It must not
// compile: TestIDMinterMisuseDoesNotCompile builds it and checks that the
// compiler refuses every use below.
package idmisuse

import (
	"context"

	"github.com/dynamoseq/dynamoseq"
)

func misuse(s *dynamoseq.SortKey, l *dynamoseq.Latest, m *dynamoseq.IDMinter) {
	_, _ = dynamoseq.NewIDMinter(s, dynamoseq.Format{}, dynamoseq.Daily) // a SortKey: NewSortKeyIDMinter
	_, _ = dynamoseq.NewIDMinter(l, dynamoseq.Format{}, dynamoseq.Daily) // a Latest
	_, _ = m.Append(context.Background(), "orders", nil)                 // a SortKeyIDMinter's
	_ = m.Get(context.Background(), "orders", "ORD-1", nil)              // a SortKeyIDMinter's
}
