// Package store keeps fount's durable state, the records of package
// model: accounts, API keys, organizations, components, sources,
// subscriptions, auto-subscriptions, webhooks, per-emitter event logs and
// per-source db KV (Store), and the engine's invocation and delivery
// queues, dedupe, usage and timer state (Queues), with the rules that
// span records: limits, cascades on delete, name slugs, cursors and pages.
//
// Store and Queues are the interfaces the rest of fount uses. Bolt
// implements both on bbolt in the data directory; JetStream implements
// both on a NATS JetStream stream that several nodes share (docs/nats.md
// for the mapping). The rules are written once, as methods of rules,
// which both embed, against kv.Tx, a transaction of either engine
// (store/internal/kv). Each engine is a package of its own,
// store/internal/bolt and store/internal/jetstream, and implements
// kv.Engine and what is its own: the event log, the queues of
// invocations and deliveries, executions, the db, and for bbolt group
// commit and migrations, for JetStream transactions, parts and leases.
// Bolt and JetStream are the rules over one engine each, whose methods
// they promote. Both pass the same tests (eachBackend); each engine's
// tests of what is its alone live in its package.
// What only one can do is an optional interface the server asks for:
// Backuper and StatsReporter (Bolt), Shared (JetStream).
//
// # Caveats
//
// Of Bolt (JetStream's are in docs/nats.md):
//
//   - Every multi-key change runs in one bbolt write transaction, but for
//     CompleteRuns: it splits large results over transactions bounded in
//     events and bytes (a run's completion stays atomic with its last
//     events), because bbolt has one writer and every tenant waits on it.
//   - Byte slices read from bbolt never escape their transaction: records
//     are decoded into fresh values inside it.
//   - Write transactions are short; no network I/O happens inside one.
//   - Every channel of an emitter, $in included, keeps its newest keep
//     events; older ones go on the next write to the channel.
//   - Resources are owned by a user (u_...) or an organization (o_...):
//     OwnerID. Access checks belong to the caller (package api); the store
//     only answers what is asked.
package store
