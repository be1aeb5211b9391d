// Package api is fount's REST surface at /v1: authentication, organization
// checks, request parsing, pagination, include/exclude, the single error
// shape, server-sent events and the OpenAPI document. It is deliberately
// thin: it validates input, authorises, calls the engine for the changes
// that start or stop code (sources, workflows, components) and a
// records.Service for the other records, reads the stored records
// through records.Reader, and maps the results to apiv1. It starts no goroutine.
package api
