package api

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/fount-dev/fount/secret"
	"math"
	"net/http"
	"strings"

	"github.com/fount-dev/fount/engine"
	"github.com/fount-dev/fount/host"
)

// maxPropValue is the spec's limit on a prop value entered as raw text.
const maxPropValue = 64 << 10

func badProp(name, format string, args ...any) *Error {
	return errInvalid("configured_props."+name, "The prop %s %s.", name, fmt.Sprintf(format, args...))
}

// preparedProps are configured props in their three forms.
type preparedProps struct {
	stored map[string]json.RawMessage // what the store keeps: secrets sealed
	plain  map[string]json.RawMessage // what the engine gets: secrets open
}

// prepareProps validates given values against the component's props and
// builds the stored and plain forms. previous is the stored form of an
// earlier version of the source: its endpoint URLs are kept, and a secret
// sent back as secret.Marker keeps its stored value.
func (s *Server) prepareProps(meta *host.Metadata, given, previous map[string]json.RawMessage) (preparedProps, error) {
	out := preparedProps{stored: map[string]json.RawMessage{}, plain: map[string]json.RawMessage{}}
	known := map[string]bool{}
	for _, p := range meta.ConfigurableProps {
		known[p.Name] = true
	}
	for name, raw := range given {
		if !known[name] {
			return out, errInvalid("configured_props."+name, "The component has no prop named %s.", name)
		}
		if len(raw) > maxPropValue {
			return out, &Error{Status: http.StatusRequestEntityTooLarge, Code: "prop_too_large", Param: "configured_props." + name,
				Message: fmt.Sprintf("The value of prop %s is %d bytes; the limit is %d.", name, len(raw), maxPropValue)}
		}
	}
	for _, p := range meta.ConfigurableProps {
		raw, given := given[p.Name]
		if given && isNull(raw) {
			given = false
		}
		switch p.Type {
		case "$.interface.http":
			v := s.endpointFor(p.Name, previous)
			out.stored[p.Name], out.plain[p.Name] = v, v
			continue
		case "$.interface.timer":
			v, err := timerValue(p, raw, given)
			if err != nil {
				return out, err
			}
			out.stored[p.Name], out.plain[p.Name] = v, v
			continue
		case "$.service.db":
			continue
		}
		if !given {
			if !p.Optional && len(p.Default) == 0 && p.Type != "app" {
				return out, errInvalid("configured_props."+p.Name, "The prop %s is required; give it a value of type %s.", p.Name, p.Type)
			}
			continue
		}
		if p.Secret && isRedacted(raw) {
			old, ok := previous[p.Name]
			if !ok {
				return out, badProp(p.Name, "was sent as %s but has no stored value; send the secret itself", secret.Marker)
			}
			plain, err := s.secrets.OpenProp(old)
			if err != nil {
				return out, err
			}
			out.stored[p.Name], out.plain[p.Name] = old, plain
			continue
		}
		if err := checkType(p, raw); err != nil {
			return out, err
		}
		out.plain[p.Name] = raw
		out.stored[p.Name] = raw
		if p.Secret {
			out.stored[p.Name] = s.secrets.SealProp(raw)
		}
	}
	return out, nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

func isRedacted(raw json.RawMessage) bool {
	var s string
	return json.Unmarshal(raw, &s) == nil && s == secret.Marker
}

// endpointFor keeps an http prop's endpoint across updates, or makes a new
// unguessable one.
func (s *Server) endpointFor(name string, previous map[string]json.RawMessage) json.RawMessage {
	var old struct {
		EndpointURL string `json:"endpoint_url"`
	}
	if raw, ok := previous[name]; ok && json.Unmarshal(raw, &old) == nil && old.EndpointURL != "" {
		return raw
	}
	token := make([]byte, 18)
	_, _ = rand.Read(token)
	v, _ := json.Marshal(map[string]string{"endpoint_url": s.publicURL + "/h/" + base64.RawURLEncoding.EncodeToString(token)})
	return v
}

// timerValue normalises a timer prop to the spec's {cron, interval_seconds}.
func timerValue(p host.Prop, raw json.RawMessage, given bool) (json.RawMessage, error) {
	if !given {
		raw = p.Default
	}
	var t struct {
		IntervalSeconds  *float64 `json:"intervalSeconds"`
		IntervalSeconds2 *float64 `json:"interval_seconds"`
		Cron             *string  `json:"cron"`
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, badProp(p.Name, "must be an object with intervalSeconds or cron")
		}
	}
	if t.IntervalSeconds == nil {
		t.IntervalSeconds = t.IntervalSeconds2
	}
	out := map[string]any{"cron": nil, "interval_seconds": nil}
	switch {
	case t.Cron != nil && *t.Cron != "":
		if err := engine.ParseCron(*t.Cron); err != nil {
			return nil, badProp(p.Name, "has an invalid cron expression (%v); use 5 fields (minute hour day month weekday), 6 with seconds first, or a descriptor such as @hourly", err)
		}
		out["cron"] = *t.Cron
	case t.IntervalSeconds != nil:
		v := *t.IntervalSeconds
		if v != math.Trunc(v) || v < 1 || v > 366*24*3600 {
			return nil, badProp(p.Name, "needs intervalSeconds to be a whole number of seconds from 1 to one year")
		}
		out["interval_seconds"] = int64(v)
	default:
		return nil, badProp(p.Name, "needs intervalSeconds or cron (in its configured value or its default)")
	}
	return json.Marshal(out)
}

// checkType validates one configured value against its prop.
func checkType(p host.Prop, raw json.RawMessage) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return badProp(p.Name, "is not valid JSON")
	}
	elem, isArray := strings.CutSuffix(p.Type, "[]")
	if isArray {
		list, ok := v.([]any)
		if !ok {
			return badProp(p.Name, "must be an array of %s", elem)
		}
		for i, item := range list {
			if err := checkScalar(p, elem, item, fmt.Sprintf("[%d]", i)); err != nil {
				return err
			}
		}
		return nil
	}
	return checkScalar(p, p.Type, v, "")
}

func checkScalar(p host.Prop, typ string, v any, where string) error {
	switch typ {
	case "string":
		s, ok := v.(string)
		if !ok {
			return badProp(p.Name, "%s must be a string", where)
		}
		return checkOption(p, s, where)
	case "boolean":
		if _, ok := v.(bool); !ok {
			return badProp(p.Name, "%s must be true or false", where)
		}
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return badProp(p.Name, "%s must be an integer", where)
		}
		i, err := n.Int64()
		if err != nil {
			return badProp(p.Name, "%s must be an integer, not %s", where, n)
		}
		if p.Min != nil && i < *p.Min {
			return badProp(p.Name, "%s must be at least %d", where, *p.Min)
		}
		if p.Max != nil && i > *p.Max {
			return badProp(p.Name, "%s must be at most %d", where, *p.Max)
		}
		return checkOption(p, n.String(), where)
	case "object":
		if _, ok := v.(map[string]any); !ok {
			return badProp(p.Name, "%s must be a JSON object", where)
		}
	}
	return nil // any, app: any JSON value
}

// checkOption enforces static options: the value must be one of them.
func checkOption(p host.Prop, value, where string) error {
	if len(p.Options) == 0 {
		return nil
	}
	var opts []json.RawMessage
	if json.Unmarshal(p.Options, &opts) != nil {
		return nil
	}
	for _, o := range opts {
		var lv struct {
			Value any `json:"value"`
		}
		var plain any
		if json.Unmarshal(o, &lv) == nil && lv.Value != nil {
			plain = lv.Value
		} else {
			_ = json.Unmarshal(o, &plain)
		}
		if fmt.Sprint(plain) == value {
			return nil
		}
	}
	return badProp(p.Name, "%s must be one of its options %s", where, p.Options)
}
