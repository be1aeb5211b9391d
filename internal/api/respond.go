package api

import (
	"encoding/json"
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
