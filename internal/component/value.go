package component

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/fount-dev/fount/internal/ids"
)

// MaxPropValue is the specification's limit on a prop value entered as
// raw text: 64 KB.
const MaxPropValue = 64 << 10

// PropError is a configured value that does not fit its prop. Reason is a
// clause that completes "The prop <name> ...".
type PropError struct {
	Prop   string
	Reason string
	// TooLarge is set when the value is over MaxPropValue.
	TooLarge bool
}

func (e *PropError) Error() string { return "The prop " + e.Prop + " " + e.Reason + "." }

func propErr(p Prop, format string, args ...any) *PropError {
	return &PropError{Prop: p.Name, Reason: fmt.Sprintf(format, args...)}
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// Check validates a configured value of p: its JSON type (arrays
// element by element), Min and Max of integers, static options, and the
// size limit. App props and props of type any take any JSON value;
// interface and db props take none (callers handle them before).
func (p Prop) Check(raw json.RawMessage) error {
	if len(raw) > MaxPropValue {
		return &PropError{Prop: p.Name, TooLarge: true,
			Reason: fmt.Sprintf("is %d bytes; the limit is %d", len(raw), MaxPropValue)}
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || dec.More() {
		return propErr(p, "is not valid JSON")
	}
	if elem, isArray := p.Type.Elem(); isArray {
		list, ok := v.([]any)
		if !ok {
			return propErr(p, "must be an array of %s", elem)
		}
		for i, item := range list {
			if err := p.checkScalar(elem, item, fmt.Sprintf("[%d] ", i)); err != nil {
				return err
			}
		}
		return nil
	}
	return p.checkScalar(p.Type, v, "")
}

func (p Prop) checkScalar(typ PropType, v any, where string) error {
	switch typ {
	case TypeString:
		s, ok := v.(string)
		if !ok {
			return propErr(p, "%smust be a string", where)
		}
		return p.checkOption(s, where)
	case TypeBoolean:
		if _, ok := v.(bool); !ok {
			return propErr(p, "%smust be true or false", where)
		}
	case TypeInteger:
		n, ok := v.(json.Number)
		if !ok {
			return propErr(p, "%smust be an integer", where)
		}
		i, err := n.Int64()
		if err != nil {
			return propErr(p, "%smust be an integer, not %s", where, n)
		}
		if p.Min != nil && i < *p.Min {
			return propErr(p, "%smust be at least %d", where, *p.Min)
		}
		if p.Max != nil && i > *p.Max {
			return propErr(p, "%smust be at most %d", where, *p.Max)
		}
		return p.checkOption(n.String(), where)
	case TypeObject:
		if _, ok := v.(map[string]any); !ok {
			return propErr(p, "%smust be a JSON object", where)
		}
	case TypeHTTPRequest:
		return p.checkHTTPRequest(v)
	case TypeSQL:
		return p.checkSQL(v)
	case TypeDataStore:
		if ref, _ := DataStoreRef(v); ref == "" {
			return propErr(p, `must name one of the account's data stores: its id or name, or {"data_store_id": id}`)
		}
	}
	return nil // any, app: any JSON value
}

// DataStoreRef is the data store a data_store prop's decoded value
// names, or "": by its id (byID), or by its name.
func DataStoreRef(v any) (ref string, byID bool) {
	switch v := v.(type) {
	case string:
		ref = strings.TrimSpace(v)
	case map[string]any:
		s, _ := v["data_store_id"].(string)
		ref = strings.TrimSpace(s)
	}
	return ref, ids.Is(ref, ids.DataStore)
}

// AuthProvisionID is the connected account an app prop's value names,
// {"authProvisionId": "apn_..."}; false when it names none.
func AuthProvisionID(raw json.RawMessage) (string, bool) {
	var v struct {
		AuthProvisionID string `json:"authProvisionId"`
	}
	if json.Unmarshal(raw, &v) != nil || !ids.Is(v.AuthProvisionID, ids.Account) {
		return "", false
	}
	return v.AuthProvisionID, true
}

// checkOption enforces static options: the value must be one of them,
// given as plain values or as {label, value} objects.
func (p Prop) checkOption(value, where string) error {
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
	return propErr(p, "%smust be one of its options %s", where, p.Options)
}

// Required reports whether a deploy must give p a value: a configured
// prop that is neither optional nor has a default.
func (p Prop) Required() bool {
	switch p.Type {
	case TypeApp, TypeHTTP, TypeTimer, TypeDB, TypeAlert, TypeAppHook, TypeDir:
		return false
	}
	return !p.Optional && len(p.Default) == 0
}

// checkSQL checks a sql prop's value: a query as text, or {query,
// params} with params a list.
func (p Prop) checkSQL(v any) error {
	if s, ok := v.(string); ok {
		if strings.TrimSpace(s) == "" {
			return propErr(p, "must be a SQL query, not empty")
		}
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return propErr(p, `must be a SQL query: text, or {"query": "...", "params": [...]}`)
	}
	for k := range m {
		if k != "query" && k != "params" {
			return propErr(p, "has %q; a sql value holds query and params only", k)
		}
	}
	if q, _ := m["query"].(string); strings.TrimSpace(q) == "" {
		return propErr(p, "query must be a SQL query, not empty")
	}
	if params, ok := m["params"]; ok {
		if _, ok := params.([]any); !ok {
			return propErr(p, "params must be a list of the query's values")
		}
	}
	return nil
}

// SQLValue is a checked sql prop's value in the form the component is
// given, as Pipedream gives it: {"query": "...", "params": [...]}, from a
// query given as text or an object whose params may be missing.
func SQLValue(raw json.RawMessage) json.RawMessage {
	var form struct {
		Query  string          `json:"query"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(raw, &form.Query) != nil && json.Unmarshal(raw, &form) != nil {
		return raw // not a sql value: Check refuses it first
	}
	if len(form.Params) == 0 || string(form.Params) == "null" {
		form.Params = json.RawMessage("[]")
	}
	out, _ := json.Marshal(form)
	return out
}

// checkHTTPRequest checks an http_request prop's configuration: an object
// whose url, when given, is http or https, whose method is a token, and
// whose headers and params are [{name, value}] lists or objects.
func (p Prop) checkHTTPRequest(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return propErr(p, "must be an object {url, method, headers, params, body}")
	}
	if raw, ok := m["url"]; ok {
		s, _ := raw.(string)
		u, err := url.Parse(s)
		if s != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
			return propErr(p, "url must be an http or https URL, not %q", s)
		}
	}
	if raw, ok := m["method"]; ok {
		s, _ := raw.(string)
		if !httpToken.MatchString(s) {
			return propErr(p, "method must be an HTTP method such as GET or POST")
		}
	}
	for _, field := range []string{"headers", "params"} {
		switch list := m[field].(type) {
		case nil, map[string]any:
		case []any:
			for i, item := range list {
				if pair, ok := item.(map[string]any); !ok || pair["name"] == nil {
					return propErr(p, "%s[%d] must be {name, value}", field, i)
				}
			}
		default:
			return propErr(p, "%s must be a list of {name, value} or an object", field)
		}
	}
	return nil
}

var httpToken = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$")
