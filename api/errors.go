package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/fount-dev/fount/store"
)

// Error is an API error: the one shape every failure is answered with,
//
//	{"error": {"code": "...", "message": "...", "param": "..."}}
//
// Status is the HTTP status; Code is snake_case and stable; Message is a
// sentence a person can act on; Param names the offending parameter.
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Param   string `json:"param,omitempty"`
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
)

// writeError answers err in the API's error shape. Errors that are not
// *Error are mapped from the store's sentinels, or become a 500 whose
// details go to the log, never to the client.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var e *Error
	switch {
	case errors.As(err, &e):
	case errors.Is(err, store.ErrNotFound):
		e = errNotFound("resource")
	case errors.Is(err, store.ErrConflict):
		e = &Error{Status: http.StatusConflict, Code: "conflict", Message: "That name or key is already taken; choose another."}
	case errors.Is(err, store.ErrBadCursor):
		e = errInvalid("after", "The page cursor is not valid for this list; use a cursor from page_info.")
	default:
		s.log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		e = &Error{Status: http.StatusInternalServerError, Code: "internal_error", Message: "The server failed to handle the request; try again, and report it if it persists."}
	}
	writeJSON(w, e.Status, map[string]*Error{"error": e})
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

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }
