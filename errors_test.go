package dynamoseq_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dynamoseq/dynamoseq"
)

// TestErrorFormat: the message names the parts that are set, and calls a
// Latest's name a document.
func TestErrorFormat(t *testing.T) {
	t.Parallel()
	cause := fmt.Errorf("%w: MaxValue is 1", dynamoseq.ErrExhausted)
	tests := []struct {
		err  dynamoseq.Error
		want string
	}{
		{dynamoseq.Error{Op: "Counter.Next", Table: "Seq", Sequence: "orders", Err: cause},
			`dynamoseq: Counter.Next: table "Seq", sequence "orders": sequence exhausted: MaxValue is 1`},
		{dynamoseq.Error{Op: "NewCounter", Table: "Seq", Err: dynamoseq.ErrInvalidArgument},
			`dynamoseq: NewCounter: table "Seq": invalid argument`},
		{dynamoseq.Error{Op: "Latest.Append", Table: "Docs", Sequence: "doc1", Err: dynamoseq.ErrContention},
			`dynamoseq: Latest.Append: table "Docs", document "doc1": contention: retries exhausted`},
		{dynamoseq.Error{Op: "Format.Parse", Err: dynamoseq.ErrInvalidArgument},
			`dynamoseq: Format.Parse: invalid argument`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.err.Error())
	}
}

// TestConstructorErrorHasNoEmptySequence: a constructor's error names the
// table and no sequence.
func TestConstructorErrorHasNoEmptySequence(t *testing.T) {
	t.Parallel()
	_, err := dynamoseq.NewLatest(nil, "Docs")
	assert.ErrorIs(t, err, dynamoseq.ErrInvalidArgument)
	assert.Equal(t, `dynamoseq: NewLatest: table "Docs": invalid argument: nil client`, err.Error())
}
