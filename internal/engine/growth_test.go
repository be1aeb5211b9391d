package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/batch"
	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/store"
)

// channelEmitter emits one event to each of the channels named
// <prefix><i> for i in [from, to) of its event, then one to the default
// channel.
func channelEmitter() *fakeComponent {
	return &fakeComponent{run: func(ctx context.Context, _ *fakeSource, event json.RawMessage, caps sandbox.Capabilities) error {
		var e struct {
			Prefix   string
			From, To int
		}
		_ = json.Unmarshal(event, &e)
		for i := e.From; i < e.To; i++ {
			if err := emitTo(ctx, caps, fmt.Sprint(e.Prefix, i), i); err != nil {
				return err
			}
		}
		return emitTo(ctx, caps, "", "default")
	}}
}

func (te *testEngine) channels(sourceID string) []string {
	te.t.Helper()
	chs, err := te.st.Channels(ctx, sourceID)
	if err != nil {
		te.t.Fatal(err)
	}
	return slices.DeleteFunc(chs, emit.ReservedChannel)
}

func (te *testEngine) runNow(sourceID string, event any) {
	te.t.Helper()
	b, _ := json.Marshal(event)
	if err := te.RunNow(ctx, sourceID, b); err != nil {
		te.t.Fatal(err)
	}
}

// TestChannelLimits: a run adds at most emit.NewChannelsPerRun channels, a
// source has at most MaxChannels, emits past them are dropped with one
// $errors event that names the limits, and the rest of the run is kept.
func TestChannelLimits(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, func(c *Config) { c.MaxChannels = 30 })
	src := te.deploy(te.saveComponent("channels", channelEmitter()), nil)

	te.runNow(src.ID, map[string]any{"prefix": "a", "from": 0, "to": 1000})
	errs := te.waitEvents(src.ID, model.ChannelErrors, 1)
	if got := te.channels(src.ID); len(got) != emit.NewChannelsPerRun {
		t.Errorf("%d channels after a run, want %d", len(got), emit.NewChannelsPerRun)
	}
	msg := string(errs[0].Data)
	for _, want := range []string{"ChannelLimitError", "980 emits to 980 new channels were dropped", "at most 30 channels", "at most 20"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the $errors event %s does not say %q", msg, want)
		}
	}
	if n := len(te.events(src.ID, "")); n != 1 {
		t.Errorf("the default channel has %d events, want the run's 1", n)
	}

	// Channels the source has take emits; new ones only up to 30.
	te.runNow(src.ID, map[string]any{"prefix": "a", "from": 0, "to": 40})
	te.waitEvents(src.ID, model.ChannelErrors, 2)
	if got := te.channels(src.ID); len(got) != 30 {
		t.Errorf("%d channels, want 30", len(got))
	}
	if n := len(te.events(src.ID, "a5")); n != 2 {
		t.Errorf("a channel the source had holds %d events, want 2", n)
	}
	te.runNow(src.ID, map[string]any{"prefix": "a", "from": 0, "to": 30})
	te.waitEvents(src.ID, "", 3)
	waitFor(t, "the worker to finish", te.workers.Idle)
	if n := len(te.events(src.ID, model.ChannelErrors)); n != 2 {
		t.Errorf("a run within the limits made an $errors event (%d in all)", n)
	}
}

// TestChannelLimitsHoldAcrossABatch: runs committed together share the
// source's budget of channels, and a hook's emits are bounded too.
func TestChannelLimitsHoldAcrossABatch(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, func(c *Config) { c.MaxChannels = 30 })
	hooked := channelEmitter()
	hooked.hooks = map[string]func(context.Context, *fakeSource, sandbox.Capabilities) error{
		component.HookDeploy: func(ctx context.Context, _ *fakeSource, caps sandbox.Capabilities) error {
			for i := range 50 {
				if err := emitTo(ctx, caps, fmt.Sprint("hook", i), i); err != nil {
					return err
				}
			}
			return nil
		},
	}
	src := te.deploy(te.saveComponent("hooked", hooked), nil)
	if got := te.channels(src.ID); len(got) != emit.NewChannelsPerRun {
		t.Errorf("%d channels after the deploy hook, want %d", len(got), emit.NewChannelsPerRun)
	}
	if n := len(te.events(src.ID, model.ChannelErrors)); n != 1 {
		t.Errorf("%d $errors events after the deploy hook, want 1", n)
	}
	// Queued together, so that one batch runs them.
	for i := range 4 {
		ev, _ := json.Marshal(map[string]any{"prefix": fmt.Sprint("b", i, "-"), "from": 0, "to": 20})
		if _, err := te.st.EnqueueInvocation(ctx, model.Invocation{TargetID: src.ID, Kind: kindManual, Event: ev}); err != nil {
			t.Fatal(err)
		}
	}
	te.runNow(src.ID, map[string]any{})
	te.waitEvents(src.ID, "", 5)
	waitFor(t, "the worker to finish", te.workers.Idle)
	if got := te.channels(src.ID); len(got) != 30 {
		t.Errorf("%d channels, want 30", len(got))
	}
}

// TestConsoleLinesPerRunAreBounded: a run printing more than emit.MaxLogLines
// lines keeps emit.MaxLogLines and one line that says the rest was dropped.
func TestConsoleLinesPerRunAreBounded(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, func(c *Config) { c.EventsKept = 5000 })
	src := te.deploy(te.saveComponent("printer", &fakeComponent{run: func(ctx context.Context, _ *fakeSource, _ json.RawMessage, caps sandbox.Capabilities) error {
		for range 3 * emit.MaxLogLines {
			if err := caps.Log.Log(ctx, sandbox.LogEntry{Level: "info"}); err != nil {
				return err
			}
		}
		return nil
	}}), nil)
	te.runNow(src.ID, nil)
	te.waitEvents(src.ID, emit.ChannelLogs, 1)
	waitFor(t, "the worker to finish", te.workers.Idle)
	logs, err := te.st.ListEvents(ctx, src.ID, emit.ChannelLogs, 5000)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != emit.MaxLogLines+1 || !strings.Contains(string(logs[0].Data), "were dropped") {
		t.Errorf("%d console lines kept, the newest %s; want %d and a notice", len(logs), logs[0].Data, emit.MaxLogLines+1)
	}
}

// committing counts what each CompleteRuns of a queue is given.
type committing struct {
	store.Queues
	mu    sync.Mutex
	bytes []int // per call
}

func (q *committing) CompleteRuns(ctx context.Context, runs []store.CompletedRun) ([][]model.Event, error) {
	n := 0
	for _, r := range runs {
		n += batch.CommitBytes(r.Commit)
	}
	q.mu.Lock()
	q.bytes = append(q.bytes, n)
	q.mu.Unlock()
	return q.Queues.CompleteRuns(ctx, runs)
}

// committed is how many bytes of results the calls were given.
func (q *committing) committed() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for _, b := range q.bytes {
		n += b
	}
	return n
}

// TestBatchIsBoundedInBytes: a batch whose runs emit a lot is committed
// as its results reach batch.MaxBytes, not held whole until its end.
func TestBatchIsBoundedInBytes(t *testing.T) {
	t.Parallel()
	q := &committing{}
	te := newTestEngine(t, func(c *Config) { q.Queues = c.Queues; c.Queues = q })
	const runs, perRun = 8, 3 << 20
	src := te.deploy(te.saveComponent("big", &fakeComponent{run: func(ctx context.Context, _ *fakeSource, _ json.RawMessage, caps sandbox.Capabilities) error {
		return emitTo(ctx, caps, "", strings.Repeat("x", perRun))
	}}), nil)
	for range runs - 1 {
		if _, err := te.st.EnqueueInvocation(ctx, model.Invocation{TargetID: src.ID, Kind: kindManual}); err != nil {
			t.Fatal(err)
		}
	}
	te.runNow(src.ID, nil)
	// Waited for by what was committed: reading back 24 MiB of events
	// at every poll, under the race detector on a busy machine, took
	// longer than the runs.
	waitFor(t, "the runs' results to be committed", func() bool { return q.committed() >= runs*perRun })
	waitFor(t, "the worker to finish", te.workers.Idle)
	if n, err := te.st.CountEvents(ctx, src.ID, ""); err != nil || n != runs {
		t.Fatalf("%d events stored (%v), want %d", n, err, runs)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.bytes) < runs*perRun/batch.MaxBytes {
		t.Errorf("%d commits of %v bytes for %d MiB of results, want one per %d MiB at least", len(q.bytes), q.bytes, runs*perRun>>20, batch.MaxBytes>>20)
	}
	for _, n := range q.bytes {
		if n > batch.MaxBytes+perRun+1024 {
			t.Errorf("a commit of %d bytes", n)
		}
	}
}

// FuzzErrorEvent: whatever a component throws and whatever triggered the
// run, the $errors event is valid JSON within its bound, and a text is
// cut at a character boundary, never in a character.
func FuzzErrorEvent(f *testing.F) {
	f.Add("TypeError", "bad", "at x", []byte(`{"n":1}`), 1)
	f.Add("é", strings.Repeat("\xff\x00é", 5000), strings.Repeat("s", 20000), []byte(`"x"`), 70000)
	f.Add(strings.Repeat("é", 200), strings.Repeat("\x80", 10000), strings.Repeat("日本", 5000), []byte(`1`), 0)
	f.Fuzz(func(t *testing.T, name, message, stack string, event []byte, pad int) {
		if !json.Valid(event) {
			event = []byte(`null`)
		}
		if pad = pad % (1 << 20); pad > 0 {
			event = []byte(fmt.Sprintf(`{"pad":%q}`, strings.Repeat("p", pad)))
		}
		err := &sandbox.ScriptError{GuestError: abi.GuestError{Name: name, Message: message, Stack: stack}}
		ev := emit.ErrorEvent(err, model.Invocation{Kind: model.InvocationHTTP, Event: event})
		if !json.Valid(ev.Data) || len(ev.Data) > 256<<10 {
			t.Fatalf("an $errors event of %d bytes, valid JSON: %v", len(ev.Data), json.Valid(ev.Data))
		}
		for _, tt := range []struct {
			s string
			n int
		}{{name, emit.MaxErrorName}, {message, emit.MaxErrorMessage}, {stack, emit.MaxErrorStack}} {
			got := emit.CapText(tt.s, tt.n)
			if len(tt.s) <= tt.n {
				if got != tt.s {
					t.Fatalf("capText changed a text within its cap: %q", got)
				}
				continue
			}
			kept, _, ok := strings.Cut(got, "… [truncated: ")
			if !ok || len(kept) > tt.n || len(kept) <= tt.n-utf8.UTFMax || !strings.HasPrefix(tt.s, kept) ||
				(utf8.ValidString(tt.s) && !utf8.RuneStart(tt.s[len(kept)])) {
				t.Fatalf("capText cut %d bytes to %q", len(tt.s), got)
			}
		}
	})
}
