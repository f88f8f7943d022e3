package dynamoseqtest

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// In the narrow conflict model a meeting conflicts by chance; a single
// write that meets a transaction still preparing cancels it and is
// carried out; one that meets a prepared transaction is refused. The
// wide model refuses every meeting.
func TestNarrowConflicts(t *testing.T) {
	tab := &tableInfo{name: "t"}
	x := target{table: tab, part: "S:x", item: "x"}
	prepared := &admission{prepared: time.Now().Add(-time.Second), keys: []string{"t\x00x"}}
	m := &model{rules: rules{conflicts: 0.3}, crnd: rand.New(rand.NewPCG(1, 2)),
		holds: map[string]*hold{"t\x00x": {transact: 1, txns: []*admission{prepared}}}}
	tx := &request{op: opTransactWrite, targets: []target{x}}
	n := 0
	for range 10000 {
		if m.conflicts(tx) != nil {
			n++
		}
	}
	require.InDelta(t, 3000, n, 200, "transactions of 10,000 that met one in flight and conflicted, at a chance of 0.3")

	m.rules.conflicts = 1
	put := &request{op: opPut, targets: []target{x}}
	require.Equal(t, []int{0}, m.conflicts(put), "a put meeting a prepared transaction: refused")
	require.Empty(t, prepared.doomed)

	preparing := &admission{prepared: time.Now().Add(time.Hour), keys: []string{"t\x00y", "t\x00x"}}
	m.holds["t\x00x"].txns = append(m.holds["t\x00x"].txns, preparing)
	require.Nil(t, m.conflicts(put), "a put meeting a transaction still preparing: carried out")
	require.Equal(t, []int{1}, preparing.doomed, "the indexes of the preparing transaction that the put cancelled")

	m.rules.conflicts = 0
	preparing.doomed = nil
	require.Equal(t, []int{0}, m.conflicts(put), "the wide model: a put meeting a transaction is refused")
	require.Empty(t, preparing.doomed, "the wide model cancels no transaction")
	require.Equal(t, []int{0}, m.conflicts(tx), "the wide model: a transaction meeting one always conflicts")
}
