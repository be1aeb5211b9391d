package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/batch"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// TestADeepQueueIsReadAhead: a source's deep queue runs whole and in
// order, reading the store once per batch.ReadAhead invocations, not once per
// batch.
func TestADeepQueueIsReadAhead(t *testing.T) {
	t.Parallel()
	queues := &countingQueues{}
	const n = 2*batch.ReadAhead + 7
	te := newTestEngine(t, func(c *Config) {
		queues.Queues = c.Queues
		c.Queues = queues
		c.EventsKept = 2 * n
	})
	src := te.deploy(te.saveComponent("echo", echo(component.Metadata{})), nil)
	for i := range n {
		inv := model.Invocation{TargetID: src.ID, Kind: kindManual, Event: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))}
		if _, err := te.st.EnqueueInvocation(ctx, inv); err != nil {
			t.Fatal(err)
		}
	}
	reads := queues.reads.Load()
	te.workers.Kick(model.SourceTarget(src.ID))
	var events []model.Event
	waitFor(t, fmt.Sprintf("%d events", n), func() bool {
		var err error
		events, err = te.st.ListEvents(ctx, src.ID, "", 2*n)
		return err == nil && len(events) >= n
	})
	waitFor(t, "the runs to be committed", te.workers.Idle)
	for i, ev := range events {
		if want := fmt.Sprintf(`{"n":%d}`, n-1-i); string(ev.Data) != want { // newest first
			t.Fatalf("event %d = %s, want %s", i, ev.Data, want)
		}
	}
	// A batch finding the queue deep, then reads of batch.ReadAhead, and one
	// finding it empty.
	if got := queues.reads.Load() - reads; got > n/batch.ReadAhead+2 {
		t.Errorf("%d reads of the queue for %d invocations, want at most %d", got, n, n/batch.ReadAhead+2)
	}
}

// countingQueues counts the reads of the queue.
type countingQueues struct {
	store.Queues
	reads atomic.Int64
}

func (q *countingQueues) PendingInvocations(ctx context.Context, sourceID string, limit int) ([]model.Invocation, error) {
	q.reads.Add(1)
	return q.Queues.PendingInvocations(ctx, sourceID, limit)
}
