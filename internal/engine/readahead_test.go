package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/clock"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

func TestAheadSet(t *testing.T) {
	t.Parallel()
	invs := func(n, size int) []model.Invocation {
		out := make([]model.Invocation, n)
		for i := range out {
			out[i] = model.Invocation{ID: fmt.Sprint(i), Event: json.RawMessage(strings.Repeat("x", size))}
		}
		return out
	}
	ids := func(invs []model.Invocation) string {
		var out []string
		for _, inv := range invs {
			out = append(out, inv.ID)
		}
		return strings.Join(out, ",")
	}
	tests := []struct {
		name  string
		kept  []model.Invocation
		after time.Duration // between keep and the takes
		drop  bool
		takes []string // what each take of 2 returns
	}{
		{"in order, then none", invs(5, 1), 0, false, []string{"0,1", "2,3", "4", ""}},
		{"stale", invs(5, 1), readAheadFor + time.Millisecond, false, []string{""}},
		{"fresh at the bound", invs(3, 1), readAheadFor, false, []string{"0,1", "2"}},
		{"dropped", invs(5, 1), 0, true, []string{""}},
		{"bounded in bytes", invs(5, readAheadBytes/2), 0, false, []string{"0,1", ""}},
		{"nothing", nil, 0, false, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := clock.NewFake()
			s := newAheadSet(clk)
			s.keep("dc_1", tt.kept, clk.Now())
			clk.Advance(tt.after)
			if tt.drop {
				s.drop("dc_1")
			}
			for i, want := range tt.takes {
				if got := ids(s.take("dc_1", 2)); got != want {
					t.Errorf("take %d = %q, want %q", i, got, want)
				}
			}
			if got := s.take("dc_other", 2); got != nil {
				t.Errorf("another source's take = %v", got)
			}
		})
	}
}

// TestAheadSetBounds: every source's read-ahead together stays under
// readAheadTotal, and a source reads ahead only once its queue was found
// deep.
func TestAheadSetBounds(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake()
	s := newAheadSet(clk)
	big := []model.Invocation{{ID: "1", Event: json.RawMessage(strings.Repeat("x", readAheadBytes))}}
	for i := range readAheadTotal / readAheadBytes {
		s.keep(fmt.Sprint("dc_", i), big, clk.Now())
	}
	s.keep("dc_past", big, clk.Now())
	if got := s.take("dc_past", 1); got != nil {
		t.Errorf("kept %d invocations past readAheadTotal", len(got))
	}
	if got := s.take("dc_0", 1); len(got) != 1 {
		t.Fatalf("dc_0 kept %d invocations, want one", len(got))
	}
	s.keep("dc_past", big, clk.Now()) // dc_0's room is free again
	if got := s.take("dc_past", 1); len(got) != 1 {
		t.Errorf("after a take, kept %d invocations, want one", len(got))
	}

	steps := []struct {
		got, limit int // a read's result, and what it asked
		want       int // the next read's limit
	}{
		{0, 0, batchSize},
		{batchSize - 1, batchSize, batchSize},
		{batchSize, batchSize, readAhead},
		{readAhead, readAhead, readAhead},
		{3, readAhead, batchSize},
	}
	for i, st := range steps {
		if st.limit > 0 {
			s.read("dc_q", st.got, st.limit)
		}
		if got := s.limit("dc_q", batchSize); got != st.want {
			t.Errorf("step %d: limit %d, want %d", i, got, st.want)
		}
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

// TestADeepQueueIsReadAhead: a source's deep queue runs whole and in
// order, reading the store once per readAhead invocations, not once per
// batch.
func TestADeepQueueIsReadAhead(t *testing.T) {
	t.Parallel()
	queues := &countingQueues{}
	const n = 2*readAhead + 7
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
	// A batch finding the queue deep, then reads of readAhead, and one
	// finding it empty.
	if got := queues.reads.Load() - reads; got > n/readAhead+2 {
		t.Errorf("%d reads of the queue for %d invocations, want at most %d", got, n, n/readAhead+2)
	}
}
