package dynamoseq_test

import (
	"testing"
	"time"
	_ "time/tzdata" // the DST cases below must not depend on the machine's zoneinfo

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
)

func TestCalendarPeriodBounds(t *testing.T) {
	t.Parallel()
	tokyo := time.FixedZone("JST", 9*3600)
	saoPaulo, err := time.LoadLocation("America/Sao_Paulo")
	require.NoError(t, err)
	tests := []struct {
		name       string
		period     dynamoseq.CalendarPeriod
		t          time.Time
		start, end time.Time
	}{
		{"day", dynamoseq.Daily, time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC),
			time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)},
		{"last instant of a day", dynamoseq.Daily, time.Date(2026, 11, 22, 23, 59, 59, 999999999, time.UTC),
			time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)},
		{"midnight", dynamoseq.Daily, time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC),
			time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)},
		{"day in Tokyo", dynamoseq.Daily, time.Date(2026, 11, 22, 20, 0, 0, 0, time.UTC).In(tokyo),
			time.Date(2026, 11, 23, 0, 0, 0, 0, tokyo), time.Date(2026, 11, 24, 0, 0, 0, 0, tokyo)},
		{"31 December", dynamoseq.Daily, time.Date(2026, 12, 31, 12, 0, 0, 0, time.UTC),
			time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)},
		// Brazil's daylight saving time began at midnight on 4 November 2018:
		// the day started at 01:00 and had 23 hours.
		{"day without a midnight", dynamoseq.Daily, time.Date(2018, 11, 4, 12, 0, 0, 0, saoPaulo),
			time.Date(2018, 11, 4, 1, 0, 0, 0, saoPaulo), time.Date(2018, 11, 5, 0, 0, 0, 0, saoPaulo)},
		{"month", dynamoseq.Monthly, time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC),
			time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
		{"December", dynamoseq.Monthly, time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC),
			time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"February of a leap year", dynamoseq.Monthly, time.Date(2028, 2, 29, 1, 0, 0, 0, time.UTC),
			time.Date(2028, 2, 1, 0, 0, 0, 0, time.UTC), time.Date(2028, 3, 1, 0, 0, 0, 0, time.UTC)},
		{"year", dynamoseq.Yearly, time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC),
			time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"year in Tokyo", dynamoseq.Yearly, time.Date(2026, 12, 31, 16, 0, 0, 0, time.UTC).In(tokyo),
			time.Date(2027, 1, 1, 0, 0, 0, 0, tokyo), time.Date(2028, 1, 1, 0, 0, 0, 0, tokyo)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start, end := tt.period.Bounds(tt.t)
			assert.True(t, tt.start.Equal(start), "%v.Bounds(%v) start = %v, want %v", tt.period, tt.t, start, tt.start)
			assert.True(t, tt.end.Equal(end), "%v.Bounds(%v) end = %v, want %v", tt.period, tt.t, end, tt.end)
		})
	}
}
