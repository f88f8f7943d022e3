package main

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args, want []string
		help       bool
	}{
		{[]string{"next", "orders", "--table", "Seq"}, []string{"next", "orders"}, false},
		{[]string{"--table=Seq", "next", "orders", "-n", "3"}, []string{"next", "orders"}, false},
		{[]string{"--kind", "sortkey", "next", "orders"}, []string{"next", "orders"}, false},
		{[]string{"--baseline", "bench", "b"}, []string{"bench", "b"}, false},
		{[]string{"advance", "orders", "--", "-5"}, []string{"advance", "orders", "-5"}, false},
		{[]string{"next", "orders", "--bogus", "x"}, []string{"next", "orders"}, false}, // the subcommand refuses --bogus
		{[]string{"next", "--help", "orders"}, []string{"next", "orders"}, true},
		{[]string{"-h"}, []string{}, true},
		{[]string{"next", "--table"}, []string{"next"}, false},
	} {
		got, help := commandLine(tc.args)
		assert.Equal(t, tc.want, got, "commandLine(%q)", tc.args)
		assert.Equal(t, tc.help, help, "commandLine(%q): help", tc.args)
	}
}

func TestHistogram(t *testing.T) {
	var h histogram
	for i := 1; i <= 1000; i++ {
		h.add(time.Duration(i)*time.Microsecond, nil)
	}
	h.add(time.Second, errors.New("x"))
	for _, tc := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Microsecond}, {0.99, 990 * time.Microsecond}} {
		got := h.quantile(tc.q)
		assert.InEpsilon(t, float64(tc.want), float64(got), 0.07, "quantile(%v) = %v, want about %v", tc.q, got, tc.want)
	}
	assert.Equal(t, uint64(1), h.errors)
	assert.Equal(t, len(h.counts)-1, bucket(math.MaxInt64))
	for i := range len(h.counts) - 1 {
		assert.LessOrEqual(t, lowerBound(i), lowerBound(i+1), "bucket %d", i)
		d := lowerBound(i)
		if i < 900 {
			assert.Equal(t, i, bucket(d), "bucket(lowerBound(%d))", i)
		}
	}
}
