package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/fount-dev/fount/host"
	"github.com/fount-dev/fount/secret"
	"github.com/fount-dev/fount/store"
)

// Config configures an Engine. Store, Queues, Host and Secrets are
// required; zero values of the rest take the defaults below.
type Config struct {
	Store   store.Store
	Queues  store.Queues
	Host    *host.Host
	Secrets *secret.Sealer
	// Egress is the policy for components' fetch and for webhook
	// deliveries.
	Egress *host.EgressPolicy
	// Workers bounds how many sources run at once. Default 4.
	Workers int
	// EventsKept is how many events each channel of an emitter keeps.
	// Default 100, the spec's figure.
	EventsKept int
	// MaxHops bounds chains of source-to-source deliveries. Default 8.
	MaxHops int
	// RespondTimeout is how long a customResponse request waits for
	// respond(). Default 30 s.
	RespondTimeout time.Duration
	// MaxBody caps an HTTP-interface request body. Default 512 KB.
	MaxBody int64
	// MaxAttempts and RetryBase shape webhook retries: exponential backoff
	// from RetryBase with jitter, capped at an hour. Defaults 8 and 1 s.
	MaxAttempts int
	RetryBase   time.Duration
	// Limits are the sandbox limits of every run.
	Limits host.Limits
	// QuotaInvocations and QuotaComputeMs are the daily quotas of free
	// accounts. Defaults DefaultQuotaInvocations and DefaultQuotaComputeMs.
	QuotaInvocations int64
	QuotaComputeMs   int64
	Logger           *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.Workers <= 0 {
		c.Workers = 4
	}
	if c.EventsKept <= 0 {
		c.EventsKept = 100
	}
	if c.MaxHops <= 0 {
		c.MaxHops = 8
	}
	if c.RespondTimeout <= 0 {
		c.RespondTimeout = 30 * time.Second
	}
	if c.MaxBody <= 0 {
		c.MaxBody = 512 << 10
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 8
	}
	if c.RetryBase <= 0 {
		c.RetryBase = time.Second
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
	return c
}

// Engine runs sources. Create it with New, then Start; Stop ends every
// goroutine it started.
type Engine struct {
	cfg  Config
	log  *slog.Logger
	sch  *scheduler
	subs *broadcaster

	mu         sync.Mutex
	live       map[string]*live      // by source id
	endpoints  map[string]endpoint   // by endpoint token
	timers     map[string]*timer     // by source id
	waiters    map[string]*waiter    // by invocation id, for customResponse
	quotaCache map[string]quotaEntry // by account, for the ingress
	delayDue   map[string]int64      // earliest delayed emit per source, epoch ms
	inFlight   map[string]bool       // deliveries being sent
	deliverSem chan struct{}         // bounds concurrent deliveries
	deliverCh  chan struct{}         // wakes the delivery loop

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// live is a loaded source: its record, component and sandbox.
type live struct {
	src   store.Source
	comp  store.Component
	meta  *host.Metadata
	props map[string]json.RawMessage // plain, secrets opened
	hs    *host.Source
}

// New returns an Engine; it does nothing until Start.
func New(cfg Config) *Engine {
	cfg = cfg.withDefaults()
	e := &Engine{
		cfg: cfg, log: cfg.Logger, subs: newBroadcaster(),
		live: map[string]*live{}, endpoints: map[string]endpoint{}, timers: map[string]*timer{},
		waiters: map[string]*waiter{}, quotaCache: map[string]quotaEntry{}, delayDue: map[string]int64{}, inFlight: map[string]bool{},
		deliverSem: make(chan struct{}, deliveryWorkers), deliverCh: make(chan struct{}, 1),
	}
	e.sch = newScheduler(e.drain)
	return e
}

// Start brings every active source's endpoints and timers back from the
// store, resumes queued invocations and pending deliveries, and starts the
// workers.
func (e *Engine) Start(ctx context.Context) error {
	e.ctx, e.cancel = context.WithCancel(context.Background())
	sources, err := e.cfg.Queues.AllSources(ctx)
	if err != nil {
		return err
	}
	for _, src := range sources {
		if src.Active {
			e.activateTriggers(src)
		}
	}
	if err := e.loadDelayed(ctx, sources); err != nil {
		return err
	}
	e.sch.start(e.ctx, e.cfg.Workers, &e.wg)
	pending, err := e.cfg.Queues.SourcesWithPending(ctx)
	if err != nil {
		return err
	}
	for _, id := range pending {
		e.sch.kick(id)
	}
	e.wg.Add(2)
	go e.deliveryLoop()
	go e.delayLoop()
	return nil
}

// Stop stops timers, workers and deliveries and waits for them; a run in
// progress is interrupted and will run again on the next start.
func (e *Engine) Stop() {
	if e.cancel == nil {
		return
	}
	e.mu.Lock()
	for id, t := range e.timers {
		t.stop()
		delete(e.timers, id)
	}
	e.mu.Unlock()
	e.cancel()
	e.sch.stop()
	e.wg.Wait()
	e.mu.Lock()
	for id, l := range e.live {
		l.hs.Close(context.Background())
		delete(e.live, id)
	}
	e.mu.Unlock()
}

// load returns the live source, loading it from the store on first use.
func (e *Engine) load(ctx context.Context, id string) (*live, error) {
	e.mu.Lock()
	l := e.live[id]
	e.mu.Unlock()
	if l != nil {
		return l, nil
	}
	src, err := e.cfg.Store.GetSource(ctx, id)
	if err != nil {
		return nil, err
	}
	comp, err := e.cfg.Store.GetComponent(ctx, src.ComponentID)
	if err != nil {
		return nil, fmt.Errorf("engine: component of %s: %w", id, err)
	}
	props, err := e.cfg.Secrets.OpenProps(src.ConfiguredProps)
	if err != nil {
		return nil, err
	}
	l, err = e.build(ctx, src, comp, props)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if cur := e.live[id]; cur != nil { // loaded concurrently: keep one
		l.hs.Close(ctx)
		return cur, nil
	}
	e.live[id] = l
	return l, nil
}

// build loads a component with its props in a new sandbox source.
func (e *Engine) build(ctx context.Context, src store.Source, comp store.Component, props map[string]json.RawMessage) (*live, error) {
	var meta host.Metadata
	if err := json.Unmarshal(comp.Metadata, &meta); err != nil {
		return nil, fmt.Errorf("engine: component %s metadata: %w", comp.ID, err)
	}
	raw, err := json.Marshal(props)
	if err != nil {
		return nil, err
	}
	hs, err := e.cfg.Host.NewSource(ctx, host.SourceSpec{ID: src.ID, Code: comp.Code, Props: raw})
	if err != nil {
		return nil, err
	}
	return &live{src: src, comp: comp, meta: &meta, props: props, hs: hs}, nil
}

// forget drops a loaded source, e.g. after an update or delete.
func (e *Engine) forget(id string) {
	e.mu.Lock()
	l := e.live[id]
	delete(e.live, id)
	e.mu.Unlock()
	if l != nil {
		l.hs.Close(context.Background())
	}
}

// Deliveries lists a webhook's deliveries, newest first.
func (e *Engine) Deliveries(ctx context.Context, listenerID string, p store.Page) (store.PageOf[store.Delivery], error) {
	return e.cfg.Queues.ListDeliveries(ctx, listenerID, p)
}
