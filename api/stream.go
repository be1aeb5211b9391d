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

// maxReplay bounds how many retained events a resumed stream replays; it
// is above any sensible --events-kept, so a resume misses nothing kept.
const maxReplay = 100_000

// sseHeartbeat is how often an idle stream gets a comment line, so that
// proxies and clients see it is alive.
const sseHeartbeat = 15 * time.Second

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
	flusher, ok := w.(http.Flusher)
	if !ok {
		return fmt.Errorf("api: streaming is not supported by this connection")
	}
	// Subscribe before reading the log, so nothing falls in between.
	live, cancel := s.engine.Subscribe(src.ID)
	defer cancel()
	after := func(id string) bool {
		ms, seq, err := store.ParseEventID(id)
		return err == nil && (ms > lastMs || (ms == lastMs && seq > lastSeq))
	}
	// A stream lives as long as its client, but a dead client must not
	// hold its connection: each write must complete within two heartbeats.
	rc := http.NewResponseController(w)
	alive := func() { _ = rc.SetWriteDeadline(time.Now().Add(2 * sseHeartbeat)) }
	alive()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, ": stream of "+src.ID+"\n\n")
	if last != "" {
		events, err := s.store.ListEvents(r.Context(), src.ID, channel, maxReplay)
		if err != nil {
			return nil // the stream has started; the client reconnects
		}
		slices.Reverse(events)
		for _, ev := range events {
			if after(ev.ID) {
				writeSSE(w, ev)
				lastMs, lastSeq, _ = store.ParseEventID(ev.ID)
			}
		}
	}
	flusher.Flush()
	beat := time.NewTicker(sseHeartbeat)
	defer beat.Stop()
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-s.closing:
			return nil // shutting down: the client reconnects to the next server
		case <-beat.C:
			alive()
			fmt.Fprint(w, ": heartbeat\n\n")
			flusher.Flush()
		case ev, ok := <-live:
			alive()
			// Write what is already waiting, then flush once.
			for more := true; more; {
				if !ok {
					return nil // fell behind: the client resumes with Last-Event-ID
				}
				if ev.Name == channel && after(ev.ID) {
					writeSSE(w, ev)
					lastMs, lastSeq, _ = store.ParseEventID(ev.ID)
				}
				select {
				case ev, ok = <-live:
				default:
					more = false
				}
			}
			flusher.Flush()
		}
	}
}

// CloseStreams ends every open event stream, so that a graceful shutdown
// does not wait on connections that never go idle. Register it with
// http.Server.RegisterOnShutdown.
func (s *Server) CloseStreams() {
	s.closeOnce.Do(func() { close(s.closing) })
}

func writeSSE(w http.ResponseWriter, ev store.Event) {
	data, _ := json.Marshal(summarize(ev, true))
	fmt.Fprintf(w, "id: %s\nevent: event\ndata: %s\n\n", ev.ID, data)
}
