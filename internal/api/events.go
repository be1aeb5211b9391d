package api

import (
	"encoding/json"
	"net/http"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/internal/model"
)

// truncateAt is the spec's 1 KB: larger events are truncated in summaries
// unless expand=event.
const truncateAt = 1024

// summarize builds an event summary. A truncated event is replaced by
// {"$truncated": true, "size": <bytes>, "preview": "<first 1 KB of its JSON>"}.
// e may come from a page read with a preview (model.EventPage): e.Size
// is then the length of the whole event.
func summarize(e model.Event, expand bool) apiv1.EventSummary {
	sum := apiv1.EventSummary{ID: e.ID, IndexedAtMs: e.IndexedAtMs, Event: e.Data,
		Metadata: apiv1.EventMetadata{EmitID: e.EmitID, ID: e.DedupeID, Name: e.Name, EmitterID: e.EmitterID, Summary: e.Summary}}
	if len(sum.Event) == 0 {
		sum.Event = json.RawMessage("null")
	}
	if size := max(e.Size, len(e.Data)); !expand && size > truncateAt {
		preview := []rune(string(e.Data[:truncateAt]))
		if len(preview) > 0 && preview[len(preview)-1] == '\uFFFD' {
			preview = preview[:len(preview)-1] // do not split a UTF-8 sequence
		}
		sum.Event, _ = json.Marshal(map[string]any{"$truncated": true, "size": size, "preview": string(preview)})
		sum.Metadata.Truncated = true
	}
	return sum
}

func (s *Server) listSourceEvents(w http.ResponseWriter, r *http.Request, req *apiv1.EventSummariesRequest) error {
	src, err := s.ownedSource(r.Context(), req.ID)
	if err != nil {
		return err
	}
	return s.listEvents(w, r, src.ID, req, false)
}

// listEvents answers a page of an emitter's event summaries; with
// rawEvent each summary's event is {"raw_event": <the data>}, as the
// specification shapes a workflow's emits.
func (s *Server) listEvents(w http.ResponseWriter, r *http.Request, emitterID string, req *apiv1.EventSummariesRequest, rawEvent bool) error {
	limit, err := readLimit(r, req.Limit)
	if err != nil {
		return err
	}
	if err := checkEventName(req.EventName); err != nil {
		return err
	}
	if req.Expand != "" && req.Expand != "event" {
		return errInvalid("expand", "The only value of expand is event.")
	}
	events, err := s.pageOfEvents(r, emitterID, req, limit)
	if err != nil {
		return err
	}
	total, err := s.records.CountEvents(r.Context(), emitterID, req.EventName)
	if err != nil {
		return err
	}
	pg := listPage[apiv1.EventSummary]{total: max(total, len(events)), before: req.Before != ""}
	for _, e := range events {
		sum := summarize(e, req.Expand == "event")
		if rawEvent {
			sum.Event, _ = json.Marshal(map[string]json.RawMessage{"raw_event": sum.Event})
		}
		pg.items = append(pg.items, sum)
		pg.cursors = append(pg.cursors, e.ID)
	}
	writePage(s, w, r, pg)
	return nil
}

// pageOfEvents returns up to limit events of a channel, newest first: the
// newest, or with after those older than that event id (the next page),
// or with before those newer than it nearest it (the page before). The
// store reads at most the page's byte budget of events, and without
// expand=event only the 1 KB preview of each.
func (s *Server) pageOfEvents(r *http.Request, sourceID string, req *apiv1.EventSummariesRequest, limit int) ([]model.Event, error) {
	if req.After != "" && req.Before != "" {
		return nil, errInvalid("before", "Pass either after or before, not both.")
	}
	for name, cursor := range map[string]string{"after": req.After, "before": req.Before} {
		if _, _, err := model.ParseEventID(cursor); cursor != "" && err != nil {
			return nil, errInvalid(name, "The %s cursor must be an event id like 1700000000000-0, as page_info gives.", name)
		}
	}
	p := model.EventPage{Limit: limit, After: req.After, Before: req.Before, MaxBytes: s.pageBytes}
	if req.Expand != "event" {
		p.Preview = truncateAt
	}
	return s.records.PageEvents(r.Context(), sourceID, req.EventName, p)
}

// deleteSourceEvents applies the spec's five rules: no bound deletes all;
// start_id alone deletes it and everything later; end_id alone it and
// everything earlier; both an inclusive range (the same id twice: one
// event). It answers 202 and deletes in the background.
func (s *Server) deleteSourceEvents(w http.ResponseWriter, r *http.Request, req *apiv1.DeleteEventsRequest) error {
	src, err := s.ownedSource(r.Context(), req.ID)
	if err != nil {
		return err
	}
	for name, v := range map[string]string{"start_id": req.StartID, "end_id": req.EndID} {
		if v == "" {
			continue
		}
		if _, _, err := model.ParseEventID(v); err != nil {
			return errInvalid(name, "The %s must be an event id like 1700000000000-0, as event summaries show.", name)
		}
	}
	if err := checkEventName(req.EventName); err != nil {
		return err
	}
	if err := s.engine.DeleteEvents(src.ID, req.EventName, req.StartID, req.EndID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

// listWorkflowEvents answers the events a workflow emitted with
// $.send.emit: each summary's event holds raw_event, the data emitted
// (what the workflow's subscribers receive).
func (s *Server) listWorkflowEvents(w http.ResponseWriter, r *http.Request, req *apiv1.WorkflowEventsRequest) error {
	return s.workflowEvents(w, r, req, "")
}

// listWorkflowErrors answers a workflow's $errors events: the failed
// executions' original_event, original_context and error.
func (s *Server) listWorkflowErrors(w http.ResponseWriter, r *http.Request, req *apiv1.WorkflowEventsRequest) error {
	return s.workflowEvents(w, r, req, "$errors")
}

func (s *Server) workflowEvents(w http.ResponseWriter, r *http.Request, req *apiv1.WorkflowEventsRequest, channel string) error {
	wf, err := s.ownedWorkflow(r.Context(), req.WorkflowID)
	if err != nil {
		return err
	}
	return s.listEvents(w, r, wf.ID, &apiv1.EventSummariesRequest{Common: req.Common, Limit: req.Limit,
		After: req.After, Before: req.Before, Expand: req.Expand, EventName: channel}, channel == "")
}
