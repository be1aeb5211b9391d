package ingress

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/guess"
	"github.com/fount-dev/fount/internal/ids"
)

// A paused execution's resume and cancel URLs are open to anyone who
// holds one, and whoever holds one knows its workflow and can count its
// executions: so what a URL costs does not grow with the paused
// executions, nor with their size. It reads the execution's index entry
// in the store's table of paused executions (store/paused.go), one small
// record, and compares the secret's hash in constant time; the state
// itself is read by the workflow's worker once the resume is queued. Failures are
// throttled per client address and per workflow, as wrong API keys are
// (package guess): a flood of forged URLs is answered 429, while a right
// URL is always served.

// Forged URLs: flowURLFailBurst at once per address and per workflow,
// then one every flowURLFailEvery.
const (
	flowURLFailBurst = 20
	flowURLFailEvery = 3 * time.Second
)

// errNoPausedExecution: no paused execution has this id and secret.
var errNoPausedExecution = errors.New("no paused execution has this URL: it went on already, or was cancelled, or the URL is wrong")

// Actions on a paused execution that its URLs ask for.
const (
	ActionResume = "resume"
	ActionCancel = "cancel"
)

// SecretHash is how a paused execution keeps its URLs' secret.
func SecretHash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// findPaused checks that the paused execution executionID of
// workflowID has URLs whose secret is secret: one small read.
func (s *Server) findPaused(ctx context.Context, workflowID, executionID, secret string) error {
	entry, found, err := s.host.PausedEntry(ctx, workflowID, executionID)
	if err != nil {
		return err
	}
	if !found || entry.SecretHash == "" || subtle.ConstantTimeCompare([]byte(entry.SecretHash), []byte(SecretHash(secret))) != 1 {
		return errNoPausedExecution
	}
	return nil
}

// serveFlowURL serves a paused execution's resume and cancel URLs:
// FlowPath + <execution id>/<secret>/resume or /cancel, any method, no
// API key (the secret is the key). It checks the secret, then queues the
// action for the workflow's worker, and answers 202.
func (s *Server) serveFlowURL(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, component.FlowPath), "/")
	if r.Method == http.MethodOptions {
		cors(w, r)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if len(parts) != 3 || (parts[2] != ActionResume && parts[2] != ActionCancel) || len(parts[1]) != abi.FlowSecretLen {
		ingressError(w, http.StatusNotFound, "not a resume or cancel URL: they end in /<secret>/resume or /<secret>/cancel")
		return
	}
	executionID, secret, action := parts[0], parts[1], parts[2]
	workflowID, _, ok := ids.ParseExecutionID(executionID)
	if !ok {
		s.refuseFlowURL(w, r, "", errNoPausedExecution)
		return
	}
	body, ok := s.readBody(w, r)
	if !ok {
		return
	}
	err := s.findPaused(r.Context(), workflowID, executionID, secret)
	switch {
	case errors.Is(err, errNoPausedExecution):
		s.refuseFlowURL(w, r, workflowID, err)
		return
	case err != nil:
		s.log.Error("find a paused execution", "execution", executionID, "err", err)
		ingressError(w, http.StatusInternalServerError, "the server could not read the paused execution; try again")
		return
	}
	var data json.RawMessage
	if len(body) > 0 {
		data, _ = json.Marshal(parseBody(r.Header.Get("Content-Type"), body))
	}
	request, _ := json.Marshal(httpEvent(r, "/", body))
	if err := s.host.Resume(r.Context(), workflowID, executionID, action, data, request); err != nil {
		s.log.Error("enqueue a resume", "execution", executionID, "err", err)
		ingressError(w, http.StatusServiceUnavailable, "the request could not be queued; try again")
		return
	}
	cors(w, r)
	tenantContent(w.Header())
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	_ = json.NewEncoder(w).Encode(map[string]string{"execution_id": executionID, "action": action})
}

// refuseFlowURL answers a URL that names no paused execution: 404, or
// 429 with Retry-After when its client, or its workflow, had too many
// such answers lately.
func (s *Server) refuseFlowURL(w http.ResponseWriter, r *http.Request, workflowID string, err error) {
	buckets := []string{"addr " + s.cfg.TrustedProxies.ClientAddr(r)}
	if workflowID != "" {
		buckets = append(buckets, "workflow "+workflowID)
	}
	if d := s.guesses.Refuse(buckets...); d > 0 {
		secs := guess.RetryAfter(d)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		ingressError(w, http.StatusTooManyRequests, "too many resume and cancel URLs that name no paused execution came from this address, or for this workflow; try again in "+strconv.Itoa(secs)+" seconds")
		return
	}
	ingressError(w, http.StatusNotFound, err.Error())
}
