package dynamoseq

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
