// Package engine makes deployed sources live: deploy, update and delete with
// hooks; HTTP-interface ingress; timers; manual runs; the emit pipeline
// (ordering by ts, dedupe, channels, $errors, $logs); subscription fan-out
// and delivery to sources, workflows and signed webhooks; quotas.
//
// # Durability
//
// Every trigger first becomes a store.Invocation in the source's durable
// queue (an HTTP request is acknowledged only after that). A worker runs
// it in the sandbox and commits what the run produced — its events, the
// invocations and deliveries they route to, the dedupe state and the usage
// counters — in the same transaction that removes the invocation
// (store.Queues.CompleteRun). A crash between the run and the commit runs
// the invocation again on restart: delivery is at least once, and nothing
// acknowledged is lost.
//
// # Ordering
//
// Invocations of one source run one at a time in arrival order; different
// sources run in parallel on a bounded pool of workers.
//
// # Caveats
//
//   - Events emitted by deploy and activate hooks are stored on the
//     source's log but not routed to subscriptions (the source has none
//     yet, and the hooks run before the source is stored).
//   - db writes happen during the run, not with its commit: a run retried
//     after a crash sees its own earlier writes.
package engine
