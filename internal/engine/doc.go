// Package engine makes deployed sources and workflows live. It owns
// their lifecycle operations (a source's deploy, update, activate and
// deactivate, delete, each a single operation; a workflow's deploys and
// updates), their triggers (endpoints, timers, subscriptions), manual
// runs, the commit of runs with its fan-out to listeners, and quotas. It
// runs sources (package source) and workflows' executions (package flow)
// a batch at a time (package batch), and delivers to signed webhooks
// (package delivery).
//
// # Where things are
//
// In this package: engine.go (Config, New, Start and Stop), lifecycle.go
// (a source's deploy, update and delete), components.go and packages.go
// (saving a component, with the npm packages it imports), props.go and
// configure.go (a source's props: checked, sealed, options and added
// props), workflows.go and stepprops.go (a workflow's deploys and its
// steps' props), triggers.go (endpoints, timers, manual runs and
// releases: what queues invocations), capabilities.go, accounts.go and
// datastores.go (what a run or hook may reach), pool.go and admit.go
// (the workers and sandboxes tenants' code runs on), cluster.go
// (messages between nodes). The batch loop both kinds share, with the
// commit of runs and its routing, is package batch (loophost.go connects
// it to the engine); a source's runs are package source (sourcehost.go
// gives them what they need), a workflow's definitions and executions
// package flow (flowhost.go). The parts with a responsibility of their
// own are the packages below it (see Parts); the records no running code
// is made of are written by package records, beside the engine.
//
// It depends on a store (package store) for everything durable, on a
// sandbox through the small interface of package sandbox, and on a clock.Clock
// for every timer and timestamp, so that it is tested in its own package
// with a fake sandbox and a fake clock.
//
// # Lifecycle
//
// Each lifecycle operation writes the store once, in one transaction that
// also commits what the source's hooks emitted (routed to listeners like
// any emit), and changes the running engine only after that write
// succeeded. So the engine is never ahead of the store: a write that fails
// leaves no endpoint, timer or sandbox behind, and nothing the store does
// not hold ever runs. The one window, after the write and before the
// triggers follow it, lasts microseconds; work a trigger queues for a
// source deleted in it is dropped when it runs.
//
// Deploy: validate props; load the component in a sandbox; run the deploy
// hook, then activate (the specification's order); store the source with
// the hooks' events; register endpoints and arm timers. A hook that
// throws ends the deploy before the store is touched.
//
// A deploy whose store write fails runs the deactivate hook, to undo what
// activate registered upstream, and clears what the hooks wrote to the db.
//
// Update (PUT, which is also how a source is switched on or off; hooks run
// on every update, active or not, and the active flag only switches the
// triggers): validate; load the new version; run the old version's
// deactivate hook, then the new version's activate hook (the
// specification's order: real components unregister upstream webhooks in
// deactivate by ids kept in the db that activate then overwrites, so the
// other order would delete the new registration); store; swap triggers
// (an endpoint is replaced, never absent) and sandbox. If deactivate
// throws, nothing has changed. If activate throws, or the store write
// fails, the hooks are undone (the new version's deactivate when it had
// activated, the old version's activate again), so the old version keeps
// running as stored, as it was.
//
// Delete: run the deactivate hook; delete the source, its events, db and
// subscriptions in one transaction that first routes the hook's events;
// stop triggers; close the sandbox. A deactivate hook that throws cannot
// stop a delete (a broken hook would make a source undeletable): its
// failure is logged and recorded as an $errors event, delivered to the
// source's $errors listeners before the source is gone.
//
// Lifecycle operations of one source are serialised, a deploy's included
// (a delete of a source stored a moment ago waits for its triggers to come
// up, then takes them down). Once an operation's first hook has run, it
// goes on to the end even if its caller's context is cancelled: a client
// that hangs up must not leave a version deactivated upstream and still
// stored. Engine.Stop waits for operations in flight. Runs go on during
// them in their own instances; a run that loads a source while it is
// updated or deleted keeps no sandbox of the old version (package
// source's live set).
//
// # Durability
//
// Every trigger first becomes a store.Invocation in the source's durable
// queue (an HTTP request is acknowledged only after that). A worker runs
// it in the sandbox and commits what the run produced (its events, the
// invocations and deliveries they route to, the dedupe state and the
// usage counters) in the same transaction that removes the invocation
// (store.Queues.CompleteRuns). A crash between the run and the commit
// runs the invocation again on restart: delivery is at least once, and
// nothing acknowledged is lost.
//
// A run with large results is committed in several bounded transactions,
// so that it does not hold the store's one writer for long: its last
// events go with the invocation's removal, and each earlier part with the
// dedupe state of the events it stores. A crash between two parts runs
// the invocation again, and what it emits again is deduplicated as the
// stored part was; a source without a dedupe strategy gets that part
// twice. A batch commits its runs whenever their results reach
// batch.MaxBytes, so that it never holds more in memory.
//
// # Workflows
//
// A workflow is a trigger and steps. Its invocations queue and run as a
// source's do (one batch at a time, in order, or up to its concurrency),
// each a new execution of its steps (package flow, whose doc says how an
// execution runs, pauses and goes on). The engine deploys a workflow
// (workflows.go: its trigger, its steps described and their props
// checked and sealed), starts its trigger (an endpoint, a timer or a
// subscription), and gives package flow its steps' code and props, the
// sandboxes, and what a step may reach (flowhost.go).
//
// # Limits inside a run
//
// A run adds at most emit.NewChannelsPerRun channels and a source has at most
// Config.MaxChannels (reserved channels aside); emits past them are
// dropped and reported in one $errors event. A run keeps at most
// emit.MaxLogLines console lines. An $errors event copies the error's name,
// message and stack and the original event within caps (package emit),
// the event replaced by {"truncated": true, "bytes": N} when over. Every
// channel, $in included, keeps Config.EventsKept events.
//
// # Ordering
//
// Invocations of one source run one at a time in arrival order; different
// sources run in parallel on a bounded pool of workers (scheduler). A
// source's turn runs a batch of its queue; a deep queue is read several
// batches at a time, the rest kept in memory for its next turns, shortly
// and within bounds (package batch), and dropped when a batch fails so that
// its invocations are read again in order.
//
// # Fairness
//
// Everything that runs a tenant's code goes through that pool: runs, and
// the loading, hooks and introspection of lifecycle operations (inPool),
// under the same time limit and counted against the same daily quota.
// Work is queued per account (the user who deployed a source) and served
// round-robin, and one account holds at most Config.AccountWorkers
// workers, so that an account whose code loops forever slows itself, not
// others. Lifecycle work goes before its account's queued runs, but
// within its share: an account whose code holds its workers deploys or
// updates once one of them is free, and an operation that finds none
// within Config.LifecycleWait, before anything of it has run, does
// nothing and fails with a *BusyError (429 or 503 with Retry-After), so
// that every request gets an answer in bounded time. Deleting a source
// without a deactivate hook needs no worker.
//
// # Deliveries
//
// Webhook deliveries are sent at least once, each attempt with the same
// webhook-id (the delivery's id) and body, and fairly between webhooks
// and accounts (package delivery: its Deliverer and gate): webhooks are served in turn,
// each poll taking one delivery per webhook from the store's
// per-listener due index; one attempt is in flight per webhook (so a
// webhook gets its deliveries in due order), perAccountDeliveries per
// account (the user who created the webhook); and a webhook whose endpoint stops
// answering is paused by its circuit breaker (breakerThreshold attempts
// in a row without an answer: a pause of breakerCoolOff, doubling up to
// breakerMaxCoolOff, then one trial attempt). A pause is not an attempt:
// the deliveries stay pending with the attempts they had. Breakers live in
// memory; a restart closes them.
//
// # Parts
//
// The Engine is built from parts, each owning its goroutines and timers
// and each with Start and Stop (Stop is safe twice, and nothing a part
// started fires after its Stop returns). Those with goroutines of their
// own are packages in this folder, all on one clock (package clock):
//   - timers: the timer props of sources and triggers of workflows;
//   - delayed: the due times of delayed emits and paused executions;
//   - scheduler: the pool of workers, fair between accounts;
//   - delivery: the deliverer of webhooks and of workflows' sends;
//   - ingress: the endpoints of sources and workflows, the requests
//     waiting for respond(), the resume and cancel URLs;
//   - emit: what a run emitted becomes events (ts order, dedupe,
//     channels, $errors, $logs, delayed records);
//   - route: who gets an emitter's events (subscriptions, hops);
//   - batch: the parts of the batch loop (its size, read-ahead, a
//     workflow's throttle windows, the daily quotas);
//   - admission: the sandboxes accounts hold at once.
//
// Engine.Stop stops
// the endpoints, timers, delayed emits, workers and deliverer in that
// order, answers the waiting requests and closes the sandboxes; the store
// can be closed after it.
//
// # Caveats
//
//   - db writes happen during the run, not with its commit: a run retried
//     after a crash sees its own earlier writes.
//   - Hooks' emits are not deduplicated: the dedupe state belongs to runs.
//   - The clock drives timers, retries and delays; event ids and queue
//     times come from the store's own clock.
package engine
