// Package source runs deployed sources' invocations. A source's queue is
// run a batch at a time by the engine's batch loop (package batch), with
// this package's Runner as the source's runner: each invocation runs on
// the source's live sandbox, with its dedupe state carried from one run
// to the next, and what it emitted goes through the emit pipeline
// (package emit) into the run's commit.
//
// # Where things are
//
// live.go: the live sources, loaded once and kept, and the tickets that
// keep a load raced by a lifecycle change from installing a stale
// sandbox. runner.go: the Runner, loading a source and a batch that
// cannot load. run.go: one run and what it commits. delayed.go: the
// release of delayed emits (those with a future delivery_ts, kept on the
// source's $in channel) when they are due.
//
// # What the engine gives it
//
// The component loaded with its props (secrets opened), a sandbox
// reserved for each call, what a run may reach (its db, $auth, data
// stores, egress), its channel bounds, source maps, and the commit that
// routes what the runs stored: the Host. Lifecycle operations (deploy,
// update, delete) are the engine's: they build a Live with Build and
// Install it, or Forget it.
package source
