package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/fount-dev/fount/internal/engine/admission"
	"github.com/fount-dev/fount/internal/engine/batch"
	"github.com/fount-dev/fount/internal/engine/clock"
	"github.com/fount-dev/fount/internal/engine/delayed"
	"github.com/fount-dev/fount/internal/engine/delivery"
	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/engine/flow"
	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/engine/route"
	"github.com/fount-dev/fount/internal/engine/scheduler"
	"github.com/fount-dev/fount/internal/engine/source"
	"github.com/fount-dev/fount/internal/engine/timers"
	"github.com/fount-dev/fount/internal/guess"
	"github.com/fount-dev/fount/internal/keyed"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/records"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/secret"
	"github.com/fount-dev/fount/internal/store"
)

// Config configures an Engine. Store, Queues, Sandbox and Secrets are
// required; zero values of the rest take the defaults below.
type Config struct {
	Store   store.Store
	Queues  store.Queues
	Sandbox sandbox.Sandbox
	Secrets *secret.Sealer
	// Clock is the engine's time. Default clock.System().
	Clock clock.Clock
	// PublicURL is the server's external base URL, under which endpoint
	// URLs are shown to components.
	PublicURL string
	// EndpointsShareSite says that endpoints are served on the host name
	// of the API and the dashboard (another port of it, or the same
	// listener), where cookies would be shared with them: endpoint
	// responses then set no cookies at all. On a host name of their own,
	// a cookie an endpoint sets is scoped to that endpoint's path.
	EndpointsShareSite bool
	// Egress is the policy for components' fetch and for webhook
	// deliveries (an *egress.Policy); nil denies both.
	Egress sandbox.Egress
	// Objects is the operator's bucket that workflows' $.send.s3 writes
	// to; nil makes $.send.s3 fail the step, saying so.
	Objects delivery.ObjectSink
	// DisableWebhookAfter failed deliveries in a row, spanning at least
	// DisableWebhookAge, deactivate a webhook, with an event on the
	// $errors channel of the source whose delivery tipped it. 0 never
	// deactivates one.
	DisableWebhookAfter int
	DisableWebhookAge   time.Duration
	// Observer is told of runs and deliveries, for metrics; nil observes
	// nothing.
	Observer Observer
	// Packages bundles the npm packages a component imports into its
	// code when it is saved; nil leaves code as it is given (its imports
	// then fail to load).
	Packages Packages
	// Workers bounds how much component code runs at once: source runs,
	// and the loading, hooks and introspection of lifecycle operations.
	// Default 4.
	Workers int
	// AccountWorkers bounds how many of the workers one account's work may
	// hold at once, so that its runaway code leaves the rest to others.
	// Default half the workers, and fewer than the CPUs: at least 1.
	AccountWorkers int
	// EventsKept is how many events each channel of an emitter keeps.
	// Default 100, the specification's figure.
	EventsKept int
	// MaxChannels bounds the channels of a source besides the default
	// one, $errors and $logs. Default DefaultMaxChannels.
	MaxChannels int
	// MaxHops bounds chains of source-to-source deliveries. Default 8.
	MaxHops int
	// RespondTimeout is how long a customResponse request waits for
	// respond(). Default 30 s.
	RespondTimeout time.Duration
	// MaxBody caps an HTTP-interface request body. Default 512 KB.
	MaxBody int64
	// BodyTimeout bounds how long an HTTP-interface request's body may
	// take to arrive. Default 30 s.
	BodyTimeout time.Duration
	// LifecycleWait bounds how long an API operation (a deploy, an
	// update, a delete, saving a component...) waits for a worker before
	// anything of it has run: past it, it fails with a *BusyError rather
	// than keep its caller waiting behind the account's earlier calls.
	// Default 10 s.
	LifecycleWait time.Duration
	// MaxAttempts and RetryBase shape webhook retries: exponential backoff
	// from RetryBase with jitter, capped at an hour. Defaults 8 and 1 s.
	MaxAttempts int
	RetryBase   time.Duration
	// Limits are the sandbox limits of every run and hook; zero fields
	// take the sandbox's defaults.
	Limits sandbox.Limits
	// ExecutionTimeout bounds a workflow execution, all its steps
	// together; each step is also bounded by Limits.Timeout. Default 5
	// minutes.
	ExecutionTimeout time.Duration
	// ExecutionsKept is how many executions each workflow keeps. Default
	// 100.
	ExecutionsKept int
	// ExecutionRetryBase is the first wait before a failed execution's
	// step is retried (model.Retry); each next one doubles it, with
	// jitter, up to an hour. Default 30 s.
	ExecutionRetryBase time.Duration
	// Records writes components' data-store entries, within its bounds
	// of one data store: the service the API writes through too, so
	// that both are bounded alike. nil: one over Store with the default
	// bounds, stamped by Clock.
	Records *records.Service
	// MaxPausedExecutions bounds the executions of one workflow that wait
	// on $.flow.delay, suspend or rerun at once; a step that would pause
	// one more fails its execution. Default 10,000.
	MaxPausedExecutions int
	// QuotaInvocations and QuotaComputeMs are the daily quotas of free
	// accounts. Defaults DefaultQuotaInvocations and DefaultQuotaComputeMs.
	QuotaInvocations int64
	QuotaComputeMs   int64
	Logger           *slog.Logger
	// Cluster shares the store's work with other nodes; nil: this node
	// does all of it.
	Cluster Cluster
	// Sandboxes bounds the sandboxes that accounts hold at once (package
	// admission); its zero fields take DefaultSandboxes', a negative one
	// means no bound. SandboxMemory is what a call counts for when its
	// limits name no memory: the sandbox's own default.
	Sandboxes     admission.Config
	SandboxMemory int64
	// TrustedProxies are the reverse proxies whose X-Forwarded-For
	// names the client that forged resume and cancel URLs are counted
	// against; none: the header is ignored.
	TrustedProxies guess.Proxies

	// deliverySend, set by the engine's tests, makes delivery attempts
	// instead of the egress policy.
	deliverySend delivery.Sender
}

func (c Config) withDefaults() (Config, error) {
	if c.Store == nil || c.Queues == nil || c.Sandbox == nil || c.Secrets == nil {
		return c, errors.New("engine: Store, Queues, Sandbox and Secrets are required")
	}
	if c.Observer == nil {
		c.Observer = noObserver{}
	}
	if c.Clock == nil {
		c.Clock = clock.System()
	}
	if c.Workers <= 0 {
		c.Workers = 4
	}
	if c.AccountWorkers <= 0 {
		c.AccountWorkers = max(1, min(c.Workers/2, runtime.GOMAXPROCS(0)-1))
	}
	if c.EventsKept <= 0 {
		c.EventsKept = 100
	}
	if c.Records == nil {
		c.Records = records.New(records.Config{Store: c.Store, Now: c.Clock.Now, Secrets: c.Secrets})
	}
	if c.ExecutionRetryBase <= 0 {
		c.ExecutionRetryBase = 30 * time.Second
	}
	if c.MaxPausedExecutions <= 0 {
		c.MaxPausedExecutions = 10_000
	}
	if c.MaxChannels <= 0 {
		c.MaxChannels = DefaultMaxChannels
	}
	if c.MaxHops <= 0 {
		c.MaxHops = 8
	}
	c.Sandboxes.AccountSandboxes = cmp.Or(c.Sandboxes.AccountSandboxes, DefaultSandboxes.AccountSandboxes)
	c.Sandboxes.AccountBytes = cmp.Or(c.Sandboxes.AccountBytes, DefaultSandboxes.AccountBytes)
	c.Sandboxes.ServerBytes = cmp.Or(c.Sandboxes.ServerBytes, DefaultSandboxes.ServerBytes)
	c.SandboxMemory = cmp.Or(c.SandboxMemory, c.Limits.Memory, 64<<20)
	if c.RespondTimeout <= 0 {
		c.RespondTimeout = 30 * time.Second
	}
	if c.MaxBody <= 0 {
		c.MaxBody = 512 << 10
	}
	if c.BodyTimeout <= 0 {
		c.BodyTimeout = 30 * time.Second
	}
	if c.LifecycleWait <= 0 {
		c.LifecycleWait = 10 * time.Second
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 8
	}
	if c.RetryBase <= 0 {
		c.RetryBase = time.Second
	}
	if c.ExecutionTimeout <= 0 {
		c.ExecutionTimeout = 5 * time.Minute
	}
	if c.ExecutionsKept <= 0 {
		c.ExecutionsKept = 100
	}
	if c.QuotaInvocations <= 0 {
		c.QuotaInvocations = DefaultQuotaInvocations
	}
	if c.QuotaComputeMs <= 0 {
		c.QuotaComputeMs = DefaultQuotaComputeMs
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c, nil
}

// Engine runs sources. Create it with New, then Start; Stop ends every
// goroutine it started. It is built from parts that each own their
// goroutines and timers (see the package documentation, "Parts").
type Engine struct {
	cfg     Config
	log     *slog.Logger
	clock   clock.Clock
	store   store.Store
	queues  store.Queues
	sandbox sandbox.Sandbox

	sources   *source.Runner  // sources' runs on their live sandboxes
	flows     *flow.Runner    // workflows' executions, their loaded steps and paused executions
	throttles batch.Throttles // of workflows with a throttle
	maps      *mapCache       // parsed source maps
	ingress   *ingress.Server // endpoints, waiting requests, resume URLs
	timers    *timers.Set[model.Target]
	delayed   *delayed.Scheduler[model.Target]
	deliverer *delivery.Deliverer
	workers   *scheduler.Scheduler[model.Target]
	loop      *batch.Loop  // a target's turn: the batch of its queue the workers run
	ahead     *batch.Ahead // invocations read from the queue for later batches
	events    *broadcaster
	quotas    *batch.Quotas
	lifecycle keyed.Mutex          // of each source and workflow: two operations on one never interleave
	admission *admission.Admission // the sandboxes accounts hold (admit.go)
	records   *records.Service     // the data stores' writes of components

	mu      sync.Mutex
	running bool
	stopped bool
	ops     sync.WaitGroup // lifecycle operations and manual runs in flight
}

// New returns an Engine; it does nothing until Start.
func New(cfg Config) (*Engine, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	e := &Engine{
		cfg: cfg, log: cfg.Logger, clock: cfg.Clock, store: cfg.Store, queues: cfg.Queues, sandbox: cfg.Sandbox,
		ahead: batch.NewAhead(cfg.Clock), maps: newMapCache(mapCacheBytes, mapCacheAccountBytes), events: newBroadcaster(),
		quotas:    batch.NewQuotas(cfg.Clock, cfg.Store, cfg.Queues, cfg.QuotaInvocations, cfg.QuotaComputeMs),
		admission: admission.New(cfg.Sandboxes),
		records:   cfg.Records,
	}
	e.timers = timers.New(cfg.Clock, cfg.Logger, e.fireTimer, func(t model.Target) (int64, error) {
		return cfg.Queues.TimerLastFire(context.Background(), t.ID)
	})
	e.delayed = delayed.New(cfg.Clock, cfg.Logger, e.releaseDelayed)
	e.sources = source.New(source.Config{Store: cfg.Store, Queues: cfg.Queues, Clock: cfg.Clock, Logger: cfg.Logger, Host: sourceHost{e}, Delayed: e.delayed,
		Observer: cfg.Observer, Limits: cfg.Limits, EventsKept: cfg.EventsKept})
	e.flows = flow.New(flow.Config{Store: cfg.Store, Clock: cfg.Clock, Logger: cfg.Logger, Host: flowHost{e}, Delayed: e.delayed, Throttles: &e.throttles,
		Objects: cfg.Objects, Observer: cfg.Observer, PublicURL: cfg.PublicURL, Limits: cfg.Limits, ExecutionTimeout: cfg.ExecutionTimeout,
		EventsKept: cfg.EventsKept, ExecutionsKept: cfg.ExecutionsKept, ExecutionRetryBase: cfg.ExecutionRetryBase, MaxPausedExecutions: cfg.MaxPausedExecutions})
	e.ingress = ingress.New(ingress.Config{Clock: cfg.Clock, Logger: cfg.Logger, MaxBody: cfg.MaxBody, BodyTimeout: cfg.BodyTimeout,
		RespondTimeout: cfg.RespondTimeout, EndpointsShareSite: cfg.EndpointsShareSite, TrustedProxies: cfg.TrustedProxies}, ingressHost{e})
	var fetch delivery.Fetch
	if cfg.Egress != nil {
		fetch = cfg.Egress.Fetch
	}
	send := cfg.deliverySend
	if send == nil {
		send = delivery.WebhookSender(fetch, cfg.Objects)
	}
	e.deliverer = delivery.New(delivery.Config{Clock: cfg.Clock, Log: cfg.Logger, Store: cfg.Store, Queues: cfg.Queues, Send: send,
		MaxAttempts: cfg.MaxAttempts, RetryBase: cfg.RetryBase, Finished: cfg.Observer.DeliveryFinished,
		DisableAfter: cfg.DisableWebhookAfter, DisableAge: cfg.DisableWebhookAge, OnDisable: e.webhookDisabled, Owns: e.owns})
	e.loop = &batch.Loop{Clock: cfg.Clock, Store: cfg.Store, Queues: cfg.Queues, Delayed: e.delayed, Ahead: e.ahead, Throttles: &e.throttles, Quotas: e.quotas,
		Host: loopHost{e}, Log: cfg.Logger, MaxHops: cfg.MaxHops, EventsKept: cfg.EventsKept}
	e.workers = scheduler.New(cfg.Clock, cfg.AccountWorkers, e.accountOf, e.loop.Drain)
	return e, nil
}

// Start brings every active source's endpoints and timers back from the
// store, resumes queued invocations, delayed emits and pending deliveries,
// and starts the workers. An engine starts once; if Start fails, what it
// started is stopped again.
func (e *Engine) Start(ctx context.Context) (err error) {
	e.mu.Lock()
	if e.running || e.stopped {
		e.mu.Unlock()
		return errors.New("engine: Start called twice, or after Stop")
	}
	e.running = true
	e.mu.Unlock()
	defer func() {
		if err != nil {
			e.Stop()
		}
	}()
	sources, err := e.queues.AllSources(ctx)
	if err != nil {
		return err
	}
	if err := e.resealUnbound(ctx, sources); err != nil {
		return err
	}
	e.ingress.Endpoints.Start()
	e.timers.Start()
	e.ingress.Waiters.Start()
	for _, src := range sources {
		if !src.Active {
			continue
		}
		comp, err := e.store.GetComponent(ctx, src.ComponentID)
		if err != nil {
			e.log.Error("a source's component is missing; its triggers stay down", "source", src.ID, "err", err)
			continue
		}
		e.startTriggers(src, withAddedProps(comp.Metadata, src))
	}
	flows, err := e.queues.AllWorkflows(ctx)
	if err != nil {
		return err
	}
	for _, wf := range flows {
		e.startWorkflowTriggers(wf)
	}
	if err := e.loadDelayed(ctx, emitters(sources, flows, func(string) bool { return true })); err != nil {
		return err
	}
	e.workers.Start(e.cfg.Workers)
	pending, err := e.queues.TargetsWithPending(ctx)
	if err != nil {
		return err
	}
	for _, t := range pending {
		if e.owns(t.ID) {
			e.workers.Kick(t)
		}
	}
	e.delayed.Start()
	e.deliverer.Start()
	if e.cfg.Cluster != nil {
		if err := e.cfg.Cluster.Start(e.clusterHandlers()); err != nil {
			return fmt.Errorf("engine: join the cluster: %w", err)
		}
	}
	return nil
}

// Stop refuses new lifecycle operations and manual runs and waits for those
// in flight, then stops the engine's parts in order and waits for each:
// endpoints (the ingress answers 404), timers, delayed releases, the
// workers (a run in progress is interrupted and runs again on the next
// start), deliveries, and the requests still waiting for respond(); then
// the sandboxes are closed. After Stop nothing the engine started touches
// the store, so the caller may close it. Stop is safe to call twice.
func (e *Engine) Stop() {
	e.mu.Lock()
	if e.stopped {
		e.mu.Unlock()
		return
	}
	e.stopped, e.running = true, false
	e.mu.Unlock()
	e.ops.Wait()
	e.ingress.Endpoints.Stop()
	e.timers.Stop()
	e.delayed.Stop()
	e.workers.Stop()
	e.deliverer.Stop()
	if e.cfg.Cluster != nil {
		e.cfg.Cluster.Stop() // after this node's work stopped: the others take it over
	}
	e.ingress.Waiters.Stop()
	e.sources.Close()
	e.flows.Close()
}

// beginOp admits a lifecycle operation or manual run, which Stop waits
// for; call the returned end when it is over. A stopped engine admits
// nothing: ErrStopped.
func (e *Engine) beginOp() (end func(), err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.running {
		return nil, ErrStopped
	}
	e.ops.Add(1)
	return e.ops.Done, nil
}

// ReleaseWaiters ends every HTTP request still waiting for a respond():
// they answer 503 at once. A server calls it when it starts shutting down,
// so that its graceful shutdown does not wait out RespondTimeout.
func (e *Engine) ReleaseWaiters() { e.ingress.Waiters.Stop() }

// Subscribe streams an emitter's new events until cancel is called or the
// channel is closed (the subscriber fell behind and resumes from the log).
func (e *Engine) Subscribe(emitterID string) (<-chan model.Event, func()) {
	return e.events.subscribe(emitterID)
}

// Usage returns an account's counters for a day (YYYY-MM-DD, UTC).
func (e *Engine) Usage(ctx context.Context, accountID, day string) (model.Usage, error) {
	return e.queues.GetUsage(ctx, accountID, day)
}

// Stats returns a source's, workflow's or webhook's statistics from
// from to to, a point per step, as the store counted them with the runs
// and deliveries they count.
func (e *Engine) Stats(ctx context.Context, id string, from, to time.Time, step time.Duration) ([]model.Stats, error) {
	return e.queues.StatsOf(ctx, id, from, to, step)
}

// Quotas returns the daily quotas of free accounts: invocations and
// compute milliseconds.
func (e *Engine) Quotas() (invocations, computeMs int64) {
	return e.cfg.QuotaInvocations, e.cfg.QuotaComputeMs
}

// Deliveries lists a webhook's deliveries, newest first.
func (e *Engine) Deliveries(ctx context.Context, listenerID string, p model.Page) (model.PageOf[model.Delivery], error) {
	return e.queues.ListDeliveries(ctx, listenerID, p)
}

// Now is the engine's clock.
func (e *Engine) Now() time.Time { return e.clock.Now() }

// Running returns nil while the engine runs (between Start and Stop), and
// ErrStopped otherwise.
func (e *Engine) Running() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.running {
		return ErrStopped
	}
	return nil
}

// Observer is told what the engine does, for metrics. Its labels must
// stay low-cardinality: kinds and outcomes, never ids.
type Observer interface {
	// RunFinished: a run of a trigger kind ended with outcome ("ok", or
	// its error's class) after d.
	RunFinished(kind, outcome string, d time.Duration)
	// DeliveryFinished: a delivery attempt was delivered, will be
	// retried, or failed for good.
	DeliveryFinished(outcome string)
}

type noObserver struct{}

func (noObserver) RunFinished(string, string, time.Duration) {}
func (noObserver) DeliveryFinished(string)                   {}

// ResendDelivery queues one more attempt of a listener's delivery, now,
// with the same id and body (so a receiver that has it can tell). One
// still pending is left to its schedule. ErrNotFound (from the store)
// when the listener has no such delivery.
func (e *Engine) ResendDelivery(ctx context.Context, listenerID, deliveryID string) (model.Delivery, error) {
	dl, err := e.queues.GetDelivery(ctx, deliveryID)
	if err != nil {
		return model.Delivery{}, err
	}
	if dl.ListenerID != listenerID {
		return model.Delivery{}, fmt.Errorf("delivery %s: %w", deliveryID, model.ErrNotFound)
	}
	if dl.Status == model.DeliveryPending {
		return dl, nil
	}
	dl.Status, dl.NextAttemptMs = model.DeliveryPending, e.clock.Now().UnixMilli()
	if err := e.queues.UpdateDelivery(ctx, dl); err != nil {
		return model.Delivery{}, err
	}
	e.deliverer.Poke()
	return dl, nil
}

// webhookDisabled records a webhook's deactivation on the $errors channel
// of the source whose delivery tipped it, where its owner and the
// source's $errors subscribers see it.
func (e *Engine) webhookDisabled(ctx context.Context, hook model.Webhook, dl model.Delivery) {
	src, err := e.store.GetSource(ctx, dl.EmitterID)
	if err != nil {
		return // a workflow's, or a source deleted since
	}
	reason := fmt.Errorf("the webhook %s (%s) was %s; it gets no deliveries until it is activated again (PUT /v1/webhooks/%s with active: true)",
		hook.ID, hook.URL, hook.DisabledReason, hook.ID)
	if err := e.commitEvents(ctx, src, []model.Event{emit.ErrorEvent(reason, model.Invocation{Kind: "delivery", Event: dl.Payload})}); err != nil && ctx.Err() == nil {
		e.log.Error("record a webhook's deactivation", "webhook", hook.ID, "err", err)
	}
}

// ReplayEvents delivers again, to webhook hookID, the kept events of an
// emitter's channel indexed from fromMs to toMs (inclusive), oldest first,
// as new deliveries. It returns them.
func (e *Engine) ReplayEvents(ctx context.Context, hookID, emitterID, channel string, fromMs, toMs int64) ([]model.Delivery, error) {
	events, err := e.store.ListEvents(ctx, emitterID, channel, maxReplay)
	if err != nil {
		return nil, err
	}
	var ds []model.Delivery
	for i := len(events) - 1; i >= 0; i-- { // newest first from the store
		ev := events[i]
		if ev.IndexedAtMs < fromMs || ev.IndexedAtMs > toMs {
			continue
		}
		ds = append(ds, model.Delivery{Kind: model.DeliveryToWebhook, ListenerID: hookID, EmitterID: emitterID, EventID: ev.ID, Channel: ev.Name, Payload: route.DeliveryPayload(ev)})
	}
	if len(ds) == 0 {
		return nil, nil
	}
	stored, err := e.queues.EnqueueDeliveries(ctx, ds)
	if err != nil {
		return nil, err
	}
	e.deliverer.Poke()
	return stored, nil
}

// maxReplay bounds the events one replay reads: more than a channel keeps
// by default, fewer than a page of them could cost.
const maxReplay = 1000
