package main

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/dynamoseq/dynamoseq"
)

// TestStatsLines: the non-zero figures, one a line.
func TestStatsLines(t *testing.T) {
	st := dynamoseq.Stats{
		Calls: 3, Numbers: 2, Errors: 1, LostRaces: 4,
		Resends: 1,
	}
	assert.Equal(t, []string{
		"Calls            3",
		"Numbers          2",
		"Errors           1",
		"Resends          1",
		"LostRaces        4",
	}, statsLines("", reflect.ValueOf(st)))
	assert.Equal(t, []string{"WaitTime         1.5s"}, statsLines("", reflect.ValueOf(dynamoseq.Stats{WaitTime: 1500 * time.Millisecond})))
}
