package favorites_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dynamoseq/dynamoseq/examples/favorites"
)

func TestKeyRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		parts []string
		want  string
	}{
		{[]string{"Tag", "alice"}, "Tag#alice"},
		{[]string{"FavoriteData", "alice", "image"}, "FavoriteData#alice#image"},
		{[]string{"Tag", "al#ice"}, `Tag#al\#ice`},
		{[]string{"Tag", `a\b`}, `Tag#a\\b`},
		{[]string{"Tag", `\#`}, `Tag#\\\#`},
		{[]string{""}, ""},
		{[]string{"", ""}, "#"},
		{[]string{"Tag", "", "x"}, "Tag##x"},
		{[]string{"#", "#"}, `\##\#`},
		{[]string{"ünï#cødé"}, `ünï\#cødé`},
	}
	for _, tt := range tests {
		got := favorites.Key(tt.parts...)
		assert.Equal(t, tt.want, got, "Key(%q)", tt.parts)
		back, err := favorites.SplitKey(got)
		require.NoError(t, err, "SplitKey(%q)", got)
		assert.Equal(t, tt.parts, back, "SplitKey(Key(%q))", tt.parts)
	}
}

func TestSplitKeyRejectsBadEscapes(t *testing.T) {
	t.Parallel()
	for _, key := range []string{`\`, `a\`, `a\b`, `Tag#\x`} {
		if parts, err := favorites.SplitKey(key); err == nil {
			t.Errorf("SplitKey(%q) = %q, want an error", key, parts)
		}
	}
}

// FuzzKeyRoundTrip checks, for any parts, that SplitKey undoes Key, that
// Key(a, b) starts with Key(a)+"#" (the begins_with the service queries
// with), and that no key whose first part differs from a does.
func FuzzKeyRoundTrip(f *testing.F) {
	for _, seed := range [][3]string{
		{"Tag", "alice", ""}, {"", "", ""}, {"#", `\`, "##"}, {`a\`, "#b", `\#`}, {"a", "a#b", "a\\#b"},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		for _, parts := range [][]string{{a}, {a, b}, {a, b, c}} {
			key := favorites.Key(parts...)
			back, err := favorites.SplitKey(key)
			if err != nil {
				t.Fatalf("SplitKey(Key(%q)): %v", parts, err)
			}
			if !slices.Equal(back, parts) {
				t.Fatalf("SplitKey(Key(%q)) = %q", parts, back)
			}
		}
		prefix := favorites.Key(a) + string(favorites.Sep)
		if k := favorites.Key(a, b, c); !strings.HasPrefix(k, prefix) {
			t.Fatalf("Key(%q, %q, %q) = %q, does not start with %q", a, b, c, k, prefix)
		}
		if b != a {
			if k := favorites.Key(b, c); strings.HasPrefix(k, prefix) {
				t.Fatalf("Key(%q, %q) = %q starts with %q, the prefix of first part %q", b, c, k, prefix, a)
			}
		}
	})
}

func TestTimeKeyOrder(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)
	// In time order. RFC3339Nano would write the first two as ...00.5Z
	// and ...00.45Z, which sort the wrong way round as strings.
	times := []time.Time{
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		base.Add(450 * time.Millisecond),
		base.Add(500 * time.Millisecond),
		base.Add(500*time.Millisecond + 1),
		base.Add(time.Second),
		base.In(time.FixedZone("UTC+14", 14*3600)).Add(2 * time.Second),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
	}
	var prev string
	for i, tm := range times {
		k, err := favorites.TimeKey(tm)
		require.NoError(t, err, "TimeKey(%v)", tm)
		assert.Len(t, k, 30, "TimeKey(%v) = %q", tm, k)
		if i > 0 && k <= prev {
			t.Errorf("TimeKey(%v) = %q, not after %q", tm, k, prev)
		}
		prev = k
	}
	for _, bad := range []time.Time{
		time.Date(0, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		_, err := favorites.TimeKey(bad)
		assert.ErrorIs(t, err, favorites.ErrInvalidArgument, "TimeKey(%v)", bad)
	}
}

// FuzzTimeKeyOrder checks that TimeKey's string order is the time order.
func FuzzTimeKeyOrder(f *testing.F) {
	f.Add(int64(0), int64(1))
	f.Add(int64(1_700_000_000_450_000_000), int64(1_700_000_000_500_000_000))
	f.Add(int64(-1), int64(1))
	f.Fuzz(func(t *testing.T, a, b int64) {
		ta, tb := time.Unix(0, a), time.Unix(0, b)
		ka, err := favorites.TimeKey(ta)
		if err != nil {
			t.Fatal(err)
		}
		kb, err := favorites.TimeKey(tb)
		if err != nil {
			t.Fatal(err)
		}
		if ta.Compare(tb) != strings.Compare(ka, kb) {
			t.Fatalf("TimeKey(%v) = %q, TimeKey(%v) = %q: string order differs from time order", ta, ka, tb, kb)
		}
	})
}

func TestIDKeyOrder(t *testing.T) {
	t.Parallel()
	ids := []int64{1, 9, 10, 99, 100, 1 << 40, 1<<63 - 1}
	for i := 1; i < len(ids); i++ {
		if a, b := favorites.IDKey(ids[i-1]), favorites.IDKey(ids[i]); a >= b || len(a) != 19 || len(b) != 19 {
			t.Errorf("IDKey(%d) = %q, IDKey(%d) = %q: want 19 digits in order", ids[i-1], a, ids[i], b)
		}
	}
}
