package engine

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/fount-dev/fount/internal/engine/flow"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// Ingress serves the endpoints of sources and workflows at
// /h/<token>[/sub/path], and the resume and cancel URLs of paused
// executions at /h/flow/ (package ingress).
func (e *Engine) Ingress() http.Handler { return e.ingress }

// ingressHost is the engine as the ingress asks it for what a request
// leads to.
type ingressHost struct{ e *Engine }

func (h ingressHost) OverQuota(ctx context.Context, account string) (bool, error) {
	return h.e.quotas.OverCached(ctx, account)
}

func (h ingressHost) Enqueue(ctx context.Context, inv model.Invocation, queueSize int) error {
	if _, err := h.e.enqueueWithin(ctx, inv, queueSize); err != nil {
		return err
	}
	h.e.kick(inv.Target())
	return nil
}

func (h ingressHost) ReplyAddress(key string) string { return h.e.replyAddress(key) }

func (h ingressHost) PausedEntry(ctx context.Context, workflowID, executionID string) (store.PausedEntry, bool, error) {
	return h.e.store.PausedEntry(ctx, workflowID, executionID)
}

func (h ingressHost) Resume(ctx context.Context, workflowID, executionID, action string, data, request json.RawMessage) error {
	event, err := flow.ResumeEvent(executionID, action, data, request)
	if err != nil {
		return err
	}
	t := model.WorkflowTarget(workflowID)
	if _, err := h.e.queues.EnqueueInvocation(ctx, model.NewInvocation(t, kindResume, event)); err != nil {
		return err
	}
	h.e.kick(t)
	return nil
}
