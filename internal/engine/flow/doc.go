// Package flow runs workflows' executions. A workflow's queue is run a
// batch at a time by the engine's batch loop (package batch), with this
// package's Runner as the workflow's runner.
//
// # Where things are
//
// definition.go: the checks a workflow's definition passes before its
// steps load (names, kinds, templates, controls, the trigger's token).
// batch.go: a workflow's batch (new executions, up to its concurrency at
// once; releases and resumes of paused ones). execute.go: one
// execution's steps, in order, and what its part commits. steps.go: the
// steps.* context a step is given. record.go: a step's record and the
// caps of an execution's record. errevent.go: the $errors event of a
// failed execution. pause.go: pausing an execution ($.flow.delay,
// suspend, rerun, and a retry's wait) and going on with it. due.go: when
// the paused executions of the workflows this node runs are due.
// loaded.go: workflows' steps loaded in their sandboxes. oneoff.go: a
// step run on its own (an action's test run).
//
// # What the engine gives it
//
// Deploying a workflow (describing its steps in the sandbox, sealing
// their secret props, starting its trigger) is the engine's. So are a
// step's code loaded with its props (secrets opened, templates set
// apart), a sandbox reserved for each call, the accounts, data stores
// and egress a step reaches, its $.service.db, its channel bounds and
// source maps: the Host. Its store, clock and delayed scheduler are the
// engine's own.
//
// # An execution
//
// A new execution runs its steps in order, each given steps.* so far,
// until the last, a throw, an exit or a pause; the execution's record,
// its $.send calls and emits are committed with the invocation's
// removal, and a failed execution commits an $errors event instead of
// what it sent, unless its retry (model.Retry) pauses it until its
// failed step runs again. A paused execution is a record in the store's
// table of paused executions, committed with its step (pause.go says
// how it goes on, once).
package flow
