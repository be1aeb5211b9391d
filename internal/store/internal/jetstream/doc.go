// Package jetstream is the store's engine on a NATS JetStream stream that
// several nodes share: the transactions the store's rules run in
// (kv.Engine, atomic batches whose messages carry the revisions they
// read), records larger than a message stored in parts, the event log,
// the queues of invocations and deliveries, executions, the sources' db,
// and the leases and heartbeats of the nodes (docs/nats.md).
//
// Only store imports it; store.JetStream is the rules over an Engine.
package jetstream
