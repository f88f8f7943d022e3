package dynamoseqtest

import (
	"encoding/base64"
	"strings"
)

// attr is a DynamoDB AttributeValue as the JSON protocol carries it.
type attr struct {
	S    *string         `json:"S,omitempty"`
	N    *string         `json:"N,omitempty"`
	B    []byte          `json:"B,omitempty"`
	BOOL *bool           `json:"BOOL,omitempty"`
	NULL *bool           `json:"NULL,omitempty"`
	M    map[string]attr `json:"M,omitempty"`
	L    []attr          `json:"L,omitempty"`
	SS   []string        `json:"SS,omitempty"`
	NS   []string        `json:"NS,omitempty"`
	BS   [][]byte        `json:"BS,omitempty"`
}

// itemSize is the size DynamoDB charges an item by: the UTF-8 bytes of
// each attribute's name plus its value's size
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html).
func itemSize(item map[string]attr) int {
	n := 0
	for name, v := range item {
		n += len(name) + v.size()
	}
	return n
}

// size is a value's size: strings and binaries their bytes, a number about
// one byte per two significant digits plus one, a Boolean or null one
// byte, a list or map 3 bytes plus its elements and one byte each.
func (a *attr) size() int {
	switch {
	case a.S != nil:
		return len(*a.S)
	case a.N != nil:
		return numberSize(*a.N)
	case a.B != nil:
		return len(a.B)
	case a.BOOL != nil, a.NULL != nil:
		return 1
	case a.M != nil:
		n := 3
		for k, v := range a.M {
			n += len(k) + v.size() + 1
		}
		return n
	case a.L != nil:
		n := 3
		for i := range a.L {
			n += a.L[i].size() + 1
		}
		return n
	}
	n := 0
	for _, s := range a.SS {
		n += len(s)
	}
	for _, s := range a.NS {
		n += numberSize(s)
	}
	for _, b := range a.BS {
		n += len(b)
	}
	return n
}

// numberSize is the size of a number: 1 byte per two significant digits
// (leading and trailing zeros trimmed), plus 1.
func numberSize(s string) int {
	s = strings.TrimLeft(s, "+-")
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		s = s[:i]
	}
	s = strings.Replace(s, ".", "", 1)
	s = strings.Trim(s, "0")
	return (len(s)+1)/2 + 1
}

// keyString is a key attribute's value as the model names it: "S:orders",
// "N:42", "B:" and the base64 of the bytes.
func (a *attr) keyString() (string, bool) {
	switch {
	case a.S != nil:
		return "S:" + *a.S, true
	case a.N != nil:
		return "N:" + *a.N, true
	case a.B != nil:
		return "B:" + base64.StdEncoding.EncodeToString(a.B), true
	}
	return "", false
}

// writeUnits is what writing an item of size bytes costs: one unit per KB,
// rounded up, at least one.
func writeUnits(size int) float64 {
	return float64(max(1, (size+1023)/1024))
}

// readUnits is what reading size bytes costs: one unit per 4 KB, rounded
// up, at least one; half of it for an eventually consistent read.
func readUnits(size int, consistent bool) float64 {
	u := float64(max(1, (size+4095)/4096))
	if !consistent {
		u /= 2
	}
	return u
}
