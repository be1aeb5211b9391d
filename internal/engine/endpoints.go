package engine

import (
	"sync"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/model"
)

// endpoint is an HTTP-interface prop's endpoint.
type endpoint struct {
	target         model.Target // a source's http prop, or a workflow's HTTP trigger
	account        string       // whose quota its runs count against
	prop           string
	customResponse bool
	tokenHash      string // the hash of the bearer token requests must carry; "": none
	queueSize      int    // the target's bound of waiting invocations; 0: none
}

// endpointRegistry maps the endpoint tokens of active sources to their
// endpoint, so that the ingress answers without a store read. It starts
// accepting on Start; after Stop every lookup misses and nothing is added.
type endpointRegistry struct {
	mu       sync.RWMutex
	byToken  map[component.EndpointToken]endpoint
	bySource map[string][]component.EndpointToken
	running  bool
}

func newEndpointRegistry() *endpointRegistry {
	return &endpointRegistry{byToken: map[component.EndpointToken]endpoint{}, bySource: map[string][]component.EndpointToken{}}
}

// Start makes the registry accept endpoints.
func (r *endpointRegistry) Start() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running = true
}

// Stop forgets every endpoint; it is safe to call twice.
func (r *endpointRegistry) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running = false
	clear(r.byToken)
	clear(r.bySource)
}

// set replaces the endpoints of a source.
func (r *endpointRegistry) set(sourceID string, eps map[component.EndpointToken]endpoint) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.removeLocked(sourceID)
	if !r.running || len(eps) == 0 {
		return
	}
	for tok, ep := range eps {
		r.byToken[tok] = ep
		r.bySource[sourceID] = append(r.bySource[sourceID], tok)
	}
}

// remove drops a source's endpoints.
func (r *endpointRegistry) remove(sourceID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.removeLocked(sourceID)
}

func (r *endpointRegistry) removeLocked(sourceID string) {
	for _, tok := range r.bySource[sourceID] {
		delete(r.byToken, tok)
	}
	delete(r.bySource, sourceID)
}

// lookup returns the endpoint of a token.
func (r *endpointRegistry) lookup(tok component.EndpointToken) (endpoint, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	ep, ok := r.byToken[tok]
	return ep, ok
}
