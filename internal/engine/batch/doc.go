// Package batch is the loop that runs a source's or a workflow's queued
// invocations a batch at a time (Loop.Drain: written once for both
// kinds, each of which brings a Runner), with its parts: how many make a
// batch (Size), the invocations of a deep queue read ahead for later
// batches (Ahead), a workflow's throttle windows (Throttles), the daily
// quotas of free accounts (Quotas), and the finished runs held until
// they are committed (Pending), and the commit itself (Loop.Commit: the
// runs stored with what they emitted routed to its listeners, then the
// listeners woken, delayed emits noted, events published). How an
// invocation runs is its Runner's; who owns a queue, and what waking a
// target means on several nodes, are the engine's (its Host).
package batch
