// Package ingress is the HTTP side of sources and workflows: their
// endpoints (/h/<token>[/sub/path], any method), the requests that wait
// for a run's respond() (Waiters, HeldResponse), and the resume and
// cancel URLs of paused workflow executions (/h/flow/...).
//
// It knows the endpoints of active sources and workflows by token
// (Registry), so that a request costs no store read before it is queued.
// What a request leads to (the account's quota checked, an invocation
// queued and its target woken, a paused execution found and its resume
// queued) it asks of its Host, the engine. Responses are a tenant's:
// sandboxed for browsers, their cookies scoped to the endpoint's path,
// the cookies fount reserves neither set nor read.
package ingress
