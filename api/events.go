package api

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/fount-dev/fount/store"
)

// truncateAt is the spec's 1 KB: larger events are truncated in summaries
// unless expand=event.
const truncateAt = 1024

type eventMetadata struct {
	EmitID    string `json:"emit_id"`
	Name      string `json:"name"`
	EmitterID string `json:"emitter_id"`
	Summary   string `json:"summary,omitempty"`
	// Truncated is set when event holds a preview, not the event
	// (extension; pass expand=event for the whole event).
	Truncated bool `json:"truncated,omitempty"`
}

type eventSummary struct {
	ID          string          `json:"id"`
	IndexedAtMs int64           `json:"indexed_at_ms"`
	Event       json.RawMessage `json:"event"`
	Metadata    eventMetadata   `json:"metadata"`
}

// summarize builds an event summary. A truncated event is replaced by
// {"$truncated": true, "size": <bytes>, "preview": "<first 1 KB of its JSON>"}.
func summarize(e store.Event, expand bool) eventSummary {
	sum := eventSummary{ID: e.ID, IndexedAtMs: e.IndexedAtMs, Event: e.Data,
		Metadata: eventMetadata{EmitID: e.EmitID, Name: e.Name, EmitterID: e.EmitterID, Summary: e.Summary}}
	if len(sum.Event) == 0 {
		sum.Event = json.RawMessage("null")
	}
	if !expand && len(e.Data) > truncateAt {
		preview := []rune(string(e.Data[:truncateAt]))
		if len(preview) > 0 && preview[len(preview)-1] == '\uFFFD' {
			preview = preview[:len(preview)-1] // do not split a UTF-8 sequence
		}
		sum.Event, _ = json.Marshal(map[string]any{"$truncated": true, "size": len(e.Data), "preview": string(preview)})
		sum.Metadata.Truncated = true
	}
	return sum
}

func (s *Server) listSourceEvents(w http.ResponseWriter, r *http.Request, p *params) error {
	src, err := s.ownedSource(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	page, err := readPage(r)
	if err != nil {
		return err
	}
	channel, err := readEventName(p)
	if err != nil {
		return err
	}
	expand := r.URL.Query().Get("expand")
	if expand != "" && expand != "event" {
		return errInvalid("expand", "The only value of expand is event.")
	}
	events, err := s.store.ListEvents(r.Context(), src.ID, channel, page.Limit)
	if err != nil {
		return err
	}
	sums := make([]eventSummary, 0, len(events))
	for _, e := range events {
		sums = append(sums, summarize(e, expand == "event"))
	}
	info := PageInfo{TotalCount: len(sums), Count: len(sums)}
	if len(sums) > 0 {
		info.StartCursor, info.EndCursor = sums[0].ID, sums[len(sums)-1].ID
	}
	s.writePage(w, r, info, sums)
	return nil
}

// deleteSourceEvents applies the spec's five rules: no bound deletes all;
// start_id alone deletes it and everything later; end_id alone it and
// everything earlier; both an inclusive range (the same id twice: one
// event). It answers 202 and deletes in the background.
func (s *Server) deleteSourceEvents(w http.ResponseWriter, r *http.Request, p *params) error {
	src, err := s.ownedSource(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	bounds := map[string]string{}
	for _, name := range []string{"start_id", "end_id"} {
		v, _, err := p.str(name)
		if err != nil {
			return err
		}
		if v != "" {
			if _, _, err := store.ParseEventID(v); err != nil {
				return errInvalid(name, "The %s must be an event id like 1700000000000-0, as event summaries show.", name)
			}
		}
		bounds[name] = v
	}
	channel, err := readEventName(p)
	if err != nil {
		return err
	}
	s.background(func(ctx context.Context) {
		if _, err := s.store.DeleteEvents(ctx, src.ID, channel, bounds["start_id"], bounds["end_id"]); err != nil {
			s.log.Error("delete events", "source", src.ID, "err", err)
		}
	})
	w.WriteHeader(http.StatusAccepted)
	return nil
}

// background runs f after the response, owned by the server: Close waits
// for it.
func (s *Server) background(f func(ctx context.Context)) {
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		f(ctx)
	}()
}

// Close waits for background work started by requests.
func (s *Server) Close() { s.bg.Wait() }

// Workflows are not managed through fount's API (the spec leaves workflow
// development out of it), so no workflow id is known here.
func (s *Server) listWorkflowEvents(w http.ResponseWriter, r *http.Request, _ *params) error {
	if _, err := readPage(r); err != nil {
		return err
	}
	return errNotFound("workflow")
}
