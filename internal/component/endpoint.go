package component

import (
	"crypto/rand"
	"encoding/base64"
	"strings"
)

// EndpointToken is the unguessable last path segment of a source's HTTP
// interface, /h/<token>. The store keeps the token; the URL is derived
// from it and the server's current public URL whenever it is shown, so a
// server moved to another address shows the right URLs at once.
type EndpointToken string

// endpointTokenBytes is a token's randomness: 144 bits.
const endpointTokenBytes = 18

// NewEndpointToken returns a fresh random token.
func NewEndpointToken() EndpointToken {
	b := make([]byte, endpointTokenBytes)
	_, _ = rand.Read(b) // never fails since Go 1.24
	return EndpointToken(base64.RawURLEncoding.EncodeToString(b))
}

// EndpointPath is the path under which every HTTP interface is served.
const EndpointPath = "/h/"

// FlowPath is where the resume and cancel URLs of paused workflow
// executions are served, beside the endpoints: FlowPath + <execution
// id>/<secret>/resume or /cancel. No token is "flow" (tokens are 24
// characters long).
const FlowPath = EndpointPath + "flow/"

// URL is the endpoint's URL under publicURL (with or without a trailing
// slash).
func (t EndpointToken) URL(publicURL string) string {
	return strings.TrimRight(publicURL, "/") + EndpointPath + string(t)
}

// TokenFromURL returns the token of an endpoint URL made by URL (its last
// path segment), or false.
func TokenFromURL(u string) (EndpointToken, bool) {
	i := strings.LastIndex(u, EndpointPath)
	if i < 0 {
		return "", false
	}
	t := u[i+len(EndpointPath):]
	if !validToken(t) {
		return "", false
	}
	return EndpointToken(t), true
}

// validToken reports whether t could be a token: base64url characters
// only, and not empty.
func validToken(t string) bool {
	if t == "" || len(t) > 64 {
		return false
	}
	for _, c := range t {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
