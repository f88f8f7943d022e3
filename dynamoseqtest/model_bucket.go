package dynamoseqtest

import (
	"math"
	"time"
)

// bucket is a token bucket of capacity units. It admits a request when it
// holds the request's cost (or, for a request costing more than the bucket
// holds, when it is full), and the cost is taken at once, so that it may go
// below zero: then it admits nothing until it has refilled. So a request
// larger than a bucket is served, and the rate over time stays the
// bucket's rate.
type bucket struct {
	tokens float64
	last   time.Time // when tokens was last brought up to date; zero: full
	credit float64   // burst credit: unused units saved (Service.BurstCredit)
	spend  float64   // what may be spent of credit now, at most its rate's Burst
}

// admits says whether the bucket admits a request of cost units.
func (b *bucket) admits(cost, depth float64) bool {
	return b.tokens >= math.Min(cost, depth)
}
