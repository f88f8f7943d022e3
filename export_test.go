package dynamoseq

import "time"

// The strategies' figures in full, for the tests: those of Stats and the
// ones Stats leaves out (batches, turns, leases...).
type (
	CounterFigures  = counterFigures
	BlockFigures    = blockFigures
	AppendFigures   = appendFigures
	CapacityFigures = capacityFigures
	ErrorFigures    = errorFigures
	IDParts         = idParts
)

func (c *Counter) Figures() CounterFigures { return c.figures() }
func (b *Block) Figures() BlockFigures     { return b.figures() }
func (s *SortKey) Figures() AppendFigures  { return s.stats.stats() }
func (l *Latest) Figures() AppendFigures   { return l.stats.stats() }

// ShareRate is the rate of the Counter's table share, estimated (see
// engine.Share.Rate).
func (c *Counter) ShareRate() float64 { return c.share.Rate() }

func (f counterFigures) Capacity() CapacityFigures { return f.capacityFigures }
func (f appendFigures) Capacity() CapacityFigures  { return f.capacityFigures }

// Parse and ExpiresAt let the tests check the IDs and the TTLs a minter
// writes.
func (m *IDMinter) Parse(id string) (idParts, error)     { return m.parse("IDMinter.Parse", id) }
func (m *IDMinter) ExpiresAt(t time.Time) (int64, error) { return m.expiresAt(t) }
func (m *SortKeyIDMinter) Parse(id string) (idParts, error) {
	return m.parse("SortKeyIDMinter.Parse", id)
}

// ParseParts is Parse, its answer in one value.
func (f Format) ParseParts(id string, loc *time.Location) (IDParts, error) {
	date, n, err := f.Parse(id, loc)
	return IDParts{Date: date, Number: n}, err
}

// BlockClock sets the clock a Block's range sizes follow with Lifetime.
func BlockClock(now func() time.Time) func(*BlockOptions) {
	return func(o *BlockOptions) { o.now = now }
}

// SetKeyClock sets the clock of the idempotency keys' window.
func SetKeyClock(t *Table, now func() time.Time) { t.clock = &keyClock{now: now} }

// ContentHash is the hash a key item keeps of a call's content.
var ContentHash = contentHash
