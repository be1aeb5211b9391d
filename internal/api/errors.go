package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/records"
)

// Error is an API error: the one shape every failure is answered with,
// apiv1.Error. Status is the HTTP status; Code is snake_case and stable;
// Message is a sentence a person can act on; Param names the offending
// parameter.
type Error struct {
	Status  int
	Code    string
	Message string
	Param   string
	// RetryAfter, when set, is sent as the Retry-After header (seconds).
	RetryAfter int
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func errInvalid(param, format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "invalid_parameter", Message: fmt.Sprintf(format, args...), Param: param}
}

func errMissing(param string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "missing_parameter", Message: fmt.Sprintf("The parameter %s is required.", param), Param: param}
}

func errNotFound(what string) *Error {
	return &Error{Status: http.StatusNotFound, Code: "not_found", Message: fmt.Sprintf("No %s with that id or key exists, or you do not have access to it.", what)}
}

func errForbidden(format string, args ...any) *Error {
	return &Error{Status: http.StatusForbidden, Code: "forbidden", Message: fmt.Sprintf(format, args...)}
}

var (
	errUnauthorized = &Error{Status: http.StatusUnauthorized, Code: "unauthorized",
		Message: "Send a valid API key as `Authorization: Bearer <key>`."}
	errUnsupportedMedia = &Error{Status: http.StatusUnsupportedMediaType, Code: "unsupported_media_type",
		Message: "Send the request body as JSON with `Content-Type: application/json`."}
	errInternal = &Error{Status: http.StatusInternalServerError, Code: "internal_error",
		Message: "The server failed to handle the request; try again, and report it if it persists."}
)

// toAPIError maps an error to its answer, in this one place: the API's
// own *Error, then the typed errors of the engine, the component model
// and the store, then the store's sentinels. Anything else is a 500 whose details
// go to the log, never to the client. param names the parameter that
// carried the component, for errors about its code.
func toAPIError(err error, param string) (*Error, bool) {
	var (
		e         *Error
		pe        *component.PropError
		ce        *engine.CodeError
		he        *engine.HookError
		cfe       *engine.ConfigureError
		taken     *engine.NameTakenError
		limit     *model.LimitError
		we        *engine.WorkflowError
		ae        *records.AccountError
		inUse     *records.AccountInUseError
		busy      *engine.BusyError
		queueFull *engine.QueueFullError
		dataErr   *records.DataStoreError
		ctlErr    *engine.ControlsError
	)
	switch {
	case errors.As(err, &e):
		return e, true
	case errors.As(err, &pe):
		status, code := http.StatusBadRequest, "invalid_parameter"
		if pe.TooLarge {
			status, code = http.StatusRequestEntityTooLarge, "prop_too_large"
		}
		return &Error{Status: status, Code: code, Param: "configured_props." + pe.Prop, Message: pe.Error()}, true
	case errors.As(err, &ce):
		return &Error{Status: http.StatusBadRequest, Code: "invalid_component", Param: param, Message: "The component code failed to load: " + ce.Error() + "."}, true
	case errors.As(err, &cfe):
		return &Error{Status: http.StatusBadRequest, Code: "component_method_failed", Message: fmt.Sprintf("The component's %s failed: %s: %s", cfe.Method, cfe.Name, cfe.Msg)}, true
	case errors.As(err, &he):
		return &Error{Status: http.StatusBadRequest, Code: "hook_failed", Message: fmt.Sprintf("The component's %s hook failed: %s: %s", he.Hook, he.Name, he.Msg)}, true
	case errors.As(err, &we):
		param := "trigger"
		if we.Step != "" {
			param = "steps." + we.Step
		}
		return &Error{Status: http.StatusBadRequest, Code: "invalid_workflow", Param: param, Message: we.Error() + "."}, true
	case errors.As(err, &ae):
		return &Error{Status: http.StatusBadRequest, Code: "invalid_parameter", Param: ae.Param, Message: "The " + ae.Param + " " + ae.Reason + "."}, true
	case errors.As(err, &inUse):
		return &Error{Status: http.StatusConflict, Code: "account_in_use",
			Message: "The connected account is configured in app props of " + strings.Join(inUse.Users, ", ") +
				"; reconfigure or delete them first, or delete with ?force=true and they fail where they read $auth."}, true
	case errors.As(err, &taken):
		return &Error{Status: http.StatusConflict, Code: "name_taken", Param: "name", Message: "A source named " + taken.Slug + " already exists; choose another name."}, true
	case errors.As(err, &busy):
		secs := max(1, int(busy.RetryAfter.Round(time.Second)/time.Second))
		if busy.Account {
			return &Error{Status: http.StatusTooManyRequests, Code: "busy", RetryAfter: secs,
				Message: fmt.Sprintf("Your earlier calls or runs hold the %d workers your account may use at once, and none came free in time; nothing was done. Try again in %d seconds.", busy.Share, secs)}, true
		}
		return &Error{Status: http.StatusServiceUnavailable, Code: "busy", RetryAfter: secs,
			Message: fmt.Sprintf("Every worker of the server is busy, and none came free in time; nothing was done. Try again in %d seconds.", secs)}, true
	case errors.Is(err, engine.ErrQuota):
		return &Error{Status: http.StatusTooManyRequests, Code: "quota_exceeded",
			Message: "Your daily quota of invocations or compute time is used up, and this request would run your code; it resets at midnight UTC."}, true
	case errors.As(err, &limit):
		return errLimit(limit), true
	case errors.As(err, &ctlErr):
		return &Error{Status: http.StatusBadRequest, Code: "invalid_controls", Message: "The execution controls are refused: " + ctlErr.Reason + "."}, true
	case errors.As(err, &dataErr):
		return &Error{Status: http.StatusBadRequest, Code: "invalid_data", Message: "The data store refused it: " + dataErr.Reason + "."}, true
	case errors.As(err, &queueFull):
		return &Error{Status: http.StatusTooManyRequests, Code: "queue_full", RetryAfter: 1,
			Message: fmt.Sprintf("The queue is full: %d runs wait to start, its queue_size; nothing was queued. Try again when it has drained, or raise its queue_size.", queueFull.Size)}, true
	case errors.Is(err, engine.ErrEventNotKept):
		return &Error{Status: http.StatusConflict, Code: "event_not_kept",
			Message: "The execution's trigger event was too large to keep, so it cannot be replayed; run the workflow with the event instead."}, true
	case errors.Is(err, engine.ErrStopped):
		return &Error{Status: http.StatusServiceUnavailable, Code: "unavailable", Message: "The server is shutting down; try again in a moment."}, true
	case errors.Is(err, model.ErrComponentDropped):
		return &Error{Status: http.StatusConflict, Code: "conflict", Param: "component_id",
			Message: "The component was dropped to make room for newer ones while this request ran (the account is at its limit of components, all others in use); send the request again."}, true
	case errors.Is(err, model.ErrNotFound):
		return errNotFound("resource"), true
	case errors.Is(err, model.ErrConflict):
		return &Error{Status: http.StatusConflict, Code: "conflict", Message: "That name or key is already taken; choose another."}, true
	case errors.Is(err, model.ErrTooLarge):
		return &Error{Status: http.StatusRequestEntityTooLarge, Code: "too_large",
			Message: "The record is larger than this server's store holds (on a NATS store, one message of the servers' max_payload); nothing was stored. A component's record holds its code, its bundle and their source maps."}, true
	case errors.Is(err, model.ErrBadCursor):
		return errInvalid("after", "The page cursor is not valid for this list; use a cursor from page_info."), true
	}
	return errInternal, false
}

// writeError answers err in the API's error shape.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	e, known := toAPIError(err, "component_code")
	if !known {
		s.log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	writeJSON(w, e.Status, apiv1.Error{Error: apiv1.ErrorBody{Code: e.Code, Message: e.Message, Param: e.Param}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // API clients read JSON, not HTML
	if err := enc.Encode(v); err != nil {
		slog.Debug("write response", "err", err)
	}
}

func isNotFound(err error) bool { return errors.Is(err, model.ErrNotFound) }
