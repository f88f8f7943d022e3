package dynamoseq

import (
	"unicode/utf8"
)

// maxKeyBytes is DynamoDB's limit on a partition key value: 2048 bytes.
const maxKeyBytes = 2048

// maxSortKeyBytes is DynamoDB's limit on a sort key value: 1024 bytes.
const maxSortKeyBytes = 1024

// partitionValue returns KeyPrefix+name, the partition key value of a
// sequence, after checking that DynamoDB will accept it.
func partitionValue(prefix, name string) (string, error) {
	switch {
	case name == "":
		return "", invalidf("empty name")
	case !utf8.ValidString(name):
		return "", invalidf("name is not valid UTF-8")
	case len(prefix)+len(name) > maxKeyBytes:
		return "", invalidf("key prefix and name are %d bytes, DynamoDB's limit for a partition key is %d", len(prefix)+len(name), maxKeyBytes)
	}
	return prefix + name, nil
}

// validateTable checks a table name against DynamoDB's rules: 3 to 255
// characters from a-z, A-Z, 0-9, '_', '-' and '.'.
func validateTable(table string) error {
	if len(table) < 3 || len(table) > 255 {
		return invalidf("table name %q has %d characters, want 3 to 255", table, len(table))
	}
	for _, r := range table {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.'
		if !ok {
			return invalidf("table name %q contains %q; allowed are letters, digits, '_', '-' and '.'", table, r)
		}
	}
	return nil
}
