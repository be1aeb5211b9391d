// Package server is a whole fount server, wired: the store, the sandbox,
// the engine, the REST API and dashboard, the metrics, and the HTTP
// servers of the API and the endpoints. `fount serve` fills a Config from
// its flags and calls New and Run; tests start servers in-process the same
// way (Serve). Run shuts everything down in order: HTTP first, then the
// engine, the sandbox, and the store last.
package server
