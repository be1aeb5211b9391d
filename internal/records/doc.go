// Package records keeps the records that no running code is made of:
// users and organizations, subscriptions, webhooks, connected accounts,
// data stores and their entries. The API checks a request and who may
// make it; a Service makes the change. Changes that start or stop code
// (sources, workflows, components) are the engine's.
package records
