package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/store"
)

// dbState reads a db key of a source, as the hooks below write it.
func (te *testEngine) dbState(id, key string) string {
	te.t.Helper()
	v, ok, err := te.st.DBGet(ctx, id, key)
	if err != nil {
		te.t.Fatal(err)
	}
	if !ok {
		return ""
	}
	var s string
	_ = json.Unmarshal(v, &s)
	return s
}

func setDB(ctx context.Context, caps sandbox.Capabilities, key, value string) error {
	b, _ := json.Marshal(value)
	return caps.DB.Set(ctx, key, b)
}

// versioned is a component whose hooks record its state in the db the way
// real components register and unregister upstream webhooks, and whose
// run emits its version.
func versioned(version string, activateErr, deactivateErr error) *fakeComponent {
	return &fakeComponent{
		meta: component.Metadata{Version: version, ConfigurableProps: []component.Prop{{Name: "http", Type: component.TypeHTTP}, {Name: "db", Type: component.TypeDB}}},
		hooks: map[string]func(context.Context, *fakeSource, sandbox.Capabilities) error{
			component.HookActivate: func(ctx context.Context, f *fakeSource, caps sandbox.Capabilities) error {
				if activateErr != nil {
					return activateErr
				}
				return setDB(ctx, caps, "state", "active:"+version)
			},
			component.HookDeactivate: func(ctx context.Context, f *fakeSource, caps sandbox.Capabilities) error {
				if deactivateErr != nil {
					return deactivateErr
				}
				return setDB(ctx, caps, "state", "inactive")
			},
		},
		run: func(ctx context.Context, f *fakeSource, _ json.RawMessage, caps sandbox.Capabilities) error {
			return emitTo(ctx, caps, "", version)
		},
	}
}

// TestDeleteWithThrowingDeactivate: a source whose deactivate hook throws
// is still deleted; the failure is an $errors event, delivered to the
// source's $errors listener before the source is gone.
func TestDeleteWithThrowingDeactivate(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	if err := te.st.CreateWebhook(ctx, model.Webhook{ID: "wh_errors", OwnerID: "u_owner", Active: true, URL: "https://example.com"}); err != nil {
		t.Fatal(err)
	}
	if _, err := te.st.PutAutoSubscription(ctx, model.AutoSubscription{ID: "sub_a", OwnerID: "u_owner", ListenerID: "wh_errors", EventName: model.ChannelErrors}); err != nil {
		t.Fatal(err)
	}
	comp := te.saveComponent("broken-deactivate", versioned("1", nil, throw("cannot unregister")))
	src := te.deploy(comp, nil)

	if err := te.DeleteSource(ctx, src.ID); err != nil {
		t.Fatalf("DeleteSource = %v; a throwing deactivate hook must not stop a delete", err)
	}
	if _, err := te.st.GetSource(ctx, src.ID); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("the source is still stored: %v", err)
	}
	pg, err := te.st.ListDeliveries(ctx, "wh_errors", model.Page{Limit: 10})
	if err != nil || len(pg.Items) != 1 || !strings.Contains(string(pg.Items[0].Payload), "cannot unregister") ||
		!strings.Contains(string(pg.Items[0].Payload), `"name":"$errors"`) {
		t.Fatalf("deliveries to the $errors listener: %+v, %v", pg.Items, err)
	}
	if _, ok := te.ingress.Endpoints.Lookup(src.Endpoints["http"]); ok || te.sources.Count() != 0 {
		t.Errorf("the deleted source left an endpoint or a sandbox")
	}
}

// TestUpdateWhoseActivateThrowsKeepsTheOldVersion: the new version's
// activate hook throws after the old version's deactivate ran; the old
// version is re-activated, stays stored, and keeps serving.
func TestUpdateWhoseActivateThrowsKeepsTheOldVersion(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	v1 := te.saveComponent("v1", versioned("v1", nil, nil))
	v2 := te.saveComponent("v2-broken", versioned("v2", throw("cannot register"), nil))
	src := te.deploy(v1, nil)
	if got := te.dbState(src.ID, "state"); got != "active:v1" {
		t.Fatalf("after deploy, state %q", got)
	}

	_, err := te.UpdateSource(ctx, src.ID, UpdateRequest{Component: v2, Active: true})
	var he *HookError
	if !errors.As(err, &he) || he.Hook != component.HookActivate || he.Msg != "cannot register" {
		t.Fatalf("UpdateSource = %v, want the activate hook's error", err)
	}
	if got := te.dbState(src.ID, "state"); got != "active:v1" {
		t.Errorf("after the failed update the old version's state is %q, want it active again (active:v1)", got)
	}
	stored, _ := te.st.GetSource(ctx, src.ID)
	if stored.ComponentID != v1.ID {
		t.Errorf("stored component %s, want the old %s", stored.ComponentID, v1.ID)
	}
	if err := te.RunNow(ctx, src.ID, nil); err != nil {
		t.Fatal(err)
	}
	if evs := te.waitEvents(src.ID, "", 1); string(evs[0].Data) != `"v1"` {
		t.Errorf("the source runs %s, want the old version v1", evs[0].Data)
	}
	if _, ok := te.ingress.Endpoints.Lookup(src.Endpoints["http"]); !ok {
		t.Error("the old version's endpoint is gone")
	}
}

// TestUpdateWhoseDeactivateThrowsChangesNothing: the old version's
// deactivate hook throws; the update is refused and the old version runs
// as stored, its state untouched.
func TestUpdateWhoseDeactivateThrowsChangesNothing(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	v1 := te.saveComponent("v1-stuck", versioned("v1", nil, throw("stuck")))
	v2 := te.saveComponent("v2", versioned("v2", nil, nil))
	src := te.deploy(v1, nil)
	_, err := te.UpdateSource(ctx, src.ID, UpdateRequest{Component: v2, Active: true})
	var he *HookError
	if !errors.As(err, &he) || he.Hook != component.HookDeactivate {
		t.Fatalf("UpdateSource = %v, want the deactivate hook's error", err)
	}
	if got := te.dbState(src.ID, "state"); got != "active:v1" {
		t.Errorf("state %q, want active:v1", got)
	}
	if stored, _ := te.st.GetSource(ctx, src.ID); stored.ComponentID != v1.ID {
		t.Errorf("stored component changed to %s", stored.ComponentID)
	}
}

// TestUpdateRunsHooksInTheSpecificationsOrder and swaps what runs.
func TestUpdateRunsHooksInTheSpecificationsOrder(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	var mu sync.Mutex
	var calls []string
	record := func(name string) func(context.Context, *fakeSource, sandbox.Capabilities) error {
		return func(context.Context, *fakeSource, sandbox.Capabilities) error {
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, name)
			return nil
		}
	}
	withHooks := func(v string) *fakeComponent {
		c := versioned(v, nil, nil)
		c.hooks = map[string]func(context.Context, *fakeSource, sandbox.Capabilities) error{
			component.HookDeploy: record(v + ".deploy"), component.HookActivate: record(v + ".activate"), component.HookDeactivate: record(v + ".deactivate"),
		}
		return c
	}
	v1, v2 := te.saveComponent("o1", withHooks("v1")), te.saveComponent("o2", withHooks("v2"))
	src := te.deploy(v1, nil)
	if _, err := te.UpdateSource(ctx, src.ID, UpdateRequest{Component: v2, Active: true}); err != nil {
		t.Fatal(err)
	}
	if err := te.DeleteSource(ctx, src.ID); err != nil {
		t.Fatal(err)
	}
	want := "v1.deploy v1.activate v1.deactivate v2.activate v2.deactivate"
	if got := strings.Join(calls, " "); got != want {
		t.Errorf("hooks ran %q, want %q", got, want)
	}
}

// failingStore fails the source writes it is told to.
type failingStore struct {
	*store.Bolt
	failCreate, failUpdate bool
}

var errDisk = errors.New("disk full")

func (f *failingStore) CreateSource(ctx context.Context, s model.Source, hooks store.RunCommit) (model.Source, []model.Event, error) {
	if f.failCreate {
		return model.Source{}, nil, errDisk
	}
	return f.Bolt.CreateSource(ctx, s, hooks)
}

func (f *failingStore) UpdateSource(ctx context.Context, s model.Source, hooks store.RunCommit) ([]model.Event, error) {
	if f.failUpdate {
		return nil, errDisk
	}
	return f.Bolt.UpdateSource(ctx, s, hooks)
}

// TestCreateWhoseStoreWriteFailsLeavesNothing: no endpoint, timer or
// sandbox of a source the store did not take.
func TestCreateWhoseStoreWriteFailsLeavesNothing(t *testing.T) {
	t.Parallel()
	var fs *failingStore
	te := newTestEngine(t, func(c *Config) {
		fs = &failingStore{Bolt: c.Store.(*store.Bolt), failCreate: true}
		c.Store = fs
	})
	comp := te.saveComponent("triggers", &fakeComponent{meta: component.Metadata{ConfigurableProps: []component.Prop{
		{Name: "http", Type: component.TypeHTTP},
		{Name: "timer", Type: component.TypeTimer, Default: json.RawMessage(`{"intervalSeconds":60}`)},
	}}})
	_, err := te.DeploySource(ctx, DeployRequest{OwnerID: "u_owner", UserID: "u_owner", Component: comp})
	if !errors.Is(err, errDisk) {
		t.Fatalf("DeploySource = %v, want the store's error", err)
	}
	if n := te.timers.Count(); n != 0 {
		t.Errorf("%d timers armed", n)
	}
	if eps := te.ingress.Endpoints.Count(); eps != 0 || te.sources.Count() != 0 || len(te.box.open()) != 0 {
		t.Errorf("left behind: %d endpoints, %d live sources, %d open sandboxes", te.ingress.Endpoints.Count(), te.sources.Count(), len(te.box.open()))
	}
}

// TestUpdateWhoseStoreWriteFailsKeepsTheOldVersion: the hooks are undone
// and the old version keeps running.
func TestUpdateWhoseStoreWriteFailsKeepsTheOldVersion(t *testing.T) {
	t.Parallel()
	var fs *failingStore
	te := newTestEngine(t, func(c *Config) {
		fs = &failingStore{Bolt: c.Store.(*store.Bolt)}
		c.Store = fs
	})
	v1, v2 := te.saveComponent("s1", versioned("v1", nil, nil)), te.saveComponent("s2", versioned("v2", nil, nil))
	src := te.deploy(v1, nil)
	fs.failUpdate = true
	if _, err := te.UpdateSource(ctx, src.ID, UpdateRequest{Component: v2, Active: true}); !errors.Is(err, errDisk) {
		t.Fatalf("UpdateSource = %v", err)
	}
	if got := te.dbState(src.ID, "state"); got != "active:v1" {
		t.Errorf("state %q, want active:v1", got)
	}
	if err := te.RunNow(ctx, src.ID, nil); err != nil {
		t.Fatal(err)
	}
	if evs := te.waitEvents(src.ID, "", 1); string(evs[0].Data) != `"v1"` {
		t.Errorf("the source runs %s, want v1", evs[0].Data)
	}
}

// TestRunRacingDeleteKeepsNoSandbox: a run that starts loading a source
// before its delete and finishes after keeps no sandbox of it.
func TestRunRacingDeleteKeepsNoSandbox(t *testing.T) {
	t.Parallel()
	// The delete's load needs a worker of the account while the run's load
	// holds one.
	te := newTestEngine(t, func(c *Config) { c.AccountWorkers = 2 })
	comp := te.saveComponent("racy", versioned("v1", nil, nil))
	src := te.deploy(comp, nil)
	te.sources.Forget(src.ID) // as after a restart: the next run loads it

	loading, release := make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	te.box.beforeLoad = func(spec sandbox.Spec) {
		if first.CompareAndSwap(false, true) { // the run's load: hold it until the delete is done
			close(loading)
			<-release
		}
	}
	if err := te.RunNow(ctx, src.ID, nil); err != nil {
		t.Fatal(err)
	}
	<-loading
	if err := te.DeleteSource(ctx, src.ID); err != nil {
		t.Fatal(err)
	}
	close(release)
	waitFor(t, "the run's load to finish and the workers to go idle", func() bool {
		return te.box.loads() == 3 && te.workers.Idle() // deploy, delete, and the run
	})
	if open := te.box.open(); len(open) != 0 || te.sources.Count() != 0 {
		t.Errorf("after the delete: %d open sandboxes, %d live sources; want none", len(open), te.sources.Count())
	}
}

// TestHookEventsAreRouted: what deploy and activate hooks emit reaches
// subscribers like any emit (here a dc_* glob made before the source).
func TestHookEventsAreRouted(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	if err := te.st.CreateWebhook(ctx, model.Webhook{ID: "wh_all", OwnerID: "u_owner", Active: true, URL: "https://example.com"}); err != nil {
		t.Fatal(err)
	}
	if _, err := te.st.PutSubscription(ctx, model.Subscription{ID: "sub_g", OwnerID: "u_owner", EmitterID: "dc_*", ListenerID: "wh_all"}); err != nil {
		t.Fatal(err)
	}
	comp := te.saveComponent("announcer", &fakeComponent{hooks: map[string]func(context.Context, *fakeSource, sandbox.Capabilities) error{
		component.HookDeploy: func(ctx context.Context, f *fakeSource, caps sandbox.Capabilities) error {
			return emitTo(ctx, caps, "", "deployed")
		},
		component.HookActivate: func(ctx context.Context, f *fakeSource, caps sandbox.Capabilities) error {
			return emitTo(ctx, caps, "", "activated")
		},
	}})
	src := te.deploy(comp, nil)
	if evs := te.events(src.ID, ""); len(evs) != 2 || string(evs[0].Data) != `"activated"` {
		t.Fatalf("stored hook events %+v", evs)
	}
	pg, err := te.st.ListDeliveries(ctx, "wh_all", model.Page{Limit: 10})
	if err != nil || len(pg.Items) != 2 {
		t.Fatalf("deliveries of the hook events: %+v, %v", pg.Items, err)
	}
}

// TestDeployWhoseHookThrowsLeavesNothing: nothing stored, nothing live.
func TestDeployWhoseHookThrowsLeavesNothing(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	comp := te.saveComponent("fails-deploy", &fakeComponent{
		meta: component.Metadata{ConfigurableProps: []component.Prop{{Name: "http", Type: component.TypeHTTP}}},
		hooks: map[string]func(context.Context, *fakeSource, sandbox.Capabilities) error{
			component.HookDeploy: func(context.Context, *fakeSource, sandbox.Capabilities) error { return throw("no") },
		}})
	_, err := te.DeploySource(ctx, DeployRequest{OwnerID: "u_owner", UserID: "u_owner", Component: comp})
	var he *HookError
	if !errors.As(err, &he) || he.Hook != component.HookDeploy {
		t.Fatalf("DeploySource = %v", err)
	}
	all, _ := te.st.AllSources(ctx)
	if len(all) != 0 || te.sources.Count() != 0 || len(te.box.open()) != 0 {
		t.Errorf("left behind: %d stored, %d live, %d open", len(all), te.sources.Count(), len(te.box.open()))
	}
}

// TestLifecycleAfterStop: operations on a stopped engine say so.
func TestLifecycleAfterStop(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	comp := te.saveComponent("late", versioned("1", nil, nil))
	te.Stop()
	if _, err := te.DeploySource(ctx, DeployRequest{OwnerID: "u_owner", Component: comp}); !errors.Is(err, ErrStopped) {
		t.Errorf("DeploySource after Stop = %v", err)
	}
	if err := te.DeleteSource(ctx, "dc_x"); !errors.Is(err, ErrStopped) {
		t.Errorf("DeleteSource after Stop = %v", err)
	}
}

// TestLifecycleOperationsOfASourceAreSerialised: two updates of one
// source never interleave their hooks.
func TestLifecycleOperationsOfASourceAreSerialised(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	var mu sync.Mutex
	var trace []string
	inHook := 0
	hook := func(name string) func(context.Context, *fakeSource, sandbox.Capabilities) error {
		return func(context.Context, *fakeSource, sandbox.Capabilities) error {
			mu.Lock()
			inHook++
			if inHook > 1 {
				trace = append(trace, "overlap")
			}
			trace = append(trace, name)
			mu.Unlock()
			time.Sleep(time.Millisecond) // widen the window an interleaving would need
			mu.Lock()
			inHook--
			mu.Unlock()
			return nil
		}
	}
	c := &fakeComponent{hooks: map[string]func(context.Context, *fakeSource, sandbox.Capabilities) error{
		component.HookActivate: hook("activate"), component.HookDeactivate: hook("deactivate"),
	}}
	comp := te.saveComponent("serial", c)
	src := te.deploy(comp, nil)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := te.UpdateSource(ctx, src.ID, UpdateRequest{Component: comp, Active: true}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got := strings.Join(trace, " ")
	if strings.Contains(got, "overlap") || got != "activate"+strings.Repeat(" deactivate activate", 4) {
		t.Errorf("hooks ran %q", got)
	}
	if n := te.lifecycle.Keys(); n != 0 {
		t.Errorf("%d source locks left after the updates", n)
	}
}

// TestUpdateOfADeletedSource: an update of a source deleted meanwhile is
// not found, and leaves nothing running.
func TestUpdateOfADeletedSource(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	comp := te.saveComponent("short-lived", versioned("1", nil, nil))
	src := te.deploy(comp, nil)
	if err := te.DeleteSource(ctx, src.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := te.UpdateSource(ctx, src.ID, UpdateRequest{Component: comp, Active: true}); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("UpdateSource of a deleted source = %v", err)
	}
	if err := te.DeleteSource(ctx, src.ID); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("a second delete = %v", err)
	}
	if len(te.box.open()) != 0 {
		t.Errorf("%d sandboxes open", len(te.box.open()))
	}
}

// TestCancelledRequestsFinishTheirLifecycle: a client that hangs up while
// a hook runs does not leave the source half updated or half deleted.
func TestCancelledRequestsFinishTheirLifecycle(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	reqCtx, hangUp := context.WithCancel(ctx)
	v1 := te.saveComponent("c1", versioned("v1", nil, nil))
	v2 := versioned("v2", nil, nil)
	activate := v2.hooks[component.HookActivate]
	v2.hooks[component.HookActivate] = func(ctx context.Context, f *fakeSource, caps sandbox.Capabilities) error {
		hangUp() // the client goes away while the new version activates
		return activate(ctx, f, caps)
	}
	v2comp := te.saveComponent("c2", v2)
	src := te.deploy(v1, nil)
	if _, err := te.UpdateSource(reqCtx, src.ID, UpdateRequest{Component: v2comp, Active: true}); err != nil {
		t.Fatalf("UpdateSource = %v; once its hooks run, an update goes on to the end", err)
	}
	if stored, _ := te.st.GetSource(ctx, src.ID); stored.ComponentID != v2comp.ID || te.dbState(src.ID, "state") != "active:v2" {
		t.Errorf("after the update: component %s, state %q", stored.ComponentID, te.dbState(src.ID, "state"))
	}

	delCtx, hangUpDelete := context.WithCancel(ctx)
	v2.hooks[component.HookDeactivate] = func(context.Context, *fakeSource, sandbox.Capabilities) error {
		hangUpDelete()
		return nil
	}
	if err := te.DeleteSource(delCtx, src.ID); err != nil {
		t.Fatalf("DeleteSource = %v; once its hook runs, a delete goes on to the end", err)
	}
	if _, err := te.st.GetSource(ctx, src.ID); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("the source is still stored: %v", err)
	}
}

// TestDeployWhoseStoreWriteFailsUndoesItsHooks: what activate did upstream
// is undone by deactivate, and what the hooks wrote to the db is removed.
func TestDeployWhoseStoreWriteFailsUndoesItsHooks(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, func(c *Config) { c.Store = &failingStore{Bolt: c.Store.(*store.Bolt), failCreate: true} })
	var mu sync.Mutex
	var upstream []string
	c := versioned("v1", nil, nil)
	c.hooks[component.HookDeactivate] = func(context.Context, *fakeSource, sandbox.Capabilities) error {
		mu.Lock()
		defer mu.Unlock()
		upstream = append(upstream, "unregistered")
		return nil
	}
	comp := te.saveComponent("undo", c)
	if _, err := te.DeploySource(ctx, DeployRequest{OwnerID: "u_owner", UserID: "u_owner", Component: comp}); !errors.Is(err, errDisk) {
		t.Fatalf("DeploySource = %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(upstream) != 1 {
		t.Errorf("deactivate ran %d times, want once to undo activate", len(upstream))
	}
	id := te.box.loaded[0].id
	if state := te.dbState(id, "state"); state != "" {
		t.Errorf("the db of the source that was never stored holds %q", state)
	}
}

// deleteOnCreate is a store that, as soon as a source is stored, has a
// delete of it start (as a client that saw it in a list could).
type deleteOnCreate struct {
	*store.Bolt
	te      *testEngine
	deleted chan error
}

func (d *deleteOnCreate) CreateSource(ctx context.Context, s model.Source, hooks store.RunCommit) (model.Source, []model.Event, error) {
	stored, evs, err := d.Bolt.CreateSource(ctx, s, hooks)
	if err == nil {
		go func() { d.deleted <- d.te.DeleteSource(ctx, s.ID) }()
		// Let the delete reach the source's lock before the deploy goes on.
		waitFor(d.te.t, "the delete to wait for the deploy", func() bool {
			return d.te.lifecycle.Wanted(s.ID) == 2
		})
	}
	return stored, evs, err
}

// TestDeleteRacingADeploy: a delete of a source stored a moment ago waits
// for its deploy to bring the triggers up, then takes them down.
func TestDeleteRacingADeploy(t *testing.T) {
	t.Parallel()
	racer := &deleteOnCreate{deleted: make(chan error, 1)}
	te := newTestEngine(t, func(c *Config) {
		racer.Bolt = c.Store.(*store.Bolt)
		c.Store = racer
	})
	racer.te = te
	comp := te.saveComponent("raced", &fakeComponent{meta: component.Metadata{ConfigurableProps: []component.Prop{
		{Name: "http", Type: component.TypeHTTP},
		{Name: "timer", Type: component.TypeTimer, Default: json.RawMessage(`{"intervalSeconds":60}`)},
	}}})
	src := te.deploy(comp, nil)
	if err := <-racer.deleted; err != nil {
		t.Fatalf("DeleteSource = %v", err)
	}
	if _, ok := te.ingress.Endpoints.Lookup(src.Endpoints["http"]); ok || te.timers.Count() != 0 || te.sources.Count() != 0 || len(te.box.open()) != 0 {
		t.Errorf("left behind a deleted source: endpoint %v, %d timers, %d live, %d open", ok, te.timers.Count(), te.sources.Count(), len(te.box.open()))
	}
}

// TestStopWaitsForLifecycleOperations: an operation in flight finishes
// before Stop returns, so nothing touches the store after it.
func TestStopWaitsForLifecycleOperations(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	inHook, release := make(chan struct{}), make(chan struct{})
	c := versioned("v1", nil, nil)
	activate := c.hooks[component.HookActivate]
	c.hooks[component.HookActivate] = func(ctx context.Context, f *fakeSource, caps sandbox.Capabilities) error {
		close(inHook)
		<-release
		return activate(ctx, f, caps)
	}
	comp := te.saveComponent("slow-deploy", c)
	deployed := make(chan error, 1)
	go func() {
		_, err := te.DeploySource(ctx, DeployRequest{OwnerID: "u_owner", UserID: "u_owner", Component: comp})
		deployed <- err
	}()
	<-inHook
	storedAtStop := make(chan int, 1)
	go func() {
		te.Stop()
		all, err := te.st.AllSources(ctx) // the moment Stop returns
		if err != nil {
			t.Error(err)
		}
		storedAtStop <- len(all)
	}()
	waitFor(t, "Stop to refuse new operations", func() bool {
		return errors.Is(te.RunNow(ctx, "dc_probe", nil), ErrStopped)
	})
	close(release)
	if n := <-storedAtStop; n != 1 {
		t.Errorf("%d sources stored when Stop returned; it must wait for the deploy in flight to store its source", n)
	}
	if err := <-deployed; err != nil {
		t.Errorf("the deploy in flight failed: %v", err)
	}
	if te.sources.Count() != 0 {
		t.Errorf("%d sandboxes live after Stop", te.sources.Count())
	}
}

// TestLostSnapshotReloadsTheSource: a source whose saved state is gone
// (sandbox.ErrLost: an idle snapshot on disk that cannot be read back) is
// loaded anew from the store, and the invocation runs again on it,
// neither lost nor failed.
func TestLostSnapshotReloadsTheSource(t *testing.T) {
	t.Parallel()
	te := newTestEngine(t, nil)
	var lostOnce atomic.Bool
	comp := te.saveComponent("lossy", &fakeComponent{
		meta: component.Metadata{Version: "1"},
		run: func(ctx context.Context, f *fakeSource, _ json.RawMessage, caps sandbox.Capabilities) error {
			if lostOnce.CompareAndSwap(false, true) {
				return fmt.Errorf("the snapshot's file is gone: %w", sandbox.ErrLost)
			}
			return emitTo(ctx, caps, "", "ran")
		},
	})
	src := te.deploy(comp, nil)
	loadsBefore := te.box.loads()
	if err := te.RunNow(ctx, src.ID, nil); err != nil {
		t.Fatal(err)
	}
	if evs := te.waitEvents(src.ID, "", 1); string(evs[0].Data) != `"ran"` {
		t.Fatalf("events: %s", evs[0].Data)
	}
	if errs := te.events(src.ID, "$errors"); len(errs) != 0 {
		t.Errorf("the lost snapshot was reported as an error: %s", errs[0].Data)
	}
	if got := te.box.loads(); got != loadsBefore+1 {
		t.Errorf("%d loads after the loss, want %d (one reload)", got, loadsBefore+1)
	}
}
