package turns

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestTurnTokenRoundTrip(t *testing.T) {
	t.Parallel()
	tn := Turn{end: time.UnixMicro(1_795_452_382_005_262), no: 12, line: 3}
	tok := Token("0123456789abcdef0123456789abcdef", 42, tn)
	if len(tok) > TokenBytes {
		t.Errorf("Token is %d bytes, more than TokenBytes (%d)", len(tok), TokenBytes)
	}
	item := map[string]types.AttributeValue{"wtok": &types.AttributeValueMemberS{Value: tok}}
	if got := TurnOfItem(item, "wtok"); got != tn {
		t.Errorf("TurnOfItem(%q) = %+v, want %+v", tok, got, tn)
	}
	if got := Token("0123456789abcdef0123456789abcdef", 42, Turn{}); strings.Count(got, ":") != 1 {
		t.Errorf("Token without a turn = %q, want the token and the last number only", got)
	}
	for _, bad := range []string{"", "abc", "abc:42", "abc:42:", "abc:42:x:1:2", "abc:42:1:2", "abc:42:1:2:3:4",
		"abc:42:-1:2:3", "abc:42:1:0:3", "abc:42:1:2:-3", "abc:42:1:2:99"} {
		item := map[string]types.AttributeValue{"wtok": &types.AttributeValueMemberS{Value: bad}}
		if got := TurnOfItem(item, "wtok"); got != (Turn{}) {
			t.Errorf("TurnOfItem(%q) = %+v, want no turn", bad, got)
		}
	}
	if got := TurnOfItem(map[string]types.AttributeValue{"wtok": &types.AttributeValueMemberN{Value: "1"}}, "wtok"); got != (Turn{}) {
		t.Errorf("TurnOfItem(a Number) = %+v, want no turn", got)
	}
}

func TestParseToken(t *testing.T) {
	t.Parallel()
	for tok, want := range map[string]int64{"abc:7": 7, "abc:7:1795452382005262:3:2": 7} {
		if last, _, ok := ParseToken(tok); !ok || last != want {
			t.Errorf("ParseToken(%q) = %d, %v, want %d, true", tok, last, ok, want)
		}
	}
	for _, bad := range []string{"abc", "abc:x", "x:7:junk", "abc:7:1:2", "abc:7:1:2:99", "abc:7:x:2:3", ""} {
		if last, _, ok := ParseToken(bad); ok {
			t.Errorf("ParseToken(%q) = %d, true, want not a token", bad, last)
		}
	}
}

const testRequest = "0123456789abcdef0123456789abcdef" // as settle.RequestToken makes them

// TestTokenRoundTrip: what Token writes, ParseToken reads back, within
// TokenBytes, at the ends of every field's range.
func TestTokenRoundTrip(t *testing.T) {
	t.Parallel()
	longest := Turn{end: time.UnixMicro(math.MaxInt64), no: math.MaxInt64, line: maxTurnWaits}
	tests := []struct {
		name string
		last int64
		tn   Turn
	}{
		{"no turn", 1, Turn{}},
		{"largest number, no turn", math.MaxInt64, Turn{}},
		{"a turn", 42, Turn{end: time.UnixMicro(1_795_452_382_005_262), no: 12, line: 3}},
		{"first turn, empty line", 7, Turn{end: time.UnixMicro(1), no: 1, line: 0}},
		{"longest", math.MaxInt64, longest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := Token(testRequest, tt.last, tt.tn)
			if len(tok) > TokenBytes {
				t.Errorf("Token() = %q, %d bytes, more than TokenBytes (%d)", tok, len(tok), TokenBytes)
			}
			last, tn, ok := ParseToken(tok)
			if !ok || last != tt.last || tn != tt.tn {
				t.Errorf("ParseToken(%q) = %d, %+v, %v, want %d, %+v, true", tok, last, tn, ok, tt.last, tt.tn)
			}
		})
	}
}

// FuzzTokenRoundTrip: any last number and any turn Token may be given
// round-trip through ParseToken; a turn ParseToken would not accept is
// written as none.
func FuzzTokenRoundTrip(f *testing.F) {
	f.Add(int64(42), int64(1_795_452_382_005_262), int64(12), int64(3))
	f.Add(int64(1), int64(0), int64(0), int64(0))
	f.Add(int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64), int64(maxTurnWaits))
	f.Fuzz(func(t *testing.T, last, end, no, line int64) {
		tn := Turn{end: time.UnixMicro(end), no: no, line: line}
		if end <= 0 || no <= 0 || line < 0 || line > maxTurnWaits {
			tn = Turn{}
		}
		tok := Token(testRequest, last, tn)
		got, gotTurn, ok := ParseToken(tok)
		if !ok || got != last || gotTurn != tn {
			t.Fatalf("ParseToken(%q) = %d, %+v, %v, want %d, %+v, true", tok, got, gotTurn, ok, last, tn)
		}
		if last >= 0 && len(tok) > TokenBytes {
			t.Fatalf("Token() = %q, %d bytes, more than TokenBytes (%d)", tok, len(tok), TokenBytes)
		}
	})
}

// FuzzParseToken: ParseToken never fails on what another writer may have
// stored, and what it accepts, Token writes back the same.
func FuzzParseToken(f *testing.F) {
	for _, s := range []string{"abc:7", "abc:7:1795452382005262:3:2", "", ":", "abc:7:1:2", "a:-1:1:1:16"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		last, tn, ok := ParseToken(s)
		if !ok {
			if last != 0 || tn != (Turn{}) {
				t.Fatalf("ParseToken(%q) = %d, %+v, false, want zeros", s, last, tn)
			}
			return
		}
		request, _, _ := strings.Cut(s, ":")
		again, againTurn, ok := ParseToken(Token(request, last, tn))
		if !ok || again != last || againTurn != tn {
			t.Fatalf("ParseToken(Token(ParseToken(%q))) = %d, %+v, %v, want %d, %+v", s, again, againTurn, ok, last, tn)
		}
	})
}
