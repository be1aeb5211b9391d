// Package api is fount's REST surface at /v1: authentication, organization
// checks, request parsing, pagination, include/exclude, the single error
// shape, server-sent events and the OpenAPI document. It is deliberately
// thin: it validates input, authorises, calls the engine (which owns every
// change, and reads the stored records through engine.Records) and maps
// the results to apiv1. It starts no goroutine.
package api
