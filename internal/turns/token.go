package turns

import (
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The write token of an item is written by one writer (Token) and read by
// the others (ParseToken, TurnOfItem), of any process. Its format:
//
//	<request>:<last>                     outside a turn
//	<request>:<last>:<end>:<no>:<line>   in a turn
//
// request is the write's request token (settle.RequestToken), which tells
// the attempts of one write from any other; last is the last number the
// write stores; end, no and line are the write's turn: its end in Unix
// microseconds, its number and its line, in decimal. Every attempt of a
// write carries the same token.

// TokenBytes is the largest size of a write token: 32 hex digits, a colon,
// up to 19 digits, a colon and a turn.
const TokenBytes = 32 + 1 + 19 + 1 + turnTokenBytes

// turnTokenBytes is the largest size of a turn in a write token.
const turnTokenBytes = 3*19 + 2

// Token returns the write token of the items of one write: the write's
// request token, the last number the write stores and, for a write made in
// a turn, the turn.
func Token(request string, last int64, tn Turn) string {
	tok := request + ":" + strconv.FormatInt(last, 10)
	if tn.no == 0 {
		return tok
	}
	return tok + ":" + strconv.FormatInt(tn.end.UnixMicro(), 10) + ":" + strconv.FormatInt(tn.no, 10) + ":" + strconv.FormatInt(tn.line, 10)
}

// ParseToken reads a write token written by Token: the last number of its
// write, and its turn (the zero Turn when it names none). ok is false when
// s is not such a token.
func ParseToken(s string) (last int64, tn Turn, ok bool) {
	f := strings.Split(s, ":")
	switch len(f) {
	case 2:
	case 5:
		if tn = parseTurn(f[2], f[3], f[4]); tn.no == 0 {
			return 0, Turn{}, false
		}
	default:
		return 0, Turn{}, false
	}
	last, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, Turn{}, false
	}
	return last, tn, true
}

// parseTurn reads the fields of a turn written by Token; the zero Turn when
// they are not one.
func parseTurn(end, no, line string) Turn {
	us, err1 := strconv.ParseInt(end, 10, 64)
	n, err2 := strconv.ParseInt(no, 10, 64)
	l, err3 := strconv.ParseInt(line, 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || us <= 0 || n <= 0 || l < 0 || l > maxTurnWaits {
		return Turn{}
	}
	return Turn{end: time.UnixMicro(us), no: n, line: l}
}

// TurnOfItem returns the turn named by the write token of item, in its
// attribute attr; the zero Turn when it names none.
func TurnOfItem(item map[string]types.AttributeValue, attr string) Turn {
	tok, ok := item[attr].(*types.AttributeValueMemberS)
	if !ok {
		return Turn{}
	}
	_, tn, _ := ParseToken(tok.Value)
	return tn
}
