// Package route decides who gets an emitter's events: the subscriptions
// of its owner (globs included) and its creator's exact ones, and the
// auto-subscriptions that apply to it, as invocations of the sources and
// workflows that listen (within a bound of hops, so that chains of
// sources end) and as deliveries to webhooks. A Router reads the
// subscriptions before a commit and routes inside it, without I/O.
package route
