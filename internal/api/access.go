package api

import (
	"context"
	"log/slog"
	"net/http"
	"regexp"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/internal/ids"
)

// requestIDKey holds a request's id in its context.
type requestIDKey struct{}

// RequestID returns the id of the request ctx belongs to, "" outside one.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// requestIDShape is what a client's X-Request-Id may be; another is
// replaced, so that no client can put arbitrary text in the log.
var requestIDShape = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// accessLog gives every request an id (the client's X-Request-Id when it
// has a sane one, else a new one), answers it in X-Request-Id, and logs
// one line per request at info: method, route pattern (never the raw
// path or query, which may carry ids or tokens), status, bytes, time.
func (s *Server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !requestIDShape.MatchString(id) {
			id = ids.Random()
		}
		w.Header().Set("X-Request-Id", id)
		ctx := context.WithValue(r.Context(), requestIDKey{}, id)
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		start := time.Now()
		next.ServeHTTP(rec, r.WithContext(ctx))
		pattern := chi.RouteContext(ctx)
		route := "unmatched"
		if pattern != nil && pattern.RoutePattern() != "" {
			route = pattern.RoutePattern()
		}
		took := time.Since(start)
		s.log.LogAttrs(ctx, slog.LevelInfo, "request", slog.String("request_id", id), slog.String("method", r.Method),
			slog.String("route", route), slog.Int("status", rec.status), slog.Int64("bytes", rec.bytes),
			slog.Duration("duration", took))
		if s.onRequest != nil {
			s.onRequest(route, rec.status, took)
		}
	})
}

// statusRecorder notes a response's status and size. It unwraps, so that
// http.ResponseController reaches the connection (flushes of event
// streams, deadlines).
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	wrote  bool
}

func (r *statusRecorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	r.wrote = true
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// readyz answers 200 when the server can serve (the store answers, the
// guest is compiled, the engine runs), else 503 saying what is not ready.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if s.ready != nil {
		if err := s.ready(r.Context()); err != nil {
			s.log.WarnContext(r.Context(), "not ready", "err", err)
			writeJSON(w, http.StatusServiceUnavailable, apiv1.Health{Status: "not ready"})
			return
		}
	}
	writeJSON(w, http.StatusOK, apiv1.Health{Status: "ok"})
}

// backup streams a backup of the server; the owner only, as it holds the
// key that opens every secret.
func (s *Server) backup(w http.ResponseWriter, r *http.Request, _ *apiv1.Empty) error {
	if err := requireOwner(r); err != nil {
		return err
	}
	if s.backupFn == nil {
		return errNotFound("backup")
	}
	// A large store takes longer than a request's write deadline.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	w.Header().Set("Content-Type", "application/x-tar")
	w.Header().Set("Content-Disposition", `attachment; filename="fount-backup.tar"`)
	if err := s.backupFn(r.Context(), w); err != nil {
		// The status is sent: the client sees a cut archive, which does
		// not restore.
		s.log.ErrorContext(r.Context(), "backup failed", "err", err)
	}
	return nil
}
