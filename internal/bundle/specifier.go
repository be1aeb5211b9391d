package bundle

import (
	"fmt"
	"regexp"
	"strings"
)

// Import is a bare import specifier taken apart: "lodash@^4.17.0/get"
// is package "lodash", range "^4.17.0", subpath "/get".
type Import struct {
	Name    string // "lodash", "@pipedream/platform"
	Range   string // Pipedream-style version or range; "" when none is given
	Subpath string // "" or "/get"
}

// validName is npm's rule for new package names: lower case, URL-safe,
// an optional scope, at most 214 characters.
var validName = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$`)

// ParseImport splits a bare specifier. The version, when there is one,
// follows the name (and the scope): "uuid@9", "@scope/pkg@1.2/sub".
func ParseImport(spec string) (Import, error) {
	rest := spec
	scope := ""
	if strings.HasPrefix(rest, "@") {
		slash := strings.Index(rest, "/")
		if slash < 0 {
			return Import{}, fmt.Errorf("import %q: a scoped package needs a name after the scope", spec)
		}
		scope, rest = rest[:slash+1], rest[slash+1:]
	}
	name, sub := rest, ""
	if i := strings.Index(rest, "/"); i >= 0 {
		name, sub = rest[:i], rest[i:]
	}
	imp := Import{Name: scope + name, Subpath: sub}
	if at := strings.Index(name, "@"); at >= 0 {
		imp.Name, imp.Range = scope+name[:at], name[at+1:]
		if imp.Range == "" {
			return Import{}, fmt.Errorf("import %q: nothing after the @ where a version belongs", spec)
		}
	}
	if len(imp.Name) > 214 || !validName.MatchString(imp.Name) {
		return Import{}, fmt.Errorf("import %q: %q is not a valid npm package name", spec, imp.Name)
	}
	return imp, nil
}

// nodeBuiltins are the module names Node 20 provides itself
// (require("module").builtinModules without the internal ones), by
// their bare names; "node:" prefixed forms name the same modules.
var nodeBuiltins = map[string]bool{}

func init() {
	for _, m := range strings.Fields(`assert assert/strict async_hooks buffer child_process
		cluster console constants crypto dgram diagnostics_channel dns dns/promises domain
		events fs fs/promises http http2 https inspector inspector/promises module net os
		path path/posix path/win32 perf_hooks process punycode querystring readline
		readline/promises repl stream stream/consumers stream/promises stream/web
		string_decoder sys timers timers/promises tls trace_events tty url util util/types
		v8 vm wasi worker_threads zlib`) {
		nodeBuiltins[m] = true
	}
}

// Builtin reports whether spec names a Node built-in module ("events",
// "node:events", "fs/promises"), and returns its bare name.
func Builtin(spec string) (string, bool) {
	if name, ok := strings.CutPrefix(spec, "node:"); ok {
		return name, true // node: names only ever mean built-ins
	}
	return spec, nodeBuiltins[spec]
}
