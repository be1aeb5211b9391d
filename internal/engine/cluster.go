package engine

import (
	"context"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/model"
)

// Cluster shares the work of one store among the nodes that run on it
// (docs/nats.md). Every node accepts API and endpoint requests for every
// source; the work of each source, workflow and webhook (its queued
// invocations, timers, delayed emits and deliveries) is done by the one
// node that owns it at the time. Config.Cluster nil: this node is alone
// and owns everything.
type Cluster interface {
	// Start begins taking part, calling h when other nodes say something.
	Start(h ClusterHandlers) error
	// Stop stops taking part; the other nodes take this node's work over.
	Stop()
	// Owns reports whether this node does id's work now.
	Owns(id string) bool
	// Kick tells every node that t has queued work: its owner drains it.
	Kick(t model.Target)
	// Changed tells the other nodes that the source or workflow t was
	// deployed, updated, switched on or off, or deleted.
	Changed(t model.Target)
	// Publish gives stored events to the event streams of the other nodes.
	Publish(events []model.Event)
	// ReplyAddress is where a run on any node sends the response of a
	// request that waits on this node under key.
	ReplyAddress(key string) string
	// Reply sends a run's response (nil: the run ended) to an address of
	// another node; false when the address is this node's own.
	Reply(address string, r *abi.Response) bool
}

// ClusterHandlers are what the engine does when other nodes say
// something.
type ClusterHandlers struct {
	Kick    func(t model.Target)
	Changed func(t model.Target)
	Events  func(events []model.Event)
	// Reply gives a waiting request its run's response; r nil: the run
	// ended.
	Reply func(address string, r *abi.Response)
	// Resume resumes the work of what this node owns: when it starts
	// owning more (gained), and now and then, for work whose kick was
	// lost.
	Resume func(gained bool)
}

// owns reports whether this node does id's work.
func (e *Engine) owns(id string) bool {
	return e.cfg.Cluster == nil || e.cfg.Cluster.Owns(id)
}

// kick gives t's queued work to its owner: this node's workers, or the
// node that owns it.
func (e *Engine) kick(t model.Target) {
	if e.owns(t.ID) {
		e.workers.Kick(t)
		return
	}
	e.cfg.Cluster.Kick(t)
}

// changed tells the other nodes that t changed.
func (e *Engine) changed(t model.Target) {
	if e.cfg.Cluster != nil {
		e.cfg.Cluster.Changed(t)
	}
}

// publish gives stored events to the event streams of every node.
func (e *Engine) publish(events []model.Event) {
	e.events.publish(events...)
	if e.cfg.Cluster != nil && len(events) > 0 {
		e.cfg.Cluster.Publish(events)
	}
}

// replyAddress is the ReplyTo of a request waiting here under key.
func (e *Engine) replyAddress(key string) string {
	if e.cfg.Cluster == nil {
		return key
	}
	return e.cfg.Cluster.ReplyAddress(key)
}

// waiterOf returns who waits for inv's response: a request on this node,
// one on another node (through the cluster), or nobody (nil).
func (e *Engine) waiterOf(inv model.Invocation) *ingress.Waiter {
	if w := e.ingress.Waiters.Take(inv.ReplyTo); w != nil || inv.ReplyTo == "" || e.cfg.Cluster == nil {
		return w
	}
	c, address := e.cfg.Cluster, inv.ReplyTo
	return ingress.NewRemoteWaiter(func(r *abi.Response) { c.Reply(address, r) })
}

// clusterHandlers are the engine's answers to other nodes.
func (e *Engine) clusterHandlers() ClusterHandlers {
	return ClusterHandlers{
		Kick: func(t model.Target) {
			if e.owns(t.ID) {
				e.workers.Kick(t)
			}
		},
		Changed: e.reloadTriggers,
		Events:  func(events []model.Event) { e.events.publish(events...) },
		Reply:   e.ingress.Waiters.Deliver,
		Resume:  e.resumeOwned,
	}
}

// reloadTriggers brings this node's view of t up to date after another
// node changed it: its endpoints and timers, and no stale sandbox.
func (e *Engine) reloadTriggers(t model.Target) {
	ctx, id := context.Background(), t.ID
	switch t.Kind {
	case model.TargetWorkflow:
		e.flows.Unload(id)
		wf, err := e.store.GetWorkflow(ctx, id)
		if err != nil { // deleted
			e.stopTriggers(t)
			e.flows.Forget(id)
			return
		}
		e.startWorkflowTriggers(wf)
	case model.TargetSource:
		e.sources.Forget(id)
		src, err := e.store.GetSource(ctx, id)
		if err != nil {
			e.stopTriggers(t)
			e.delayed.Forget(t)
			return
		}
		if !src.Active {
			e.stopTriggers(t)
			return
		}
		comp, err := e.store.GetComponent(ctx, src.ComponentID)
		if err != nil {
			e.stopTriggers(t)
			return
		}
		e.startTriggers(src, withAddedProps(comp.Metadata, src))
	}
}

// resumeOwned resumes the work of what this node owns: queued
// invocations and, when it gained some, delayed emits. Timers are armed
// on every node and fire on the owner; deliveries go to the owner of
// their listener.
func (e *Engine) resumeOwned(gained bool) {
	ctx := context.Background()
	pending, err := e.queues.TargetsWithPending(ctx)
	if err != nil {
		e.log.Error("resume owned work: list queued invocations", "err", err)
	}
	for _, t := range pending {
		if e.owns(t.ID) {
			e.workers.Kick(t)
		}
	}
	e.deliverer.Poke()
	if !gained {
		return
	}
	sources, err := e.queues.AllSources(ctx)
	if err != nil {
		e.log.Error("resume owned work: list sources", "err", err)
		return
	}
	flows, err := e.queues.AllWorkflows(ctx)
	if err != nil {
		e.log.Error("resume owned work: list workflows", "err", err)
		return
	}
	if err := e.loadDelayed(ctx, emitters(sources, flows, e.owns)); err != nil {
		e.log.Error("resume owned work: delayed emits", "err", err)
	}
}
