package main

import (
	"math/bits"
	"time"
)

// histogram counts latencies in buckets about 6% wide, so that a run of
// millions of calls keeps under 8 KB per goroutine instead of every
// latency. Bucket i holds durations from lowerBound(i) up to
// lowerBound(i+1).
type histogram struct {
	counts [960]uint64 // bucket(math.MaxInt64) is 959
	total  uint64
	errors uint64
	first  error // the first error, for the report
}

// bucket returns the index of the bucket of d: exact below 32ns, then 16
// buckets per power of two.
func bucket(d time.Duration) int {
	v := uint64(max(d, 0))
	if v < 32 {
		return int(v)
	}
	shift := bits.Len64(v) - 5 // v>>shift is in [16, 31]
	return 32 + (shift-1)*16 + int(v>>shift-16)
}

// lowerBound returns the smallest duration of bucket i.
func lowerBound(i int) time.Duration {
	if i < 32 {
		return time.Duration(i)
	}
	shift := (i-32)/16 + 1
	return time.Duration(uint64((i-32)%16+16) << shift)
}

func (h *histogram) add(d time.Duration, err error) {
	if err != nil {
		h.errors++
		if h.first == nil {
			h.first = err
		}
		return
	}
	h.counts[bucket(d)]++
	h.total++
}

func (h *histogram) merge(o *histogram) {
	for i, n := range o.counts {
		h.counts[i] += n
	}
	h.total += o.total
	h.errors += o.errors
	if h.first == nil {
		h.first = o.first
	}
}

// minus returns h less an earlier copy of itself: the calls in between.
func (h *histogram) minus(earlier *histogram) *histogram {
	d := &histogram{total: h.total - earlier.total, errors: h.errors - earlier.errors}
	for i := range h.counts {
		d.counts[i] = h.counts[i] - earlier.counts[i]
	}
	return d
}

// quantile returns the lower bound of the bucket that holds the q-th
// quantile of the successful calls, or 0 when there were none.
func (h *histogram) quantile(q float64) time.Duration {
	if h.total == 0 {
		return 0
	}
	rank := uint64(q * float64(h.total-1))
	var seen uint64
	for i, n := range h.counts {
		seen += n
		if seen > rank {
			return lowerBound(i)
		}
	}
	return lowerBound(len(h.counts) - 1)
}
