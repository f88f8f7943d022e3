package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
)

func TestSDKErrorMessage(t *testing.T) {
	reasons := func(codes ...string) []types.CancellationReason {
		var rs []types.CancellationReason
		for _, c := range codes {
			if c == "" {
				rs = append(rs, types.CancellationReason{})
				continue
			}
			rs = append(rs, types.CancellationReason{Code: aws.String(c)})
		}
		return rs
	}
	sixteen := make([]string, 16)
	for i := range sixteen {
		sixteen[i] = "ThrottlingError"
	}
	wrapSDK := func(err error) error {
		return &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "TransactWriteItems", Err: err}
	}
	long := strings.Repeat("One or more parameter values were invalid. ", 5)
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"throttled transaction", wrapSDK(&types.TransactionCanceledException{Message: aws.String("Transaction cancelled [" + strings.Join(sixteen, ", ") + "]"), CancellationReasons: reasons(sixteen...)}),
			"TransactWriteItems cancelled: ThrottlingError x16"},
		{"one refused item", wrapSDK(&types.TransactionCanceledException{CancellationReasons: reasons("None", "ValidationError", "None", "")}),
			"TransactWriteItems cancelled: None x3, ValidationError"},
		{"no reasons", wrapSDK(&types.TransactionCanceledException{}),
			"TransactWriteItems cancelled: no reasons given"},
		{"typed throttle: the code alone", wrapSDK(&types.ProvisionedThroughputExceededException{Message: aws.String("The level of configured provisioned throughput for the table was exceeded.")}),
			"TransactWriteItems: ProvisionedThroughputExceededException"},
		{"typed exception", wrapSDK(&types.ResourceNotFoundException{Message: aws.String("Requested resource not found")}),
			"TransactWriteItems: ResourceNotFoundException: Requested resource not found"},
		{"long message", wrapSDK(&smithy.GenericAPIError{Code: "ValidationException", Message: long}),
			"TransactWriteItems: ValidationException: " + long[:maxSDKMessage] + "..."},
		{"code only", fmt.Errorf("wrapped: %w", &smithy.GenericAPIError{Code: "ThrottlingException"}),
			"TransactWriteItems: ThrottlingException"},
		{"deadline", wrapSDK(fmt.Errorf("https response error StatusCode: 0, RequestID: , canceled, %w", context.DeadlineExceeded)),
			"TransactWriteItems: context deadline exceeded"},
		{"canceled", wrapSDK(fmt.Errorf("canceled: %w", context.Canceled)),
			"TransactWriteItems: context canceled"},
		{"network", wrapSDK(&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}),
			"TransactWriteItems: dial tcp: connection refused"},
		{"other", errors.New("something else"),
			"TransactWriteItems: something else"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := BriefSDK("TransactWriteItems", tt.err)
			assert.Equal(t, tt.want, err.Error(), "the brief message of %v", tt.err)
			assert.ErrorIs(t, err, tt.err, "the SDK's error is reachable through the brief one")
		})
	}
	assert.NoError(t, BriefSDK("PutItem", nil), "BriefSDK(nil) = nil")
}

func TestSDKErrorReachesReasons(t *testing.T) {
	codes := []string{"None", "ValidationError", "None"}
	var rs []types.CancellationReason
	for _, c := range codes {
		rs = append(rs, types.CancellationReason{Code: aws.String(c), Message: aws.String("detail of " + c)})
	}
	err := fmt.Errorf("outer: %w", BriefSDK("TransactWriteItems", &types.TransactionCanceledException{CancellationReasons: rs}))
	var tce *types.TransactionCanceledException
	if assert.ErrorAs(t, err, &tce, "errors.As reaches the SDK's TransactionCanceledException") {
		assert.Len(t, tce.CancellationReasons, len(codes), "every cancellation reason is kept")
		assert.Equal(t, "detail of ValidationError", aws.ToString(tce.CancellationReasons[1].Message), "each reason's message is kept")
	}
}
