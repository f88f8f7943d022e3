package dynamoseq_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dynamoseq/dynamoseq"
	"github.com/dynamoseq/dynamoseq/internal/testsupport/answer"
)

// keyItemJSON is a key item of the key k on the sequence n, stored by a
// caller of the kind kind ("s", "l", "c"), naming number 7, with the
// content hash hash, as DynamoDB returns it in JSON.
func keyItemJSON(kind, hash string) string {
	return `{"pk":{"S":"n\u001f` + kind + `\u001fk"},"sk":{"N":"0"},"dynamoseq_key":{"S":"` + hash + `"},"dynamoseq_n":{"N":"7"},` +
		`"dynamoseq_seq":{"S":"n"},"dynamoseq_tok":{"S":"another request"},"dynamoseq_kind":{"S":"` + kind + `"},"expires":{"N":"4102444800"}}`
}

// TestOnceOneDecision: the keyed write paths, given the answer that the
// key is held (engine.Decide's KeyTaken, through the real SDK), return the
// holder's number as a replay when the content is the same, and
// ErrKeyReused when it is not; without any further request.
func TestOnceOneDecision(t *testing.T) {
	calls := map[string]func(c dynamoseq.Client) (int64, bool, error){
		"SortKey": func(c dynamoseq.Client) (int64, bool, error) {
			s, err := dynamoseq.NewSortKey(c, "table", func(o *dynamoseq.SortKeyOptions) { quick(&o.Retry) })
			if err != nil {
				return 0, false, err
			}
			return s.AppendOnce(context.Background(), "n", "k", nil)
		},
		"Latest": func(c dynamoseq.Client) (int64, bool, error) {
			l, err := dynamoseq.NewLatest(c, "table", func(o *dynamoseq.LatestOptions) { quick(&o.Retry) })
			if err != nil {
				return 0, false, err
			}
			return l.AppendOnce(context.Background(), "n", "k", nil)
		},
		"Counter": func(c dynamoseq.Client) (int64, bool, error) {
			n, err := dynamoseq.NewCounter(c, "table", func(o *dynamoseq.CounterOptions) { quick(&o.Retry) })
			if err != nil {
				return 0, false, err
			}
			return n.NextOnce(context.Background(), "n", "k")
		},
	}
	for name, call := range calls {
		for _, same := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/same content %t", name, same), func(t *testing.T) {
				t.Parallel()
				hash := dynamoseq.ContentHash(nil)
				if !same {
					hash = "sha256:other content"
				}
				item := keyItemJSON(map[string]string{"SortKey": "s", "Latest": "l", "Counter": "c"}[name], hash)
				if name == "Counter" { // a table without a sort key
					item = strings.Replace(item, `"sk":{"N":"0"},`, "", 1)
				}
				n, replayed, err := call(answering(func(r *http.Request) (*http.Response, error) {
					switch target := r.Header.Get("X-Amz-Target"); {
					case strings.HasSuffix(target, ".UpdateItem"):
						return answer.JSON(200, `{"Attributes":{"value":{"N":"12"}}}`)(r)
					case strings.HasSuffix(target, ".PutItem"):
						return answer.JSON(400, `{"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException","message":"failed","Item":`+item+`}`)(r)
					}
					return answer.JSON(400, `{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","message":"cancelled",`+
						`"CancellationReasons":[{"Code":"None"},{"Code":"None"},{"Code":"ConditionalCheckFailed","Item":`+item+`}]}`)(r)
				}))
				if same {
					if err != nil || n != 7 || !replayed {
						t.Errorf("the key held with the same content: (%d, %t, %v), want (7, true, nil)", n, replayed, err)
					}
					return
				}
				assert.True(t, errors.Is(err, dynamoseq.ErrKeyReused), "the key held with other content: (%d, %t, %v), want ErrKeyReused", n, replayed, err)
			})
		}
	}
}
