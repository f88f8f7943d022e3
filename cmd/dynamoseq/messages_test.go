package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"

	"github.com/dynamoseq/dynamoseq"
)

// TestOptionFlags: every flag that optionFlags names is a flag of the
// command, shared or bench's.
func TestOptionFlags(t *testing.T) {
	fs := pflag.NewFlagSet("all", pflag.ContinueOnError)
	var s settings
	s.register(fs)
	benchCommand().define(fs)
	for field, flag := range optionFlags {
		assert.NotNil(t, fs.Lookup(strings.TrimPrefix(flag, "--")), "optionFlags[%q] = %s, not a flag", field, flag)
	}
}

// TestOptionMessage: an option the library refuses is named by its flag,
// with the flag's values, also the other option of a combination; an
// option no flag sets keeps its Go name.
func TestOptionMessage(t *testing.T) {
	wrap := func(oe *dynamoseq.OptionError) error {
		return &dynamoseq.Error{Op: "NewCounter", Table: "Seq", Err: oe}
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{wrap(&dynamoseq.OptionError{Field: "Regions", Value: []string{"a", "b"}, Reason: "read only there", Other: "GlobalTable", OtherValue: dynamoseq.GlobalTableMRSC}),
			`dynamoseq: NewCounter: table "Seq": invalid argument: --regions is a,b, read only there (--global-table is mrsc)`},
		{wrap(&dynamoseq.OptionError{Field: "SortKeyValue", Value: "", Reason: "want a value"}),
			`dynamoseq: NewCounter: table "Seq": invalid argument: --counter-sort-key-value is "", want a value`},
		{wrap(&dynamoseq.OptionError{Field: "TokenAttribute", Value: "sk", Reason: "a key", Other: "SortKey", OtherValue: "sk"}),
			`dynamoseq: NewCounter: table "Seq": invalid argument: option TokenAttribute is sk, a key (--sort-key is sk)`},
		{errors.New("dynamoseq: something else"), "dynamoseq: something else"},
	} {
		assert.Equal(t, tc.want, message(tc.err))
	}
}
