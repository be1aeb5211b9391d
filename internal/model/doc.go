// Package model holds fount's domain records: accounts and
// organizations, components, sources and their subscriptions, webhooks,
// workflows and their executions, events, and the work queued for them
// (invocations, deliveries, usage), with their ids' forms and the
// invariants that belong to a record alone (a source's code to run, which
// sources an auto-subscription covers, the form of an event id).
//
// The API, the engine and the CLI name these records without importing
// the store, which only keeps them. model imports the standard library
// and the component package (a component's metadata and props, which a
// component, a source and a workflow step carry), nothing else.
package model
