package dynamoseq_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq"
)

var orderFormat = dynamoseq.Format{Prefix: "ORD", DateLayout: "060102", Separator: "-", Width: 6}

func TestFormatIDAndParse(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 9, 30, 15, 0, time.UTC)
	tests := []struct {
		name   string
		format dynamoseq.Format
		n      int64
		want   string
		date   time.Time // what Parse gives back
	}{
		{"order", orderFormat, 42, "ORD-261122-000042", time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)},
		{"wider than width", orderFormat, 1234567, "ORD-261122-1234567", time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)},
		{"max int64", orderFormat, math.MaxInt64, "ORD-261122-9223372036854775807", time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)},
		{"zero", orderFormat, 0, "ORD-261122-000000", time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)},
		{"no prefix", dynamoseq.Format{DateLayout: "20060102", Separator: "/", Width: 4}, 7, "20261122/0007", time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)},
		{"no date", dynamoseq.Format{Prefix: "TKT", Separator: "-", Width: 4}, 42, "TKT-0042", time.Time{}},
		{"zero format", dynamoseq.Format{}, 42, "42", time.Time{}},
		{"no separator", dynamoseq.Format{Prefix: "ORD", DateLayout: "060102", Width: 6}, 42, "ORD261122000042", time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)},
		{"no separator, wide number", dynamoseq.Format{Prefix: "ORD", DateLayout: "060102", Width: 2}, 12345, "ORD26112212345", time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)},
		{"separator inside the date", dynamoseq.Format{Prefix: "INV", DateLayout: "2006-01", Separator: "-", Width: 4}, 9, "INV-2026-11-0009", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)},
		{"month name", dynamoseq.Format{Prefix: "T", DateLayout: "Jan2006", Separator: ".", Width: 3}, 5, "T.Nov2026.005", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)},
		{"hour", dynamoseq.Format{Prefix: "S", DateLayout: "060102T15", Separator: "-", Width: 3}, 5, "S-261122T09-005", time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)},
		{"multi-byte separator", dynamoseq.Format{Prefix: "Ü", DateLayout: "2006", Separator: "·", Width: 2}, 3, "Ü·2026·03", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := tt.format.ID(at, tt.n)
			require.Equal(t, tt.want, id, "ID(%v, %d)", at, tt.n)
			parts, err := tt.format.ParseParts(id, time.UTC)
			require.NoError(t, err)
			assert.Equal(t, tt.n, parts.Number, "Parse(%q).Number", id)
			assert.True(t, tt.date.Equal(parts.Date), "Parse(%q).Date = %v, want %v", id, parts.Date, tt.date)
		})
	}
}

func TestFormatIDLocation(t *testing.T) {
	t.Parallel()
	tokyo := time.FixedZone("JST", 9*3600)
	at := time.Date(2026, 11, 22, 20, 0, 0, 0, time.UTC) // 23 November in Tokyo
	assert.Equal(t, "ORD-261122-000001", orderFormat.ID(at, 1))
	assert.Equal(t, "ORD-261123-000001", orderFormat.ID(at.In(tokyo), 1))
	parts, err := orderFormat.ParseParts("ORD-261123-000001", tokyo)
	require.NoError(t, err)
	want := time.Date(2026, 11, 23, 0, 0, 0, 0, tokyo)
	assert.True(t, want.Equal(parts.Date), "Parse in JST: Date = %v, want %v", parts.Date, want)
	assert.Equal(t, tokyo, parts.Date.Location())
}

func TestFormatParseMalformed(t *testing.T) {
	t.Parallel()
	noSep := dynamoseq.Format{Prefix: "ORD", DateLayout: "060102", Width: 6}
	varying := dynamoseq.Format{DateLayout: "1", Width: 1} // month 1 to 12, no separator
	tests := []struct {
		name    string
		format  dynamoseq.Format
		id      string
		message string
	}{
		{"empty", orderFormat, "", "does not start with"},
		{"other prefix", orderFormat, "INV-261122-000042", `does not start with "ORD-"`},
		{"lower-case prefix", orderFormat, "ord-261122-000042", "does not start with"},
		{"prefix only", orderFormat, "ORD-", "no separator"},
		{"no number separator", orderFormat, "ORD-261122000042", "no separator"},
		{"leading space", orderFormat, " ORD-261122-000042", "does not start with"},
		{"trailing newline", orderFormat, "ORD-261122-000042\n", "not all digits"},
		{"month 13", orderFormat, "ORD-261322-000042", "does not match the layout"},
		{"31 November", orderFormat, "ORD-261131-000042", "does not match the layout"},
		{"short date", orderFormat, "ORD-26112-000042", "does not match the layout"},
		{"empty date", orderFormat, "ORD--000042", "does not match the layout"},
		{"letters in number", orderFormat, "ORD-261122-00004x", "not all digits"},
		{"negative number", orderFormat, "ORD-261122--00042", "does not match the layout"},
		{"plus sign", orderFormat, "ORD-261122-+00042", "not all digits"},
		{"Arabic-Indic digits", orderFormat, "ORD-261122-٠٠٠٠٤٢", "not all digits"},
		{"empty number", orderFormat, "ORD-261122-", "no number part"},
		{"fewer digits than width", orderFormat, "ORD-261122-42", "want at least 6"},
		{"needless leading zero", orderFormat, "ORD-261122-0000042", "leading zero"},
		{"overflow", orderFormat, "ORD-261122-9223372036854775808", "does not fit in an int64"},
		{"extra part", orderFormat, "ORD-261122-000042-1", "does not match the layout"},
		{"month name in lower case", dynamoseq.Format{DateLayout: "Jan2006", Separator: "-"}, "nov2026-1", "not written the way"},
		{"no separator, short", noSep, "ORD26112200004", "is not a date"},
		{"no separator, letters", noSep, "ORD261122ABCDEF", "is not a date"},
		{"no separator, ambiguous", varying, "112", "can be read 2 ways"},
		{"bad width", dynamoseq.Format{Width: 20}, "1", "width is 20"},
		{"negative width", dynamoseq.Format{Width: -1}, "1", "width is -1"},
		{"digit in separator", dynamoseq.Format{DateLayout: "2006", Separator: "0"}, "202600001", "contains a digit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts, err := tt.format.ParseParts(tt.id, time.UTC)
			require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "Parse(%q) = %+v", tt.id, parts)
			assert.Contains(t, err.Error(), tt.message)
			assert.True(t, strings.HasPrefix(err.Error(), "dynamoseq: Format.Parse: invalid argument: "), "message %q", err)
			var e *dynamoseq.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, "Format.Parse", e.Op)
			assert.Equal(t, dynamoseq.IDParts{}, parts)
		})
	}
}

// fuzzLayouts are the date layouts FuzzIDRoundTrip chooses from; the first
// ones write a fixed width, as a Format without a separator needs.
var fuzzLayouts = []string{"060102", "20060102", "200601", "2006", "060102T15", "2006-01-02", "Jan2006", "", "2006-1-2", "Jan _2 2006", "Monday 02.01.2006"}

const fixedWidthLayouts = 5

// FuzzIDRoundTrip checks that Parse takes back apart every ID that ID
// writes, and that any string Parse accepts is one that ID writes.
func FuzzIDRoundTrip(f *testing.F) {
	f.Add("ORD", uint8(0), "-", uint8(6), int64(1795338000), int64(42), "ORD-261122-000042")
	f.Add("", uint8(5), "/", uint8(0), int64(0), int64(0), "1970-01-01/0")
	f.Add("INV", uint8(6), "", uint8(3), int64(-1000000), int64(math.MaxInt64), "INVJan2026999")
	f.Add("T-", uint8(7), "--", uint8(19), int64(253402300799), int64(1), "T---0000000000000000001")
	f.Add("a", uint8(1), "a", uint8(2), int64(1<<40), int64(123456), "a12")
	f.Fuzz(func(t *testing.T, prefix string, layout uint8, sep string, width uint8, unix, n int64, garbage string) {
		format := dynamoseq.Format{
			Prefix:     prefix,
			DateLayout: fuzzLayouts[int(layout)%len(fuzzLayouts)],
			Separator:  sep,
			Width:      int(width) % 20,
		}
		if sep == "" && int(layout)%len(fuzzLayouts) >= fixedWidthLayouts {
			format.DateLayout = fuzzLayouts[int(layout)%fixedWidthLayouts]
		}
		if strings.ContainsAny(sep, "0123456789") {
			_, err := format.ParseParts(garbage, time.UTC)
			require.ErrorIs(t, err, dynamoseq.ErrInvalidArgument, "Parse with separator %q", sep)
			return
		}
		// Years 1 to 9999, which every layout writes with four digits.
		const minUnix, maxUnix = -62135596800, 253402300799
		at := time.Unix(minUnix+int64(uint64(unix)%uint64(maxUnix-minUnix)), 0).UTC()
		if n < 0 {
			n = -(n + 1)
		}

		id := format.ID(at, n)
		parts, err := format.ParseParts(id, time.UTC)
		require.NoError(t, err, "Parse(ID(%v, %d)) with %+v", at, n, format)
		if parts.Number != n {
			t.Fatalf("Parse(%q).Number = %d, want %d", id, parts.Number, n)
		}
		if back := format.ID(parts.Date, parts.Number); back != id {
			t.Fatalf("ID(Parse(%q)) = %q, want the same", id, back)
		}
		if got := format.ID(at, 0); !strings.HasPrefix(got, prefix) {
			t.Fatalf("ID = %q, want the prefix %q", got, prefix)
		}

		// Any string: rejected with ErrInvalidArgument, or written back
		// exactly as it was.
		parts, err = format.ParseParts(garbage, time.UTC)
		if err != nil {
			if !errors.Is(err, dynamoseq.ErrInvalidArgument) {
				t.Fatalf("Parse(%q) = %v, want ErrInvalidArgument", garbage, err)
			}
			return
		}
		if back := format.ID(parts.Date, parts.Number); back != garbage {
			t.Fatalf("Parse(%q) = %+v, whose ID is %q", garbage, parts, back)
		}
	})
}
