package dynamoseq

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// keyItemAt is where a keyed call's key item is: the client that reads it
// (a strategy's reads, which wait out throttles), its table and its key.
type keyItemAt struct {
	client Client
	table  string
	key    map[string]types.AttributeValue
}

// recallable reports whether err, the error of a keyed call, may hide a
// replay: the call failed before its key item was consulted, or without
// settling it (ErrExhausted: the sequence is full, yet the first call's
// number is stored; ErrThrottled, ErrContention: nothing was written).
func recallable(err error) bool {
	return errors.Is(err, ErrExhausted) || errors.Is(err, ErrThrottled) || errors.Is(err, ErrContention)
}

// recall answers a keyed call that failed with cause: when cause is
// recallable, it reads the key item of k at at with one strongly
// consistent GetItem (one read unit, one round trip) and answers from it:
// ok is true when the key is held within its window, with the first
// call's record (a replay) or settle's error (ErrKeyReused,
// ErrTableMismatch). ok is false when cause is not recallable, the key is
// free or the read failed: the caller keeps cause. Only keyed calls that
// failed pay for it.
func (k *idemKey) recall(ctx context.Context, at keyItemAt, cause error) (rec keyRecord, ok bool, err error) {
	if !recallable(cause) {
		return keyRecord{}, false, nil
	}
	out, gerr := at.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(at.table),
		Key:            at.key,
		ConsistentRead: aws.Bool(true),
	})
	if gerr != nil || len(out.Item) == 0 {
		return keyRecord{}, false, nil
	}
	if exp, perr := parseNumber(out.Item[k.ttl]); perr != nil || exp < k.now().Unix() {
		return keyRecord{}, false, nil // the key's window is over: it is free
	}
	rec, err = k.settle(out.Item, "")
	return rec, true, err
}
