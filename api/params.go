package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
)

// maxBody caps a request body; component code is the largest legitimate one.
const maxBody = 5 << 20

// params are a request's parameters: the query string and, on POST and PUT,
// the fields of the JSON body. A body field wins over a query parameter of
// the same name.
type params struct {
	query map[string][]string
	body  map[string]json.RawMessage
}

// readParams parses the query and the JSON body. A body needs
// Content-Type: application/json (415), must be a JSON object (400) and
// fit in maxBody (413).
func readParams(r *http.Request) (*params, error) {
	p := &params{query: r.URL.Query(), body: map[string]json.RawMessage{}}
	if r.Method != http.MethodPost && r.Method != http.MethodPut {
		return p, nil
	}
	raw, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &Error{Status: http.StatusRequestEntityTooLarge, Code: "request_too_large", Message: fmt.Sprintf("The request body is over the %d byte limit.", maxBody)}
		}
		return nil, errInvalid("", "The request body could not be read.")
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return p, nil
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, errUnsupportedMedia
	}
	if err := json.Unmarshal(raw, &p.body); err != nil {
		return nil, errInvalid("", "The request body must be a JSON object: %v.", err)
	}
	return p, nil
}

// str returns a string parameter and whether it was given. A body field
// that is not a string (or null) is a 400 naming it.
func (p *params) str(name string) (string, bool, error) {
	if raw, ok := p.body[name]; ok {
		if string(raw) == "null" {
			return "", false, nil
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", false, errInvalid(name, "The parameter %s must be a string.", name)
		}
		return s, true, nil
	}
	if vs, ok := p.query[name]; ok && len(vs) > 0 {
		return vs[0], true, nil
	}
	return "", false, nil
}

// boolean returns a boolean parameter: a JSON boolean in the body, or
// "true"/"false" in the query.
func (p *params) boolean(name string) (bool, bool, error) {
	if raw, ok := p.body[name]; ok {
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return false, false, errInvalid(name, "The parameter %s must be true or false.", name)
		}
		return b, true, nil
	}
	if vs, ok := p.query[name]; ok && len(vs) > 0 {
		b, err := strconv.ParseBool(vs[0])
		if err != nil {
			return false, false, errInvalid(name, "The parameter %s must be true or false.", name)
		}
		return b, true, nil
	}
	return false, false, nil
}

// object returns a JSON object parameter from the body (or a query
// parameter holding JSON text).
func (p *params) object(name string) (map[string]json.RawMessage, bool, error) {
	raw, ok := p.body[name]
	if !ok {
		s, given, _ := p.str(name)
		if !given {
			return nil, false, nil
		}
		raw = json.RawMessage(s)
	}
	if string(raw) == "null" {
		return nil, false, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, false, errInvalid(name, "The parameter %s must be a JSON object.", name)
	}
	return m, true, nil
}
