package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"
)

// maxBody caps a request body; component code is the largest legitimate one.
const maxBody = 5 << 20

// requestFields is how one request type of package apiv1 travels: each of
// its fields (embedded structs flattened) by the name it has in the path,
// the query string and the JSON body.
type requestFields struct {
	typ   reflect.Type
	path  map[string]fieldInfo
	query map[string]fieldInfo
	body  map[string]fieldInfo
	all   []fieldInfo
}

// fieldInfo is one field of a request type.
type fieldInfo struct {
	index    []int
	name     string // the name it is documented under
	typ      reflect.Type
	required bool
	// maxLen is its maxLength tag, in characters as JSON Schema counts
	// them (a string field without one is a test failure: see
	// TestEveryTextParameterIsBounded).
	maxLen int
}

// scalar reports whether a field's value can be written in a query string.
func (f fieldInfo) scalar() bool {
	t := f.typ
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int64:
		return true
	}
	return false
}

// fieldsOf reads the tags of a request type (a struct).
func fieldsOf(t reflect.Type) *requestFields {
	rf := &requestFields{typ: t, path: map[string]fieldInfo{}, query: map[string]fieldInfo{}, body: map[string]fieldInfo{}}
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			idx := append(append([]int(nil), index...), i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(f.Type, idx)
				continue
			}
			fi := fieldInfo{index: idx, typ: f.Type, required: f.Tag.Get("required") == "true"}
			if tag := f.Tag.Get("maxLength"); tag != "" {
				n, err := strconv.Atoi(tag)
				if err != nil || n < 1 {
					panic(fmt.Sprintf("api: %s.%s: maxLength %q is not a positive integer", t, f.Name, tag))
				}
				fi.maxLen = n
			}
			if name := f.Tag.Get("path"); name != "" {
				fi.name = name
				rf.path[name] = fi
			}
			if name := f.Tag.Get("query"); name != "" {
				fi.name = name
				rf.query[name] = fi
			}
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
				fi.name = name
				rf.body[name] = fi
			}
			if fi.name != "" {
				rf.all = append(rf.all, fi)
			}
		}
	}
	walk(t, nil)
	return rf
}

// decode fills a new request of the type from r: path parameters, the
// query string and, on POST and PUT, the JSON body (Content-Type
// application/json, a JSON object, at most maxBody bytes). As the
// specification allows, a query field may also come in the body and a
// scalar body field in the query; the body wins. A name that is no field
// of the request, a value of the wrong type, a missing required field and
// a string longer than its maxLength are 400s that name the parameter.
func (rf *requestFields) decode(r *http.Request) (any, error) {
	ptr := reflect.New(rf.typ)
	v := ptr.Elem()
	fromBody := map[string]bool{}
	if r.Method == http.MethodPost || r.Method == http.MethodPut {
		body, err := readBody(r)
		if err != nil {
			return nil, err
		}
		for name, raw := range body {
			f, ok := rf.body[name]
			if !ok {
				f, ok = rf.query[name]
			}
			if !ok {
				return nil, errUnknownParam(name)
			}
			if err := setJSON(v.FieldByIndex(f.index), raw); err != nil {
				return nil, errInvalid(name, "The parameter %s must be %s.", name, describeType(f.typ))
			}
			fromBody[f.name] = true
		}
	}
	for name, values := range r.URL.Query() {
		f, ok := rf.query[name]
		if !ok {
			if bf, isBody := rf.body[name]; isBody && bf.scalar() && (r.Method == http.MethodPost || r.Method == http.MethodPut) {
				f, ok = bf, true
			}
		}
		if !ok {
			if _, inBody := rf.body[name]; inBody {
				return nil, errInvalid(name, "The parameter %s goes in the JSON body of the request.", name)
			}
			return nil, errUnknownParam(name)
		}
		if fromBody[f.name] || len(values) == 0 || (values[0] == "" && f.typ.Kind() != reflect.String) {
			continue // an empty value of a number or boolean is no value
		}
		if err := setText(v.FieldByIndex(f.index), values[0]); err != nil {
			return nil, errInvalid(name, "The parameter %s must be %s.", name, describeType(f.typ))
		}
	}
	for name, f := range rf.path {
		if err := setText(v.FieldByIndex(f.index), chi.URLParam(r, name)); err != nil {
			return nil, errInvalid(name, "The path parameter %s must be %s.", name, describeType(f.typ))
		}
	}
	for _, f := range rf.all {
		if err := f.checkLength(v.FieldByIndex(f.index)); err != nil {
			return nil, err
		}
	}
	for _, f := range rf.all {
		if f.required && v.FieldByIndex(f.index).IsZero() {
			return nil, errMissing(f.name)
		}
	}
	return ptr.Interface(), nil
}

// checkLength refuses a string longer than the field's maxLength.
func (f fieldInfo) checkLength(field reflect.Value) error {
	if field.Kind() == reflect.Pointer {
		if field.IsNil() {
			return nil
		}
		field = field.Elem()
	}
	if f.maxLen == 0 || field.Kind() != reflect.String {
		return nil
	}
	if n := utf8.RuneCountInString(field.String()); n > f.maxLen {
		return errInvalid(f.name, "The parameter %s is %d characters long; the limit is %d.", f.name, n, f.maxLen)
	}
	return nil
}

// readBody reads a JSON object body; an empty body is no parameters.
func readBody(r *http.Request) (map[string]json.RawMessage, error) {
	raw, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &Error{Status: http.StatusRequestEntityTooLarge, Code: "request_too_large", Message: fmt.Sprintf("The request body is over the %d byte limit.", maxBody)}
		}
		return nil, errInvalid("", "The request body could not be read.")
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, errUnsupportedMedia
	}
	var body map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&body); err != nil || body == nil {
		return nil, errInvalid("", "The request body must be a JSON object.")
	}
	if dec.More() {
		return nil, errInvalid("", "The request body must be one JSON object, with nothing after it.")
	}
	return body, nil
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// setJSON decodes a body value into field. null leaves the field zero.
func setJSON(field reflect.Value, raw json.RawMessage) error {
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	if field.Type() == rawMessageType {
		field.SetBytes(append(json.RawMessage(nil), raw...))
		return nil
	}
	return json.Unmarshal(raw, field.Addr().Interface())
}

// setText parses a query or path value into field.
func setText(field reflect.Value, s string) error {
	t := field.Type()
	if t.Kind() == reflect.Pointer {
		p := reflect.New(t.Elem())
		if err := setText(p.Elem(), s); err != nil {
			return err
		}
		field.Set(p)
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		field.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return err
		}
		field.SetBool(b)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return err
		}
		field.SetInt(n)
	default:
		if t == rawMessageType {
			if !json.Valid([]byte(s)) {
				return errors.New("not JSON")
			}
			field.SetBytes([]byte(s))
			return nil
		}
		return fmt.Errorf("a %s cannot be given as text", t)
	}
	return nil
}

// describeType says what a field's value must be, for messages.
func describeType(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == rawMessageType:
		return "JSON"
	case t.Kind() == reflect.String:
		return "a string"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() == reflect.Int || t.Kind() == reflect.Int64:
		return "an integer"
	case t.Kind() == reflect.Map:
		return "a JSON object"
	}
	return "of type " + t.String()
}

func errUnknownParam(name string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "unknown_parameter", Param: name,
		Message: fmt.Sprintf("The operation has no parameter %q; see /v1/openapi.json for the ones it takes.", name)}
}

// text returns the decoded value of a string field by its query name, ""
// when the request type has none.
func (rf *requestFields) text(req any, name string) string {
	f, ok := rf.query[name]
	if !ok || f.typ.Kind() != reflect.String {
		return ""
	}
	return reflect.ValueOf(req).Elem().FieldByIndex(f.index).String()
}
