package api

import (
	"errors"
	"net/http"
	"runtime/debug"
)

// recoverer answers a panic in a handler with a 500 in the error shape and
// logs it with its stack, so that one request's bug never ends the
// process. http.ErrAbortHandler, the deliberate way to abort a response,
// goes on up.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(v)
			}
			s.log.ErrorContext(r.Context(), "handler panicked", "method", r.Method, "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
			s.writeError(w, r, errInternal)
		}()
		next.ServeHTTP(w, r)
	})
}
