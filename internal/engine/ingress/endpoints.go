package ingress

import (
	"sync"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/model"
)

// Endpoint is an HTTP-interface prop's endpoint, or a workflow's HTTP
// trigger.
type Endpoint struct {
	Target         model.Target // a source's http prop, or a workflow's HTTP trigger
	Account        string       // whose quota its runs count against
	Prop           string
	CustomResponse bool   // the request waits for the run's respond()
	TokenHash      string // the hash of the bearer token requests must carry (HashToken); "": none
	QueueSize      int    // the target's bound of waiting invocations; 0: none
}

// Registry maps the endpoint tokens of active sources and workflows to
// their endpoint, so that the ingress answers without a store read. It
// starts accepting on Start; after Stop every lookup misses and nothing
// is added.
type Registry struct {
	mu       sync.RWMutex
	byToken  map[component.EndpointToken]Endpoint
	bySource map[string][]component.EndpointToken
	running  bool
}

func newRegistry() *Registry {
	return &Registry{byToken: map[component.EndpointToken]Endpoint{}, bySource: map[string][]component.EndpointToken{}}
}

// Start makes the registry accept endpoints.
func (r *Registry) Start() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running = true
}

// Stop forgets every endpoint; it is safe to call twice.
func (r *Registry) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running = false
	clear(r.byToken)
	clear(r.bySource)
}

// Set replaces the endpoints of a source or workflow.
func (r *Registry) Set(sourceID string, eps map[component.EndpointToken]Endpoint) {
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

// Remove drops the endpoints of a source or workflow.
func (r *Registry) Remove(sourceID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.removeLocked(sourceID)
}

func (r *Registry) removeLocked(sourceID string) {
	for _, tok := range r.bySource[sourceID] {
		delete(r.byToken, tok)
	}
	delete(r.bySource, sourceID)
}

// Count is how many endpoints answer.
func (r *Registry) Count() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.byToken)
}

// Lookup returns the endpoint of a token.
func (r *Registry) Lookup(tok component.EndpointToken) (Endpoint, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	ep, ok := r.byToken[tok]
	return ep, ok
}
