// Package store owns fount's durable state: accounts, API keys,
// organizations, components, sources, subscriptions, webhooks, per-emitter
// event logs, per-source db KV, and the delivery and invocation queues.
//
// It is built on bbolt today and exposes Go interfaces so that a second,
// distributed backend (NATS JetStream) can sit beside it later. Byte slices
// read from bbolt never escape their transaction.
//
// The package is filled in by the control-plane issue; until then it holds
// only this description of its responsibility.
package store
