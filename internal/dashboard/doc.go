// Package dashboard is fount's web UI: static files embedded in the
// binary, served at / and /ui/. The pages are plain HTML, CSS and
// JavaScript with no build step; they talk to the /v1 API like any other
// client, signed in with a session cookie that the api package issues
// (see internal/api/session.go).
package dashboard
