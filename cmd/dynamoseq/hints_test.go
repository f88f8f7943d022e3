package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClosest(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"orders", "orders", 0}, {"ordres", "orders", 1}, {"nxet", "next", 1}, {"ab", "ba", 1}, {"order", "orders", 1},
		{"orders", "", 6}, {"kitten", "sitting", 3}, {"año", "ano", 1},
	} {
		assert.Equal(t, tc.d, distance(tc.a, tc.b), "distance(%q, %q)", tc.a, tc.b)
		assert.Equal(t, tc.d, distance(tc.b, tc.a), "distance(%q, %q)", tc.b, tc.a)
	}
	names := []string{"invoices", "orders", "Orders", "orders#2026", "order", "tickets", "ordres-eu"}
	assert.Equal(t, []string{"Orders", "order"}, closest("orders", names, 5), "itself left out, letter case aside")
	assert.Equal(t, []string{"Orders"}, closest("orders", names, 1))
	assert.Empty(t, closest("zzz", names, 5))
}

func TestPeriodHints(t *testing.T) {
	names := []string{"orders#20261121", "orders#20261122", "orders", "ordersx#2026"}
	assert.Equal(t, []string{`"orders" is counted per period (orders#20261122, orders#20261121): pass --period day, and --date for another day than the current one`},
		periodHints("orders", names))
	assert.Equal(t, []string{`"orders#2026" is how an IDMinter names the counter of "orders" for the year 2026: --period year --date 2026 writes it`},
		periodHints("orders#2026", names))
	assert.Empty(t, periodHints("invoices", names))
}

func TestPeriodClosest(t *testing.T) {
	names := []string{"acme#2026", "globex#2026", "acme#2025", "acmes#2024", "acme#20261122", "acme"}
	assert.Equal(t, []string{"acme", "acmes --date 2024"}, periodClosest("acmee", "#2026", names), "the same year first, then others with their --date")
	assert.Equal(t, []string{"acme --date 2026", "acmes --date 2024"}, periodClosest("acme", "#2027", names), "NAME itself in another year")
	assert.Empty(t, periodClosest("zzz", "#2026", names))
	assert.Equal(t, "year", periodFlagOf("acme#2026"))
	assert.Equal(t, "day", periodFlagOf("acme#20261122"))
}
