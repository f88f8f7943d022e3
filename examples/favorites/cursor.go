package favorites

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// encodeCursor turns a Query's LastEvaluatedKey (all of this table's key
// attributes are Strings) into an opaque cursor: base64url of its JSON.
func encodeCursor(key map[string]types.AttributeValue) (string, error) {
	if len(key) == 0 {
		return "", nil
	}
	m := make(map[string]string, len(key))
	for name, v := range key {
		s, ok := v.(*types.AttributeValueMemberS)
		if !ok {
			return "", fmt.Errorf("favorites: key attribute %q of the last evaluated key is not a String", name)
		}
		m[name] = s.Value
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// decodeCursor turns a cursor back into an ExclusiveStartKey, checking that
// it belongs to the partition being read (pkAttr = pk), so that a cursor
// made up by a client cannot read another user's items.
func decodeCursor(cursor, pkAttr, pk string) (map[string]types.AttributeValue, error) {
	if cursor == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return nil, invalidf("malformed cursor: %v", err)
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, invalidf("malformed cursor: %v", err)
	}
	if m[pkAttr] != pk {
		return nil, invalidf("the cursor belongs to another list")
	}
	key := make(map[string]types.AttributeValue, len(m))
	for name, v := range m {
		key[name] = str(v)
	}
	return key, nil
}
