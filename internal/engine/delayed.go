package engine

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/model"
)

// Delayed emits wait on a source's $in channel (store.ChannelDelayed) as
// delayedRecords. The delayedScheduler keeps, per source, the earliest
// due time it knows of; when it comes, a release invocation is queued, and
// the source's worker moves every due event from $in to its channel in one
// commit (releaseCommit). A restart rebuilds the due times from the stored
// $in channels, so delays survive it; an event deleted from $in before its
// time is cancelled.

// delayedVersion is the version of delayedRecord this code writes.
const delayedVersion = 1

// delayedRecord is a delayed emit as the engine stores it on $in: the
// engine's own record, versioned, so that the ABI's wire type can change
// without touching stored data.
type delayedRecord struct {
	Version int             `json:"v"`
	DueMs   int64           `json:"due_ms"`
	Name    string          `json:"name,omitempty"`
	Summary string          `json:"summary,omitempty"`
	Event   json.RawMessage `json:"event,omitempty"`
	ID      string          `json:"id,omitempty"` // the emit's dedupe id
	// Paused, when set, makes the record a workflow's paused execution
	// rather than an emit.
	Paused *pausedExecution `json:"paused,omitempty"`
}

// newDelayedRecord records em, due at em.DeliveryTS.
func newDelayedRecord(em abi.Emit) delayedRecord {
	return delayedRecord{Version: delayedVersion, DueMs: *em.DeliveryTS, Name: em.Name, Summary: em.Summary, Event: em.Event, ID: em.IDString()}
}

// decodeDelayed reads a stored delayed emit: a delayedRecord, or the
// abi.Emit that fount stored before the record existed.
func decodeDelayed(data []byte) (delayedRecord, error) {
	var head struct {
		Version int `json:"v"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return delayedRecord{}, fmt.Errorf("delayed emit: %w", err)
	}
	switch head.Version {
	case delayedVersion:
		var r delayedRecord
		if err := json.Unmarshal(data, &r); err != nil {
			return r, fmt.Errorf("delayed emit: %w", err)
		}
		return r, nil
	case 0: // the ABI's Emit, written before records were versioned
		var em abi.Emit
		if err := json.Unmarshal(data, &em); err != nil || em.DeliveryTS == nil {
			return delayedRecord{}, fmt.Errorf("delayed emit without a version or delivery time")
		}
		return newDelayedRecord(em), nil
	}
	return delayedRecord{}, fmt.Errorf("delayed emit of unknown version %d", head.Version)
}

// event is the emit the record releases.
func (r delayedRecord) event() model.Event {
	data := r.Event
	if len(data) == 0 {
		data = json.RawMessage("null")
	}
	return model.Event{Name: r.Name, EmitID: newEmitID(), DedupeID: r.ID, Summary: r.Summary, Data: data}
}

// delayedScheduler queues the release of delayed emits when they come due.
// Its loop ticks every delayTick; Stop ends it and waits.
type delayedScheduler struct {
	clock   Clock
	log     *slog.Logger
	release func(sourceID string) error // queues a release invocation

	mu   sync.Mutex
	due  map[string]int64 // earliest due time per source, epoch ms
	stop chan struct{}
	wg   sync.WaitGroup
}

// delayTick is how often due emits are looked for: their precision.
const delayTick = 100 * time.Millisecond

func newDelayedScheduler(clock Clock, log *slog.Logger, release func(string) error) *delayedScheduler {
	return &delayedScheduler{clock: clock, log: log, release: release, due: map[string]int64{}}
}

// Start starts the loop.
func (d *delayedScheduler) Start() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stop != nil {
		return
	}
	d.stop = make(chan struct{})
	tick := d.clock.NewTicker(delayTick)
	d.wg.Add(1)
	go func(stop chan struct{}) {
		defer d.wg.Done()
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-tick.C():
				d.releaseDue(now)
			}
		}
	}(d.stop)
}

// Stop ends the loop and waits for it; it is safe to call twice.
func (d *delayedScheduler) Stop() {
	d.mu.Lock()
	stop := d.stop
	d.stop = nil
	d.mu.Unlock()
	if stop != nil {
		close(stop)
	}
	d.wg.Wait()
}

// note records that a source has an event due at dueMs.
func (d *delayedScheduler) note(sourceID string, dueMs int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if cur, ok := d.due[sourceID]; !ok || dueMs < cur {
		d.due[sourceID] = dueMs
	}
}

// forget drops a source (deleted).
func (d *delayedScheduler) forget(sourceID string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.due, sourceID)
}

// releaseDue queues the release of every source with an event due by now.
// A release that cannot be queued is tried again on the next tick.
func (d *delayedScheduler) releaseDue(now time.Time) {
	var due []string
	d.mu.Lock()
	for id, at := range d.due {
		if at <= now.UnixMilli() {
			due = append(due, id)
			delete(d.due, id)
		}
	}
	d.mu.Unlock()
	for _, id := range due {
		if err := d.release(id); err != nil {
			d.log.Error("queue the release of delayed events", "source", id, "err", err)
			d.note(id, now.UnixMilli())
		}
	}
}
