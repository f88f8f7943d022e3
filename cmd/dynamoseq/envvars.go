package main

import (
	"os"
	"strings"

	"github.com/spf13/pflag"
)

// Environment variables stand for the shared flags, so that an operator
// sets the table and its options once per shell: DYNAMOSEQ_TABLE for
// --table, DYNAMOSEQ_PARTITION_KEY for --partition-key, and so on. A flag on
// the command line wins over its variable. The endpoint, the Region and the
// profile have the AWS SDK's own variables, which it reads itself:
// AWS_ENDPOINT_URL_DYNAMODB (or AWS_ENDPOINT_URL for every service),
// AWS_REGION and AWS_PROFILE.

// envVar is the environment variable of the shared flag name, or "" for
// the flags the AWS SDK has its own variables for.
func envVar(name string) string {
	switch name {
	case "endpoint-url", "region", "profile":
		return ""
	}
	return "DYNAMOSEQ_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// awsEnvVars names the AWS SDK's variables for the shared flags that have
// no DYNAMOSEQ_ variable, as the help shows them.
var awsEnvVars = map[string]string{
	"endpoint-url": "AWS_ENDPOINT_URL_DYNAMODB or AWS_ENDPOINT_URL",
	"region":       "AWS_REGION",
	"profile":      "AWS_PROFILE",
}

// fromEnvironment sets each shared flag of fs that the command line left
// alone from its non-empty environment variable. A value the flag refuses
// is a usage error naming the variable.
func fromEnvironment(fs *pflag.FlagSet) error {
	var err error
	sharedFlags().VisitAll(func(f *pflag.Flag) {
		name := envVar(f.Name)
		if name == "" || fs.Changed(f.Name) || err != nil {
			return
		}
		v := os.Getenv(name)
		if v == "" {
			return
		}
		if serr := fs.Set(f.Name, v); serr != nil {
			err = usageErrorf("%s=%s: %v", name, v, serr)
		}
	})
	return err
}

// envNote is what the help adds to a flag that has an environment variable:
// " (env DYNAMOSEQ_TABLE)".
func envNote(name string) string {
	if sharedFlags().Lookup(name) == nil {
		return ""
	}
	if v, ok := awsEnvVars[name]; ok {
		return " (env " + v + ")"
	}
	return " (env " + envVar(name) + ")"
}
