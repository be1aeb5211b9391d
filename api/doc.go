// Package api is fount's REST surface at /v1: authentication, organization
// checks, request parsing, pagination, include/exclude, the single error
// shape, server-sent events and the OpenAPI document. It is deliberately
// thin: it validates input and calls engine and store.
package api
