// Package store owns fount's durable state: accounts, API keys,
// organizations, components, sources, subscriptions, auto-subscriptions,
// webhooks, per-emitter event logs and per-source db KV (Store), and the
// engine's invocation and delivery queues, dedupe, usage and timer state
// (Queues).
//
// Store and Queues are the interfaces the rest of fount uses; Bolt
// implements both on bbolt in the data directory. A second, distributed
// backend (NATS JetStream) is planned to sit beside it, which is why
// callers never see bbolt types.
//
// # Caveats
//
//   - Every multi-key change runs in one bbolt write transaction.
//   - Byte slices read from bbolt never escape their transaction: records
//     are decoded into fresh values inside it.
//   - Write transactions are short; no network I/O happens inside one.
//   - Resources are owned by a user (u_...) or an organization (o_...):
//     OwnerID. Access checks belong to the caller (package api); the store
//     only answers what is asked.
package store
