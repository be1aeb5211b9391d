package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/engine/delayed"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
)

// delayer emits its event with the delivery time the run event asks for.
func delayer() *fakeComponent {
	return &fakeComponent{run: func(ctx context.Context, f *fakeSource, event json.RawMessage, caps sandbox.Capabilities) error {
		var e struct {
			Due  int64  `json:"due"`
			Name string `json:"name"`
		}
		_ = json.Unmarshal(event, &e)
		return caps.Emit.Emit(ctx, abi.Emit{Event: json.RawMessage(`"` + e.Name + `"`), Name: "", DeliveryTS: &e.Due})
	}}
}

// TestDelayedEmitReleaseAndCancel: a delayed emit waits on $in until its
// time, then moves to its channel; one deleted from $in before its time
// is never released.
func TestDelayedEmitReleaseAndCancel(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	src := te.deploy(te.saveComponent("delayer", delayer()), nil)
	now := te.clock.Now()
	for _, e := range []struct {
		name string
		due  time.Time
	}{{"soon", now.Add(time.Minute)}, {"cancelled", now.Add(2 * time.Minute)}, {"later", now.Add(time.Hour)}} {
		ev, _ := json.Marshal(map[string]any{"due": e.due.UnixMilli(), "name": e.name})
		if err := te.RunNow(ctx, src.ID, ev); err != nil {
			t.Fatal(err)
		}
	}
	waiting := te.waitEvents(src.ID, model.ChannelDelayed, 3)
	if len(te.events(src.ID, "")) != 0 {
		t.Fatal("a delayed emit was emitted at once")
	}
	var cancelled string
	for _, ev := range waiting {
		if strings.Contains(string(ev.Data), "cancelled") {
			cancelled = ev.ID
		}
	}
	if _, err := te.st.DeleteEvents(ctx, src.ID, model.ChannelDelayed, cancelled, cancelled); err != nil {
		t.Fatal(err)
	}
	// The due time is noted just after the commit that stored the events.
	waitFor(t, "the first due time to be noted", func() bool { return te.delayed.Due(model.SourceTarget(src.ID)) == now.Add(time.Minute).UnixMilli() })
	te.clock.Advance(3 * time.Minute)
	waitFor(t, "the release", func() bool {
		te.clock.Advance(delayed.Tick) // a tick the loop was not ready for is dropped, as time.Ticker's are
		return len(te.events(src.ID, "")) >= 1 && te.workers.Idle()
	})
	evs := te.events(src.ID, "")
	if len(evs) != 1 || string(evs[0].Data) != `"soon"` {
		t.Fatalf("released %+v, want only soon", evs)
	}
	if left := te.events(src.ID, model.ChannelDelayed); len(left) != 1 || !strings.Contains(string(left[0].Data), "later") {
		t.Errorf("left on $in: %+v", left)
	}
}

// TestDelayedEmitsSurviveARestart: the due times are rebuilt from $in.
func TestDelayedEmitsSurviveARestart(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	src := te.deploy(te.saveComponent("delayer", delayer()), nil)
	ev, _ := json.Marshal(map[string]any{"due": te.clock.Now().Add(time.Minute).UnixMilli(), "name": "after-restart"})
	if err := te.RunNow(ctx, src.ID, ev); err != nil {
		t.Fatal(err)
	}
	te.waitEvents(src.ID, model.ChannelDelayed, 1)
	te.Stop()
	te.restart()
	te.clock.Advance(2 * time.Minute)
	var evs []model.Event
	waitFor(t, "the release after the restart", func() bool {
		te.clock.Advance(delayed.Tick)
		evs = te.events(src.ID, "")
		return len(evs) >= 1
	})
	if string(evs[0].Data) != `"after-restart"` {
		t.Errorf("released %s", evs[0].Data)
	}
}
