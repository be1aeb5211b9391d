package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
)

// echo emits its run event on the default channel, with the id the event
// carries (for dedupe), and logs it.
func echo(meta component.Metadata) *fakeComponent {
	return &fakeComponent{meta: meta, run: func(ctx context.Context, f *fakeSource, event json.RawMessage, caps sandbox.Capabilities) error {
		var e struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(event, &e)
		if err := caps.Log.Log(ctx, sandbox.LogEntry{Time: time.Now(), Level: "info", Text: "got " + string(event)}); err != nil {
			return err
		}
		return caps.Emit.Emit(ctx, abi.Emit{Event: event, ID: e.ID})
	}}
}

func (te *testEngine) runAll(id string, events ...string) {
	te.t.Helper()
	for _, ev := range events {
		if err := te.RunNow(ctx, id, json.RawMessage(ev)); err != nil {
			te.t.Fatal(err)
		}
	}
}

func dataOf(evs []model.Event) string {
	var out []string
	for i := len(evs) - 1; i >= 0; i-- { // oldest first
		out = append(out, string(evs[i].Data))
	}
	return strings.Join(out, " ")
}

// TestDedupeCarriesAcrossRuns: the dedupe state survives from one run
// (and one batch) to the next.
func TestDedupeCarriesAcrossRuns(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	src := te.deploy(te.saveComponent("dedupe", echo(component.Metadata{Dedupe: component.DedupeUnique})), nil)
	te.runAll(src.ID, `{"id":1}`, `{"id":2}`, `{"id":1}`)
	te.waitEvents(src.ID, emit.ChannelLogs, 3)
	te.runAll(src.ID, `{"id":2}`, `{"id":3}`)
	te.waitEvents(src.ID, emit.ChannelLogs, 5)
	waitFor(t, "the runs to be committed", te.workers.Idle)
	if got := dataOf(te.events(src.ID, "")); got != `{"id":1} {"id":2} {"id":3}` {
		t.Errorf("emitted %s", got)
	}
}

// TestSourceToSourceAndTheHopLimit: events reach listener sources; a loop
// stops at the hop limit with an $errors event.
func TestSourceToSourceAndTheHopLimit(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, func(c *Config) { c.MaxHops = 3 })
	comp := te.saveComponent("relay", echo(component.Metadata{}))
	a, b := te.deploy(comp, nil), te.deploy(comp, nil)
	for _, s := range []model.Subscription{
		{ID: "sub_ab", OwnerID: "u_owner", EmitterID: a.ID, ListenerID: b.ID},
		{ID: "sub_ba", OwnerID: "u_owner", EmitterID: b.ID, ListenerID: a.ID},
	} {
		if _, err := te.st.PutSubscription(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	te.runAll(a.ID, `"ping"`)
	errs := te.waitEvents(b.ID, model.ChannelErrors, 1)
	if !strings.Contains(string(errs[0].Data), "limit of 3 hops") {
		t.Errorf("loop error %s", errs[0].Data)
	}
	waitFor(t, "the chain to end", te.workers.Idle)
	if na, nb := len(te.events(a.ID, "")), len(te.events(b.ID, "")); na != 2 || nb != 2 {
		t.Errorf("a emitted %d, b %d; want 2 each (hops 0 to 3)", na, nb)
	}
}

// TestInactiveSources: an inactive source has no endpoint or timer, and
// runs only manual runs; activating it brings them back.
func TestInactiveSources(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	comp := te.saveComponent("switch", echo(component.Metadata{ConfigurableProps: []component.Prop{
		{Name: "http", Type: component.TypeHTTP},
		{Name: "timer", Type: component.TypeTimer, Default: json.RawMessage(`{"intervalSeconds":60}`)},
	}}))
	src := te.deploy(comp, nil)
	tok := src.Endpoints["http"]
	if _, err := te.UpdateSource(ctx, src.ID, UpdateRequest{Component: comp, Active: false}); err != nil {
		t.Fatal(err)
	}
	if _, ok := te.ingress.Endpoints.Lookup(tok); ok || te.timers.Count() != 0 {
		t.Fatal("an inactive source kept its triggers")
	}
	inv, err := te.st.EnqueueInvocation(ctx, model.Invocation{TargetID: src.ID, Kind: model.InvocationHTTP, Event: json.RawMessage(`"queued before"`)})
	if err != nil {
		t.Fatal(err)
	}
	te.workers.Kick(inv.Target())
	te.runAll(src.ID, `"manual"`)
	te.waitEvents(src.ID, "", 1)
	waitFor(t, "both invocations", te.workers.Idle)
	if got := dataOf(te.events(src.ID, "")); got != `"manual"` {
		t.Errorf("an inactive source ran %s; want only the manual run", got)
	}
	if _, err := te.UpdateSource(ctx, src.ID, UpdateRequest{Component: comp, Active: true}); err != nil {
		t.Fatal(err)
	}
	if _, ok := te.ingress.Endpoints.Lookup(tok); !ok || te.timers.Count() != 1 {
		t.Error("reactivating did not bring the triggers back, with the same endpoint")
	}
	// A restart brings back the triggers of active sources only.
	other := te.deploy(comp, nil)
	if _, err := te.UpdateSource(ctx, other.ID, UpdateRequest{Component: comp, Active: false}); err != nil {
		t.Fatal(err)
	}
	te.Stop()
	again := te.restart()
	if _, ok := again.ingress.Endpoints.Lookup(tok); !ok {
		t.Error("an active source's endpoint is gone after a restart")
	}
	if _, ok := again.ingress.Endpoints.Lookup(other.Endpoints["http"]); ok || again.timers.Count() != 1 {
		t.Error("an inactive source's triggers came back after a restart")
	}
}

// TestAFailedRunIsAnError: a run that throws emits nothing and records
// $errors; the instance keeps serving.
func TestAFailedRunIsAnError(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	flaky := &fakeComponent{run: func(ctx context.Context, f *fakeSource, event json.RawMessage, caps sandbox.Capabilities) error {
		if err := emitTo(ctx, caps, "", event); err != nil {
			return err
		}
		if string(event) == `"bad"` {
			return throw("bad input")
		}
		return nil
	}}
	src := te.deploy(te.saveComponent("flaky", flaky), nil)
	te.runAll(src.ID, `"bad"`, `"good"`)
	errs := te.waitEvents(src.ID, model.ChannelErrors, 1)
	te.waitEvents(src.ID, "", 1)
	if !strings.Contains(string(errs[0].Data), "bad input") || !strings.Contains(string(errs[0].Data), `"original_event":"bad"`) {
		t.Errorf("$errors %s", errs[0].Data)
	}
	if got := dataOf(te.events(src.ID, "")); got != `"good"` {
		t.Errorf("emitted %s; a failed run's emits must be dropped", got)
	}
}

// TestASourceThatNoLongerLoads: each of its invocations ends with an
// $errors event, and the queue does not stall.
func TestASourceThatNoLongerLoads(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	src := te.deploy(te.saveComponent("vanishing", echo(component.Metadata{})), nil)
	te.sources.Forget(src.ID)
	te.box.mu.Lock()
	delete(te.box.components, "vanishing") // as if the guest no longer ran its code
	te.box.mu.Unlock()
	te.runAll(src.ID, `1`, `2`)
	errs := te.waitEvents(src.ID, model.ChannelErrors, 2)
	if !strings.Contains(string(errs[0].Data), "no such fake component") {
		t.Errorf("$errors %s", errs[0].Data)
	}
	waitFor(t, "the queue to drain", func() bool {
		pending, _ := te.st.PendingInvocations(ctx, src.ID, 10)
		return len(pending) == 0
	})
}

func TestSubscribeStreamsCommittedEvents(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	src := te.deploy(te.saveComponent("streamed", echo(component.Metadata{})), nil)
	live, cancel := te.Subscribe(src.ID)
	defer cancel()
	te.runAll(src.ID, `"a"`, `"b"`)
	var got []string
	for len(got) < 2 {
		select {
		case ev := <-live:
			if ev.Name == "" {
				got = append(got, string(ev.Data))
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("streamed %v", got)
		}
	}
	if strings.Join(got, " ") != `"a" "b"` {
		t.Errorf("streamed %v", got)
	}
}

// TestPlainEndpointAnswersAtOnce: without customResponse the ingress
// answers {"success":true} once the request is queued, and the run's
// event is the request.
func TestPlainEndpointAnswersAtOnce(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	src := te.deploy(te.saveComponent("plain", echo(component.Metadata{ConfigurableProps: []component.Prop{{Name: "http", Type: component.TypeHTTP}}})), nil)
	srv := httptest.NewServer(te.Ingress())
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/h/"+string(src.Endpoints["http"])+"/x?q=1", "application/json", strings.NewReader(`{"a":1}`))
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("POST: %v %v", resp, err)
	}
	evs := te.waitEvents(src.ID, "", 1)
	var ev map[string]any
	_ = json.Unmarshal(evs[0].Data, &ev)
	if ev["method"] != "POST" || ev["path"] != "/x" || fmt.Sprint(ev["query"]) != "map[q:1]" || fmt.Sprint(ev["body"]) != "map[a:1]" || ev["bodyRaw"] != `{"a":1}` {
		t.Errorf("run event %s", evs[0].Data)
	}
	if u := te.EndpointURL(src.Endpoints["http"]); u != "https://fount.test/h/"+string(src.Endpoints["http"]) {
		t.Errorf("EndpointURL = %s", u)
	}
}

// TestNames: a deploy without a name takes the component's name slug,
// made unique; a given name must be free.
func TestNames(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	comp := te.saveComponent("My Component!", echo(component.Metadata{}))
	first, second := te.deploy(comp, nil), te.deploy(comp, nil)
	if first.NameSlug != "my-component" || second.NameSlug != "my-component-2" || first.Name != "my-component" {
		t.Errorf("slugs %q %q (name %q)", first.NameSlug, second.NameSlug, first.Name)
	}
	_, err := te.DeploySource(ctx, DeployRequest{OwnerID: "u_owner", UserID: "u_owner", Component: comp, Name: "My  component"})
	var taken *NameTakenError
	if !errorsAs(err, &taken) || taken.Slug != "my-component" {
		t.Errorf("a taken name: %v", err)
	}
	renamed, err := te.UpdateSource(ctx, second.ID, UpdateRequest{Component: comp, Name: "Renamed", Active: true})
	if err != nil || renamed.Name != "Renamed" || renamed.NameSlug != "renamed" {
		t.Errorf("rename: %+v %v", renamed, err)
	}
	kept, err := te.UpdateSource(ctx, second.ID, UpdateRequest{Component: comp, Active: true})
	if err != nil || kept.Name != "Renamed" || kept.NameSlug != "renamed" {
		t.Errorf("an update without a name changed it: %+v %v", kept, err)
	}
	for in, want := range map[string]string{"": "source", "!!!": "source", "Ünïcode Name": "n-code-name", strings.Repeat("ab", 80): strings.Repeat("ab", 50)} {
		if got := slugify(in); got != want {
			t.Errorf("slugify(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestStopInterruptsARunThatRunsAgain: Stop cancels a run in progress; its
// invocation stays queued and runs on the next start, so nothing
// acknowledged is lost.
func TestStopInterruptsARunThatRunsAgain(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	started := make(chan struct{}, 1)
	var calls atomic.Int32
	slow := &fakeComponent{run: func(ctx context.Context, f *fakeSource, event json.RawMessage, caps sandbox.Capabilities) error {
		if calls.Add(1) == 1 {
			started <- struct{}{}
			<-ctx.Done() // the first attempt runs until Stop
			return sandbox.ErrTimeout
		}
		return emitTo(ctx, caps, "", event)
	}}
	src := te.deploy(te.saveComponent("slow", slow), nil)
	te.runAll(src.ID, `"once"`)
	<-started
	te.Stop()
	if pending, _ := te.st.PendingInvocations(ctx, src.ID, 10); len(pending) != 1 {
		t.Fatalf("%d invocations queued after Stop, want the interrupted one", len(pending))
	}
	if evs := te.events(src.ID, model.ChannelErrors); len(evs) != 0 {
		t.Fatalf("the interrupted run was recorded as failed: %s", evs[0].Data)
	}
	te.restart()
	if evs := te.waitEvents(src.ID, "", 1); string(evs[0].Data) != `"once"` {
		t.Errorf("after the restart the run emitted %s", evs[0].Data)
	}
}
