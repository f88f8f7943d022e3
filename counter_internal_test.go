package dynamoseq

import (
	"strings"
	"testing"
)

func TestCounterUnits(t *testing.T) {
	// The table's share counts an update of a counter item at the item's
	// size: 1 write unit, unless the key comes near DynamoDB's 2,048
	// bytes for a partition key value.
	for _, tc := range []struct {
		name string
		key  counterKey
		opt  func(*CounterOptions)
		want float64
	}{
		{"a short name", counterKey{pk: "orders"}, nil, 1},
		{"with a sort key and a TTL", counterKey{pk: "orders", exp: expiry{attr: "ttl", unix: 1}}, func(o *CounterOptions) { o.SortKeyValue = "COUNTER" }, 1},
		{"a name of 2,000 bytes", counterKey{pk: strings.Repeat("n", 2000)}, nil, 2},
		{"a name of 2,040 bytes", counterKey{pk: strings.Repeat("n", 2040)}, nil, 3},
	} {
		var opts []func(*CounterOptions)
		if tc.opt != nil {
			opts = append(opts, tc.opt)
		}
		c, err := NewCounter(struct{ Client }{}, "counters", opts...)
		if err != nil {
			t.Fatalf("%s: NewCounter: %v", tc.name, err)
		}
		if got := c.units(tc.key); got != tc.want {
			t.Errorf("%s: units = %v, want %v", tc.name, got, tc.want)
		}
	}
}
