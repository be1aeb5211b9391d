// Package engine makes deployed sources live: deploy, update and delete with
// hooks; HTTP-interface ingress; timers; manual runs; the emit pipeline
// (ordering by ts, dedupe, channels, $errors, $logs); subscription fan-out
// and delivery to sources, workflows and signed webhooks; quotas.
//
// It drives the sandbox through package host and keeps its state in package
// store, never in process memory, so that several fount processes can share
// one store later. The package is filled in by the engine issue.
package engine
