// Package batch holds the parts of the loop that runs a source's or a
// workflow's queued invocations a batch at a time: how many make a batch
// (Size), the invocations of a deep queue read ahead for later batches
// (Ahead), a workflow's throttle windows (Throttles), and the daily
// quotas of free accounts (Quotas). The loop itself is the engine's.
package batch
