package api

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// writeData answers 200 with {"data": v}, applying include/exclude to v
// (or to each element when v is a list).
func (s *Server) writeData(w http.ResponseWriter, r *http.Request, v any) {
	data, err := shape(r, v)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data})
}

// streamData answers {"data": [...]} with n items, made and written one
// at a time, so that a large answer is never whole in memory. Once the
// answer has begun, an item that fails ends the connection, so that the
// client sees a cut answer rather than a short one.
func (s *Server) streamData(w http.ResponseWriter, r *http.Request, n int, item func(i int) (any, error)) error {
	if n == 0 {
		s.writeData(w, r, []any{})
		return nil
	}
	first, err := item(0)
	if err != nil {
		return err
	}
	shaped, err := shape(r, first)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_, _ = io.WriteString(w, `{"data":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			v, err := item(i)
			if err == nil {
				shaped, err = shape(r, v)
			}
			if err != nil {
				s.log.Error("a streamed answer failed midway", "path", r.URL.Path, "err", err)
				panic(http.ErrAbortHandler)
			}
			_, _ = io.WriteString(w, ",")
		}
		if err := enc.Encode(shaped); err != nil {
			return nil // the client went away
		}
	}
	_, _ = io.WriteString(w, "]}\n")
	return nil
}

// shapingKey is the context key of a request's decoded shaping.
type shapingKey struct{}

// shaping is a request's include and exclude parameters.
type shaping struct{ include, exclude string }

// shape applies the include and exclude parameters: comma-separated
// top-level field names kept or dropped on each object of data.
func shape(r *http.Request, v any) (any, error) {
	sh, ok := r.Context().Value(shapingKey{}).(shaping)
	if !ok {
		sh = shaping{include: r.URL.Query().Get("include"), exclude: r.URL.Query().Get("exclude")}
	}
	include, exclude := fieldSet(sh.include), fieldSet(sh.exclude)
	if include == nil && exclude == nil {
		return v, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return nil, err
	}
	filter := func(o any) any {
		m, ok := o.(map[string]any)
		if !ok {
			return o
		}
		for k := range m {
			if (include != nil && !include[k]) || exclude[k] {
				delete(m, k)
			}
		}
		return m
	}
	if list, ok := generic.([]any); ok {
		for i := range list {
			list[i] = filter(list[i])
		}
		return list, nil
	}
	return filter(generic), nil
}

func fieldSet(s string) map[string]bool {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	set := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			set[f] = true
		}
	}
	return set
}
