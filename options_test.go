package dynamoseq

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dynamoseq/dynamoseq/internal/answer"
)

// TestOptionsNotRead: a constructor refuses an option set to other than its
// zero value or default that it does not read, naming it, and accepts the
// ones it reads and options left at their defaults.
func TestOptionsNotRead(t *testing.T) {
	client := answer.Client(&answer.Transport{Answer: answer.Reset}, 1)
	counter, err := NewCounter(client, "table")
	if err != nil {
		t.Fatal(err)
	}
	construct := map[string]func(func(*Options)) error{
		"NewCounter":  func(o func(*Options)) error { _, err := NewCounter(client, "table", o); return err },
		"NewSortKey":  func(o func(*Options)) error { _, err := NewSortKey(client, "table", o); return err },
		"NewLatest":   func(o func(*Options)) error { _, err := NewLatest(client, "table", o); return err },
		"NewBlock":    func(o func(*Options)) error { _, err := NewBlock(counter, 10, o); return err },
		"NewIDMinter": func(o func(*Options)) error { _, err := NewIDMinter(counter, orderFormatForTest, Daily, o); return err },
	}
	tests := []struct {
		constructor, field string
		opt                func(*Options)
		refused            bool
	}{
		{"NewSortKey", "MaxValue", func(o *Options) { o.MaxValue = 99 }, false},
		{"NewSortKey", "Start", func(o *Options) { o.Start = 100 }, false},
		{"NewSortKey", "Step", func(o *Options) { o.Step = 2 }, true},
		{"NewLatest", "MaxValue", func(o *Options) { o.MaxValue = 99 }, true},
		{"NewLatest", "TTLAttribute", func(o *Options) { o.TTLAttribute = "ttl" }, true},
		{"NewCounter", "TTLAttribute", func(o *Options) { o.TTLAttribute = "ttl" }, true},
		{"NewCounter", "MaxValue", func(o *Options) { o.MaxValue = 99 }, false},
		{"NewCounter", "ValueAttribute", func(o *Options) { o.ValueAttribute = "value" }, false}, // the default
		{"NewBlock", "PartitionKey", func(o *Options) { o.PartitionKey = "id" }, true},
		{"NewBlock", "RefillTimeout", func(o *Options) { o.RefillTimeout = time.Second }, false},
		{"NewIDMinter", "Regions", func(o *Options) { o.Regions = []string{} }, false}, // empty
	}
	for _, tt := range tests {
		err := construct[tt.constructor](tt.opt)
		switch {
		case tt.refused && (!errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "option "+tt.field+" is set")):
			t.Errorf("%s with %s = %v, want ErrInvalidArgument naming it", tt.constructor, tt.field, err)
		case !tt.refused && err != nil:
			t.Errorf("%s with %s = %v, want no error", tt.constructor, tt.field, err)
		}
	}
}

var orderFormatForTest = Format{Prefix: "ORD", DateLayout: "060102", Separator: "-", Width: 6}
