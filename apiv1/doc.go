// Package apiv1 is the contract of fount's REST API at /v1: the request and
// response types of every operation, shared by the server (package api),
// which decodes requests into them and answers with them, and by the Go
// client (package client). The OpenAPI document the server publishes at
// /v1/openapi.json is generated from these types, so the three cannot
// drift apart.
//
// Struct tags say where a field travels, as the specification documents
// it: `json` in a JSON body (or a response), `query` in the query string,
// `path` in the URL path. The server is lenient where the specification
// is ("parameters may be query-string parameters on GET requests and body
// fields on POST requests"): on POST, PUT and DELETE a query field may
// also come in the body and a scalar body field in the query, the body
// winning when both are sent. A name that is no field of the operation is
// refused. `required`, `minimum`, `maximum`, `maxLength`, `enum`,
// `default` and `description` tags become the JSON Schema of the field;
// the server enforces `maxLength`, which every string parameter has.
//
// The package imports nothing of the server, so a client can use it alone.
package apiv1
