// Package replicator simulates the replication of a DynamoDB global table in
// multi-Region eventually consistent (MREC) mode between DynamoDB Local
// instances, which have no global tables: each instance stands for a Region.
//
// A Replicator tails the DynamoDB Stream of the table in every Region and
// applies each change made there to every other Region after a delay, item
// by item, as global tables do. Conflicts are settled by last writer wins,
// per item: a write made in a Region gets a timestamp when the Replicator
// reads it from that Region's stream (a logical clock, increasing in the
// order the Replicator reads writes), and a Region keeps the write with the
// later timestamp. A change is applied with a condition that the item is
// still what the Replicator last saw there; when it is not, the Region holds
// a write the Replicator has yet to read, which will get a later timestamp,
// and the change is dropped. So every Region ends with the same item, the
// one written last, and a write that loses is lost without a trace, as on a
// real MREC table.
//
// The writes a Replicator makes come back in the destination's stream; it
// recognises them (it remembers what it wrote, per item, in order) and does
// not replicate them again.
//
// Limits: the tables must be empty when it starts and have a stream with
// NEW_IMAGE or NEW_AND_OLD_IMAGES. A local write that leaves an item exactly
// as a replicated write left it is taken for that write's echo (it changes
// nothing). One Replicator serves one table name.
package replicator

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamoseq/dynamoseq/internal/ddblocal"
)

// Region is one DynamoDB Local instance standing for a Region.
type Region struct {
	Name     string
	Endpoint string
}

// Stats are cumulative counts of a Replicator's work.
type Stats struct {
	Local      int64 // writes read from the Regions' streams, made by their clients
	Replicated int64 // changes written to another Region
	Superseded int64 // changes dropped because the destination held a later write
}

// pollEvery is how often the streams are read.
const pollEvery = 25 * time.Millisecond

// Replicator copies the changes of one table between Regions. Its one
// goroutine owns all its state; Close stops it.
type Replicator struct {
	table   string
	delay   time.Duration
	regions []*region

	settle    chan chan error
	stop      chan struct{}
	cancel    context.CancelFunc // ends the calls the goroutine is making
	done      chan struct{}
	closeOnce sync.Once
	err       error // why the goroutine stopped early; read after done is closed

	local, replicated, superseded atomic.Int64

	// Owned by the goroutine.
	clock int64     // the last timestamp given to a write
	queue []*change // changes waiting for their time, in the order of due
}

// change is a write of one Region, to be applied to another.
type change struct {
	due   time.Time
	to    *region
	id    string                          // the item's key, fingerprinted
	key   map[string]types.AttributeValue // the item's key
	image map[string]types.AttributeValue // the item after the write; nil when deleted
	stamp int64
}

// item is what the Replicator knows of one item in one Region.
type item struct {
	stamp  int64                           // timestamp of the write the Region holds
	image  map[string]types.AttributeValue // the item as last seen or written; nil when absent
	echoes []string                        // fingerprints of writes made here whose records are still to come
}

// Start starts replicating table between the regions, each change applied
// after delay. The table must exist, empty, in every Region with a stream
// of NEW_IMAGE or NEW_AND_OLD_IMAGES. The caller must call Close.
func Start(ctx context.Context, table string, delay time.Duration, regions ...Region) (*Replicator, error) {
	if len(regions) < 2 {
		return nil, fmt.Errorf("replicator: %d Regions, want at least 2", len(regions))
	}
	r := &Replicator{
		table:  table,
		delay:  delay,
		settle: make(chan chan error),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	for _, g := range regions {
		reg, err := openRegion(ctx, g, table)
		if err != nil {
			return nil, err
		}
		r.regions = append(r.regions, reg)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go r.run(runCtx)
	return r, nil
}

// Settle waits until every change made so far has been applied in every
// Region, or dropped as superseded: the streams hold nothing new, no change
// waits for its time and every write the Replicator made has come back in
// its stream.
func (r *Replicator) Settle(ctx context.Context) error {
	reply := make(chan error, 1)
	select {
	case r.settle <- reply:
	case <-r.done:
		return r.stopped()
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stats returns the counts so far.
func (r *Replicator) Stats() Stats {
	return Stats{Local: r.local.Load(), Replicated: r.replicated.Load(), Superseded: r.superseded.Load()}
}

// Close stops replicating and returns the error that stopped it early, if
// any. Changes not yet applied are dropped. It is safe to call twice.
func (r *Replicator) Close() error {
	r.closeOnce.Do(func() {
		close(r.stop)
		r.cancel()
	})
	<-r.done
	return r.err
}

func (r *Replicator) stopped() error {
	if r.err != nil {
		return r.err
	}
	return errors.New("replicator: closed")
}

// run is the goroutine: it reads the streams, applies the changes that are
// due, and answers Settle once a round finds nothing left to do.
func (r *Replicator) run(ctx context.Context) {
	defer close(r.done)
	ticker := time.NewTicker(pollEvery)
	defer ticker.Stop()
	var waiting []chan error
	quiet := 0 // consecutive rounds that found nothing to do
	for {
		read, err := r.poll(ctx)
		if err == nil {
			err = r.applyDue(ctx)
		}
		if err != nil {
			if ctx.Err() == nil {
				r.err = err
			}
			for _, w := range waiting {
				w <- r.stopped()
			}
			return
		}
		if read == 0 && len(r.queue) == 0 && !r.echoesPending() {
			quiet++
		} else {
			quiet = 0
		}
		if quiet >= 2 { // two rounds, both after every waiter arrived
			for _, w := range waiting {
				w <- nil
			}
			waiting = nil
		}
		select {
		case <-r.stop:
			return
		case w := <-r.settle:
			waiting = append(waiting, w)
			quiet = 0
		case <-ticker.C:
		}
	}
}

// poll reads the new records of every Region and returns how many.
func (r *Replicator) poll(ctx context.Context) (int, error) {
	n := 0
	for _, reg := range r.regions {
		recs, err := reg.read(ctx)
		if err != nil {
			return n, err
		}
		for _, rec := range recs {
			r.record(reg, rec)
		}
		n += len(recs)
	}
	return n, nil
}

// record takes in one change read from the stream of reg: the echo of a
// write the Replicator made, or a write of reg's clients, which gets the
// next timestamp and is queued for every other Region.
func (r *Replicator) record(reg *region, rec streamRecord) {
	it := reg.item(rec.id)
	fp := fingerprint(rec.image)
	if len(it.echoes) > 0 && it.echoes[0] == fp {
		it.echoes = it.echoes[1:]
		return
	}
	r.local.Add(1)
	r.clock++
	it.stamp, it.image = r.clock, rec.image
	due := time.Now().Add(r.delay)
	for _, to := range r.regions {
		if to != reg {
			r.queue = append(r.queue, &change{due: due, to: to, id: rec.id, key: rec.key, image: rec.image, stamp: r.clock})
		}
	}
}

// applyDue applies the queued changes whose time has come.
func (r *Replicator) applyDue(ctx context.Context) error {
	now := time.Now()
	for len(r.queue) > 0 && !r.queue[0].due.After(now) {
		c := r.queue[0]
		r.queue = r.queue[1:]
		if err := r.apply(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// apply writes c to its Region unless the Region holds a later write.
func (r *Replicator) apply(ctx context.Context, c *change) error {
	it := c.to.item(c.id)
	if it.stamp > c.stamp {
		r.superseded.Add(1)
		return nil
	}
	fp := fingerprint(c.image)
	if fp == fingerprint(it.image) {
		it.stamp = c.stamp // nothing to write, and no record will come
		return nil
	}
	applied, err := c.to.write(ctx, r.table, c, it.image)
	if err != nil {
		return err
	}
	if !applied {
		// The Region holds a write not yet read from its stream: it will
		// get a later timestamp than c and win.
		r.superseded.Add(1)
		return nil
	}
	it.stamp, it.image = c.stamp, c.image
	it.echoes = append(it.echoes, fp)
	r.replicated.Add(1)
	return nil
}

func (r *Replicator) echoesPending() bool {
	for _, reg := range r.regions {
		for _, it := range reg.items {
			if len(it.echoes) > 0 {
				return true
			}
		}
	}
	return false
}

// openRegion connects to a Region and finds the table's stream.
func openRegion(ctx context.Context, g Region, table string) (*region, error) {
	reg := &region{
		name:    g.Name,
		db:      ddblocal.NewClient(g.Endpoint),
		streams: ddblocal.NewStreamsClient(g.Endpoint),
		shards:  map[string]*shard{},
		items:   map[string]*item{},
	}
	out, err := reg.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return nil, fmt.Errorf("replicator: Region %s: %w", g.Name, err)
	}
	spec := out.Table.StreamSpecification
	if out.Table.LatestStreamArn == nil || spec == nil || !aws.ToBool(spec.StreamEnabled) ||
		(spec.StreamViewType != types.StreamViewTypeNewImage && spec.StreamViewType != types.StreamViewTypeNewAndOldImages) {
		return nil, fmt.Errorf("replicator: Region %s: table %s needs a stream of NEW_IMAGE or NEW_AND_OLD_IMAGES", g.Name, table)
	}
	reg.arn = aws.ToString(out.Table.LatestStreamArn)
	return reg, nil
}
