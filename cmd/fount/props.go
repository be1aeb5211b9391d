package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/fount-dev/fount/internal/ids"

	"github.com/fount-dev/fount/apiv1"
	"golang.org/x/term"
)

// propFlags collects repeated --prop name=value.
type propFlags []string

func (p *propFlags) String() string     { return strings.Join(*p, ",") }
func (p *propFlags) Set(v string) error { *p = append(*p, v); return nil }

// propsInput is what the command line says about props.
type propsInput struct {
	flags propFlags
	file  string
}

// register adds --prop and --props to a command's flags.
func (in *propsInput) register(fs *flag.FlagSet) {
	fs.Var(&in.flags, "prop", "a prop value, name=value (repeatable; value - reads a secret from stdin)")
	fs.StringVar(&in.file, "props", "", "a JSON file of prop values")
}

// build checks every given value against the component's props and
// converts it to JSON of the prop's type. A secret given as "-" is read
// from standard input; a required secret that is missing is asked for on a
// terminal, without echo.
func (in propsInput) build(c *cli, props []apiv1.Prop) (map[string]json.RawMessage, error) {
	byName := map[string]apiv1.Prop{}
	for _, p := range props {
		byName[p.Name] = p
	}
	out := map[string]json.RawMessage{}
	if in.file != "" {
		b, err := os.ReadFile(in.file)
		if err != nil {
			return nil, usagef("read --props: %v", err)
		}
		if err := json.Unmarshal(b, &out); err != nil {
			return nil, usagef("--props %s must hold a JSON object of prop values: %v", in.file, err)
		}
		for name, raw := range out {
			p, ok := byName[name]
			if !ok {
				return nil, usagef("--props names %q, which is not a prop of this component", name)
			}
			v, err := jsonProp(p, raw)
			if err != nil {
				return nil, err
			}
			out[name] = v
		}
	}
	stdin := bufio.NewReader(c.stdin) // shared: each secret read takes one line
	for _, kv := range in.flags {
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, usagef("--prop %q must be name=value", kv)
		}
		p, known := byName[name]
		if !known {
			return nil, usagef("the component has no prop %q (its props: %s)", name, propNames(props))
		}
		if p.Secret && value == "-" {
			v, err := readSecret(stdin)
			if err != nil {
				return nil, err
			}
			if v == "" {
				return nil, usagef("the secret prop %s read from standard input is empty", name)
			}
			value = v
		}
		raw, err := convertProp(p, value)
		if err != nil {
			return nil, err
		}
		out[name] = raw
	}
	for _, p := range props {
		if _, given := out[p.Name]; given || !p.Secret || p.Optional || len(p.Default) > 0 {
			continue
		}
		if !isTerminal(c.stdin) {
			return nil, usagef("the secret prop %s is required: pass --prop %s=- and send it on standard input", p.Name, p.Name)
		}
		fmt.Fprintf(c.stderr, "%s (secret): ", firstNonEmpty(p.Label, p.Name))
		b, err := term.ReadPassword(int(c.stdin.(*os.File).Fd()))
		fmt.Fprintln(c.stderr)
		if err != nil {
			return nil, err
		}
		out[p.Name], _ = json.Marshal(string(b))
	}
	return out, nil
}

func readSecret(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("read the secret from standard input: %w", err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}

func propNames(props []apiv1.Prop) string {
	var names []string
	for _, p := range props {
		names = append(names, p.Name+" ("+p.Type+")")
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// jsonProp checks a value from a --props file against its prop's type,
// by the same rules as a --prop value, and returns it as the API takes
// it (an app prop's account id becomes {"authProvisionId": ...}).
func jsonProp(p apiv1.Prop, raw json.RawMessage) (json.RawMessage, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch p.Type {
		case "string", "any":
			return raw, nil
		case "app", "http_request": // an account's id, a URL: as on --prop
			return convertProp(p, s)
		}
		return nil, usagef("invalid prop %s in --props: expected %s, got the string %q", p.Name, p.Type, s)
	}
	if _, err := convertProp(p, string(raw)); err != nil {
		return nil, err
	}
	return raw, nil
}

// convertProp turns a command-line value into JSON of the prop's type.
func convertProp(p apiv1.Prop, value string) (json.RawMessage, error) {
	bad := func(expected string) error {
		return usagef("invalid prop %s: expected %s, got %q", p.Name, expected, value)
	}
	elem, isArray := strings.CutSuffix(p.Type, "[]")
	if isArray {
		var items []string
		if strings.HasPrefix(strings.TrimSpace(value), "[") {
			var raw []json.RawMessage
			if err := json.Unmarshal([]byte(value), &raw); err != nil {
				return nil, bad("a JSON array or comma-separated values of type " + elem)
			}
			for _, r := range raw {
				var s string
				if json.Unmarshal(r, &s) != nil {
					s = string(r)
				}
				items = append(items, s)
			}
		} else if value != "" {
			items = strings.Split(value, ",")
		}
		out := make([]json.RawMessage, 0, len(items))
		for _, it := range items {
			v, err := convertScalar(p, elem, strings.TrimSpace(it))
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return json.Marshal(out)
	}
	return convertScalar(p, p.Type, value)
}

func convertScalar(p apiv1.Prop, typ, value string) (json.RawMessage, error) {
	bad := func(expected string) error {
		return usagef("invalid prop %s: expected %s, got %q", p.Name, expected, value)
	}
	switch typ {
	case "string":
		return json.Marshal(value)
	case "integer":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return nil, bad("an integer")
		}
		if p.Min != nil && n < *p.Min {
			return nil, bad(fmt.Sprintf("an integer of at least %d", *p.Min))
		}
		if p.Max != nil && n > *p.Max {
			return nil, bad(fmt.Sprintf("an integer of at most %d", *p.Max))
		}
		return json.Marshal(n)
	case "boolean":
		b, err := strconv.ParseBool(value)
		if err != nil {
			return nil, bad("true or false")
		}
		return json.Marshal(b)
	case "object", "$.interface.timer":
		var m map[string]any
		if json.Unmarshal([]byte(value), &m) != nil {
			return nil, bad("a JSON object")
		}
		return json.RawMessage(value), nil
	case "any":
		if json.Valid([]byte(value)) {
			return json.RawMessage(value), nil
		}
		return json.Marshal(value)
	case "app":
		// A connected account, by its id, or the configuration as the API
		// takes it.
		if strings.HasPrefix(strings.TrimSpace(value), "{") {
			var m map[string]any
			if json.Unmarshal([]byte(value), &m) != nil {
				return nil, bad(`a connected account's id (apn_...) or {"authProvisionId": "apn_..."}`)
			}
			return json.RawMessage(value), nil
		}
		if !ids.Is(value, ids.Account) {
			return nil, bad(`a connected account's id (apn_...) or {"authProvisionId": "apn_..."}`)
		}
		return json.Marshal(map[string]string{"authProvisionId": value})
	case "http_request":
		// A URL alone is a GET of it; anything else is the JSON object the
		// API takes ({url, method, headers, params, body}).
		if strings.HasPrefix(strings.TrimSpace(value), "{") {
			var m map[string]any
			if json.Unmarshal([]byte(value), &m) != nil {
				return nil, bad("a URL or a JSON object {url, method, headers, params, body}")
			}
			return json.RawMessage(value), nil
		}
		if !strings.HasPrefix(value, "http://") && !strings.HasPrefix(value, "https://") {
			return nil, bad("a URL or a JSON object {url, method, headers, params, body}")
		}
		return json.Marshal(map[string]string{"url": value, "method": "GET"})
	case "alert":
		return nil, usagef("prop %s is an alert, shown to whoever configures the component: it takes no value", p.Name)
	}
	return nil, usagef("prop %s (%s) is set by fount, not on the command line", p.Name, typ)
}

// requiredProp mirrors component.Prop.Required: a configured prop that is
// neither optional nor has a default (apps and interfaces take none).
func requiredProp(p apiv1.Prop) bool {
	switch p.Type {
	case "app", "$.interface.http", "$.interface.timer", "$.service.db", "$.interface.apphook", "alert":
		return false
	}
	return !p.Optional && len(p.Default) == 0
}

// checkRequired lists every required prop values lacks (secrets, which
// build asks for, aside), with the flag that sets each.
func checkRequired(props []apiv1.Prop, values map[string]json.RawMessage) error {
	var missing []string
	for _, p := range props {
		if _, given := values[p.Name]; !given && !p.Secret && requiredProp(p) {
			missing = append(missing, fmt.Sprintf("%s (%s): --prop %s=...", p.Name, p.Type, p.Name))
		}
	}
	if len(missing) > 0 {
		return usagef("the component needs values for its required props:\n  %s", strings.Join(missing, "\n  "))
	}
	return nil
}
