package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/internal/model"
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
	return s.stream(w, r, src.ID, req)
}

// streamWorkflow streams a workflow's new emits as streamSource does, and
// its steps' $.send.sse messages as they are sent: event named by the
// message's channel ("message" when it has none), data its payload, no
// id (they are not stored, so not replayed).
func (s *Server) streamWorkflow(w http.ResponseWriter, r *http.Request, req *apiv1.StreamRequest) error {
	wf, err := s.ownedWorkflow(r.Context(), req.ID)
	if err != nil {
		return err
	}
	return s.stream(w, r, wf.ID, req)
}

// channelSSE is engine's name, in live streams, of a $.send.sse message.
const channelSSE = "$sse"

// stream is an emitter's event stream.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, emitterID string, req *apiv1.StreamRequest) error {
	var err error
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
		if lastMs, lastSeq, err = model.ParseEventID(last); err != nil {
			return errInvalid("last_event_id", "Last-Event-ID must be an event id like 1700000000000-0.")
		}
	}
	// Subscribe before reading the log, so nothing falls in between.
	live, cancel := s.engine.Subscribe(emitterID)
	defer cancel()
	after := func(id string) bool {
		ms, seq, err := model.ParseEventID(id)
		return err == nil && (ms > lastMs || (ms == lastMs && seq > lastSeq))
	}
	out := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: 2 * s.heartbeat}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if err := out.comment("stream of " + emitterID); err != nil {
		return nil
	}
	// Replay page by page, oldest first, so that a replay of many large
	// events holds one page of them at a time.
	for cursor := last; cursor != ""; {
		events, err := s.records.PageEvents(r.Context(), emitterID, channel, model.EventPage{Before: cursor, Limit: maxLimit, MaxBytes: s.pageBytes})
		if err != nil {
			return nil // the stream has started; the client reconnects
		}
		if len(events) == 0 {
			break
		}
		for _, ev := range slices.Backward(events) {
			if err := out.event(ev); err != nil {
				return s.streamGone(r, emitterID, err)
			}
		}
		cursor = events[0].ID
		lastMs, lastSeq, _ = model.ParseEventID(cursor)
		if err := out.flush(); err != nil {
			return s.streamGone(r, emitterID, err)
		}
	}
	if err := out.flush(); err != nil {
		return s.streamGone(r, emitterID, err)
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
			if s.sessionEnded(r) {
				return nil // signed out or expired: the browser must sign in again
			}
			if err := out.comment("heartbeat"); err != nil {
				return s.streamGone(r, emitterID, err)
			}
		case ev, ok := <-live:
			// Write what is already waiting, then flush once.
			for more := true; more; {
				if !ok {
					return nil // fell behind: the client resumes with Last-Event-ID
				}
				if ev.Name == channelSSE {
					if err := out.message(ev); err != nil {
						return s.streamGone(r, emitterID, err)
					}
				} else if ev.Name == channel && after(ev.ID) {
					if err := out.event(ev); err != nil {
						return s.streamGone(r, emitterID, err)
					}
					lastMs, lastSeq, _ = model.ParseEventID(ev.ID)
				}
				select {
				case ev, ok = <-live:
				default:
					more = false
				}
			}
			if err := out.flush(); err != nil {
				return s.streamGone(r, emitterID, err)
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

func (o *sseWriter) event(ev model.Event) error {
	_ = o.rc.SetWriteDeadline(time.Now().Add(o.timeout))
	data, _ := json.Marshal(summarize(ev, true))
	_, err := fmt.Fprintf(o.w, "id: %s\nevent: event\ndata: %s\n\n", ev.ID, data)
	return err
}

// message writes a $.send.sse message: its channel (EmitID) as the
// event name, its payload as data.
func (o *sseWriter) message(ev model.Event) error {
	_ = o.rc.SetWriteDeadline(time.Now().Add(o.timeout))
	name := ev.EmitID
	if name == "" || strings.ContainsAny(name, "\r\n") {
		name = "message"
	}
	// Compacted: a line break in the data would end the event early.
	var data bytes.Buffer
	if json.Compact(&data, ev.Data) != nil {
		data.Reset()
		data.WriteString("null")
	}
	_, err := fmt.Fprintf(o.w, "event: %s\ndata: %s\n\n", name, data.Bytes())
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
