package main

import (
	"errors"
	"flag"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestInterspersed(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.String("table", "", "")
	fs.Int("n", 1, "")
	fs.Bool("v", false, "")
	for _, tc := range []struct {
		args, want []string
	}{
		{[]string{"orders", "--table", "Seq"}, []string{"--table", "Seq", "--", "orders"}},
		{[]string{"--table=Seq", "orders", "-n", "3"}, []string{"--table=Seq", "-n", "3", "--", "orders"}},
		{[]string{"orders", "-v", "10"}, []string{"-v", "--", "orders", "10"}},
		{[]string{"-n", "3", "--", "-5"}, []string{"-n", "3", "--", "-5"}},
		{[]string{"orders", "--bogus", "x"}, []string{"--bogus", "--", "orders", "x"}},
		{[]string{"--table"}, []string{"--table", "--"}},
	} {
		assert.Equal(t, tc.want, interspersed(fs, tc.args), "interspersed(%q)", tc.args)
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
