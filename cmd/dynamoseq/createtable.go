package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/spf13/pflag"

	"github.com/dynamoseq/dynamoseq"
)

func createTableCommand() *command {
	return &command{
		name:     "create-table",
		synopsis: "--kind counter|block|sortkey|latest",
		summary:  "Create the table a strategy needs",
		doc: "Creates the table a strategy needs with these options (on-demand capacity)\n" +
			"unless it exists, waits until it is active, and enables Time to Live on\n" +
			"--ttl (dynamoseq.EnsureTable). It says what it did: created the table,\n" +
			"enabled TTL on an existing one, or changed nothing. An existing table whose\n" +
			"key schema or TTL attribute differs is refused, exit status 1, and left as it\n" +
			"is. With --print it writes the definition instead, as a CloudFormation\n" +
			"resource or as aws CLI commands.\n",
		minArgs: 0, maxArgs: 0,
		define: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
			kind := new(string)
			choiceVar(fs, kind, "kind", "", "the strategy the table is for (required: there is no table to read it from)", kindCounter, kindBlock, kindSortKey, kindLatest)
			ttl := fs.String("ttl", "", "enable Time to Live on this attribute (an IDMinter's TTLAttribute)")
			printAs := new(string)
			choiceVar(fs, printAs, "print", "", "write the definition instead of creating the table: a CloudFormation template or aws CLI commands", "cloudformation", "cli")
			return func(ctx context.Context, e *env, _ []string) error {
				if *kind == "" {
					return usageErrorf("--kind is required")
				}
				if err := e.refuseUnread(*kind, ""); err != nil {
					return err
				}
				in := e.tableDefinition(*kind)
				switch *printAs {
				case "cloudformation":
					return e.write(cloudFormation(in, *ttl))
				case "cli":
					return e.write(awsCLI(in, *ttl))
				}
				done, err := e.createTable(ctx, in, *ttl)
				if err != nil {
					return err
				}
				return e.print(done.text(), done)
			}
		},
	}
}

// created is create-table's answer: what it found and what it changed.
type created struct {
	Table   string   `json:"table"`
	Key     string   `json:"key"`
	Created bool     `json:"created"`
	Changes []string `json:"changes"` // what it changed on an existing table
}

func (c created) text() string {
	switch {
	case c.Created:
		return fmt.Sprintf("table %s created: %s\n", c.Table, strings.Join(append([]string{c.Key}, c.Changes...), "; "))
	case len(c.Changes) == 0:
		return fmt.Sprintf("table %s exists: %s; nothing changed\n", c.Table, c.Key)
	}
	return fmt.Sprintf("table %s exists: %s; changed: %s\n", c.Table, c.Key, strings.Join(c.Changes, "; "))
}

// createTable creates the table unless it exists, waits until it is
// active and enables TTL (dynamoseq.EnsureTable), and says what it did.
// An existing table with another key schema or TTL attribute is refused
// and left as it is. To tell what changed it looks first: one
// DescribeTable, and with ttl one DescribeTimeToLive.
func (e *env) createTable(ctx context.Context, in *dynamodb.CreateTableInput, ttl string) (created, error) {
	done := created{Table: e.table, Key: describeKey(in.KeySchema, in.AttributeDefinitions), Changes: []string{}}
	client, err := e.client(ctx)
	if err != nil {
		return done, err
	}
	_, err = client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(e.table)})
	var notFound *types.ResourceNotFoundException
	done.Created = errors.As(err, &notFound)
	ttlBefore := types.TimeToLiveStatusDisabled
	if err == nil && ttl != "" {
		if out, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(e.table)}); err == nil && out.TimeToLiveDescription != nil {
			ttlBefore = out.TimeToLiveDescription.TimeToLiveStatus
		}
	}
	if err := dynamoseq.EnsureTable(ctx, client, in, ttl); err != nil {
		return done, err
	}
	switch {
	case ttl == "":
	case done.Created:
		done.Changes = append(done.Changes, fmt.Sprintf("Time to Live enabled on %q", ttl))
	case ttlBefore != types.TimeToLiveStatusEnabled && ttlBefore != types.TimeToLiveStatusEnabling:
		done.Changes = append(done.Changes, fmt.Sprintf("Time to Live enabled on %q (it was %s)", ttl, ttlBefore))
	}
	return done, nil
}

// cloudFormation writes the definition as a CloudFormation template in YAML.
func cloudFormation(in *dynamodb.CreateTableInput, ttl string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Resources:\n  %s:\n    Type: AWS::DynamoDB::Table\n    Properties:\n", logicalID(aws.ToString(in.TableName)))
	fmt.Fprintf(&b, "      TableName: %s\n      BillingMode: %s\n      AttributeDefinitions:\n", aws.ToString(in.TableName), in.BillingMode)
	for _, d := range in.AttributeDefinitions {
		fmt.Fprintf(&b, "        - AttributeName: %s\n          AttributeType: %s\n", aws.ToString(d.AttributeName), d.AttributeType)
	}
	b.WriteString("      KeySchema:\n")
	for _, k := range in.KeySchema {
		fmt.Fprintf(&b, "        - AttributeName: %s\n          KeyType: %s\n", aws.ToString(k.AttributeName), k.KeyType)
	}
	if ttl != "" {
		fmt.Fprintf(&b, "      TimeToLiveSpecification:\n        AttributeName: %s\n        Enabled: true\n", ttl)
	}
	return b.String()
}

// logicalID is the CloudFormation logical ID of the table: its name with
// letters and digits only, each run of other characters dropped and the
// letter after it in upper case ("orders-prod" is OrdersProd).
func logicalID(table string) string {
	var b strings.Builder
	upper := true
	for _, r := range table {
		switch {
		case unicode.IsLetter(r) && r < unicode.MaxASCII:
			if upper {
				r = unicode.ToUpper(r)
			}
			b.WriteRune(r)
		case unicode.IsDigit(r) && r < unicode.MaxASCII:
			b.WriteRune(r)
		default:
			upper = true
			continue
		}
		upper = false
	}
	if b.Len() == 0 { // a name of dots, dashes and underscores only
		return "SequenceTable"
	}
	return b.String()
}

// awsCLI writes the definition as aws CLI commands.
func awsCLI(in *dynamodb.CreateTableInput, ttl string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "aws dynamodb create-table --table-name %s --billing-mode %s \\\n    --attribute-definitions", aws.ToString(in.TableName), in.BillingMode)
	for _, d := range in.AttributeDefinitions {
		fmt.Fprintf(&b, " AttributeName=%s,AttributeType=%s", aws.ToString(d.AttributeName), d.AttributeType)
	}
	b.WriteString(" \\\n    --key-schema")
	for _, k := range in.KeySchema {
		fmt.Fprintf(&b, " AttributeName=%s,KeyType=%s", aws.ToString(k.AttributeName), k.KeyType)
	}
	fmt.Fprintf(&b, "\naws dynamodb wait table-exists --table-name %s\n", aws.ToString(in.TableName))
	if ttl != "" {
		fmt.Fprintf(&b, "aws dynamodb update-time-to-live --table-name %s --time-to-live-specification Enabled=true,AttributeName=%s\n", aws.ToString(in.TableName), ttl)
	}
	return b.String()
}
