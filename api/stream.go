package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/store"
)

// DefaultStreamHeartbeat is how often an idle event stream gets a comment
// line, so that proxies and clients see it is alive.
const DefaultStreamHeartbeat = 15 * time.Second

func (s *Server) runSource(w http.ResponseWriter, r *http.Request, req *apiv1.RunSourceRequest) error {
	src, err := s.ownedSource(r.Context(), req.ID)
	if err != nil {
		return err
	}
	if err := s.engine.RunNow(r.Context(), src.ID, req.Event); err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, apiv1.Data[apiv1.RunQueued]{Data: apiv1.RunQueued{SourceID: src.ID, Queued: true}})
	return nil
}

// streamSource streams a channel's new events as server-sent events: the
// event id as the SSE id, the event summary (whole event) as data. With
// Last-Event-ID (header or last_event_id parameter) it first replays the
// retained events after that id.
func (s *Server) streamSource(w http.ResponseWriter, r *http.Request, req *apiv1.StreamRequest) error {
	src, err := s.ownedSource(r.Context(), req.ID)
	if err != nil {
		return err
	}
	channel := req.EventName
	if err := checkEventName(channel); err != nil {
		return err
	}
	last := r.Header.Get("Last-Event-ID")
	if req.LastEventID != "" {
		last = req.LastEventID
	}
	var lastMs, lastSeq uint64
	if last != "" {
		if lastMs, lastSeq, err = store.ParseEventID(last); err != nil {
			return errInvalid("last_event_id", "Last-Event-ID must be an event id like 1700000000000-0.")
		}
	}
	// Subscribe before reading the log, so nothing falls in between.
	live, cancel := s.engine.Subscribe(src.ID)
	defer cancel()
	after := func(id string) bool {
		ms, seq, err := store.ParseEventID(id)
		return err == nil && (ms > lastMs || (ms == lastMs && seq > lastSeq))
	}
	out := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: 2 * s.heartbeat}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if err := out.comment("stream of " + src.ID); err != nil {
		return nil
	}
	// Replay page by page, oldest first, so that a replay of many large
	// events holds one page of them at a time.
	for cursor := last; cursor != ""; {
		events, err := s.store.PageEvents(r.Context(), src.ID, channel, store.EventPage{Before: cursor, Limit: maxLimit, MaxBytes: s.pageBytes})
		if err != nil {
			return nil // the stream has started; the client reconnects
		}
		if len(events) == 0 {
			break
		}
		for _, ev := range slices.Backward(events) {
			if err := out.event(ev); err != nil {
				return s.streamGone(r, src.ID, err)
			}
		}
		cursor = events[0].ID
		lastMs, lastSeq, _ = store.ParseEventID(cursor)
		if err := out.flush(); err != nil {
			return s.streamGone(r, src.ID, err)
		}
	}
	if err := out.flush(); err != nil {
		return s.streamGone(r, src.ID, err)
	}
	beat := time.NewTicker(s.heartbeat)
	defer beat.Stop()
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-s.closing:
			return nil // shutting down: the client reconnects to the next server
		case <-beat.C:
			if err := out.comment("heartbeat"); err != nil {
				return s.streamGone(r, src.ID, err)
			}
		case ev, ok := <-live:
			// Write what is already waiting, then flush once.
			for more := true; more; {
				if !ok {
					return nil // fell behind: the client resumes with Last-Event-ID
				}
				if ev.Name == channel && after(ev.ID) {
					if err := out.event(ev); err != nil {
						return s.streamGone(r, src.ID, err)
					}
					lastMs, lastSeq, _ = store.ParseEventID(ev.ID)
				}
				select {
				case ev, ok = <-live:
				default:
					more = false
				}
			}
			if err := out.flush(); err != nil {
				return s.streamGone(r, src.ID, err)
			}
		}
	}
}

// streamGone ends a stream whose client stopped reading (a write missed
// its deadline) or went away.
func (s *Server) streamGone(r *http.Request, sourceID string, err error) error {
	s.log.InfoContext(r.Context(), "event stream closed: a write to its client failed", "source", sourceID, "err", err)
	return nil
}

// sseWriter writes a server-sent event stream. A stream lives as long as
// its client, but a dead client must not hold its connection: each write
// must complete within timeout, or the stream ends.
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (o *sseWriter) event(ev store.Event) error {
	_ = o.rc.SetWriteDeadline(time.Now().Add(o.timeout))
	data, _ := json.Marshal(summarize(ev, true))
	_, err := fmt.Fprintf(o.w, "id: %s\nevent: event\ndata: %s\n\n", ev.ID, data)
	return err
}

// comment writes a comment line and flushes it.
func (o *sseWriter) comment(text string) error {
	_ = o.rc.SetWriteDeadline(time.Now().Add(o.timeout))
	if _, err := fmt.Fprintf(o.w, ": %s\n\n", text); err != nil {
		return err
	}
	return o.rc.Flush()
}

func (o *sseWriter) flush() error {
	_ = o.rc.SetWriteDeadline(time.Now().Add(o.timeout))
	return o.rc.Flush()
}

// CloseStreams ends every open event stream, so that a graceful shutdown
// does not wait on connections that never go idle. Register it with
// http.Server.RegisterOnShutdown.
func (s *Server) CloseStreams() {
	s.closeOnce.Do(func() { close(s.closing) })
}
