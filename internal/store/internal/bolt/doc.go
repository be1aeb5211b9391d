// Package bolt is the store's engine on one bbolt file: the transactions
// the store's rules run in (kv.Engine, over buckets whose index keys are
// scanned by prefix), and what bbolt lays out its own way: the event log
// (a bucket per emitter and channel), the queues of invocations and
// deliveries, executions, the sources' db, the group commit of enqueues,
// the migrations of older files, backups and statistics.
//
// Only store imports it; store.Bolt is the rules over an Engine.
package bolt
