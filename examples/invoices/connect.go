package main

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// connect returns a client for the endpoint given (a DynamoDB Local, with
// any credentials), or, without one, for what the AWS configuration chain
// says; and names which.
func connect(ctx context.Context, endpoint string) (*dynamodb.Client, string, error) {
	if endpoint != "" {
		client := dynamodb.New(dynamodb.Options{
			BaseEndpoint: aws.String(endpoint),
			Region:       "us-east-1",
			Credentials:  credentials.NewStaticCredentialsProvider("dynamoseq", "dynamoseq", ""),
			// DynamoDB Local sends no CRC32 on error responses; without this
			// the SDK logs a warning for each (aws/aws-sdk-go-v2#3545).
			DisableValidateResponseChecksum: true,
		})
		return client, endpoint, nil
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("loading the AWS configuration: %w", err)
	}
	client := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.DisableValidateResponseChecksum = o.BaseEndpoint != nil // most often DynamoDB Local
	})
	if e := client.Options().BaseEndpoint; e != nil {
		return client, *e + " (AWS_ENDPOINT_URL), Region " + cfg.Region, nil
	}
	return client, "AWS, Region " + cfg.Region, nil
}
