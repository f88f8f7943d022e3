package main

import (
	"math"
	"time"
)

// The library's defaults that the command needs as values: the names of a
// table's attributes, to write the raw requests of the baseline and to
// read items, and the figures its flags' help quotes. The library states
// them in its options' docs.
const (
	defaultPartitionKey     = "pk"
	defaultSortKey          = "sk"
	defaultValueAttribute   = "value"
	defaultVersionAttribute = "version"
	defaultVersionKeyFormat = "%s#v%d"
	defaultLatestKeyFormat  = "%s#latest"

	defaultStart         = 1
	defaultStep          = 1
	defaultMaxValue      = math.MaxInt64
	defaultMaxAttempts   = 25
	defaultBlockGrowth   = 64
	defaultBlockLifetime = 10 * time.Second
)
