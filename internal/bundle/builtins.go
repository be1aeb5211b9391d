package bundle

import (
	"embed"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"sync"

	esbuild "github.com/evanw/esbuild/pkg/api"
)

// nodeFS holds the Node built-in modules fount provides: well-kept
// polyfills vendored from npm (node/vendor, see its README) and modules
// written for fount (node/*.js).
//
//go:embed all:node
var nodeFS embed.FS

// providedBuiltins maps each built-in fount provides, by its bare name,
// to its module in nodeFS.
var providedBuiltins = map[string]string{
	"assert":              "assert.js",
	"assert/strict":       "assert_strict.js",
	"async_hooks":         "async_hooks.js",
	"buffer":              "buffer.js",
	"child_process":       "child_process.js",
	"cluster":             "cluster.js",
	"console":             "console.js",
	"constants":           "constants.js",
	"crypto":              "crypto.js",
	"dgram":               "dgram.js",
	"diagnostics_channel": "diagnostics_channel.js",
	"domain":              "domain.js",
	"inspector":           "inspector.js",
	"inspector/promises":  "inspector.js",
	"module":              "module.js",
	"perf_hooks":          "perf_hooks.js",
	"readline":            "readline.js",
	"readline/promises":   "readline_promises.js",
	"repl":                "repl.js",
	"stream/consumers":    "stream_consumers.js",
	"sys":                 "sys.js",
	"trace_events":        "trace_events.js",
	"util/types":          "util_types.js",
	"v8":                  "v8.js",
	"vm":                  "vm.js",
	"wasi":                "wasi.js",
	"worker_threads":      "worker_threads.js",
	"dns":                 "dns.js",
	"dns/promises":        "dns_promises.js",
	"events":              "vendor/events-3.3.0/events.js",
	"fs":                  "fs.js",
	"fs/promises":         "fs_promises.js",
	"http":                "http.js",
	"http2":               "http2.js",
	"https":               "https.js",
	"net":                 "net.js",
	"os":                  "os.js",
	"path":                "vendor/path-browserify-1.0.1/index.js",
	"path/posix":          "vendor/path-browserify-1.0.1/index.js",
	"process":             "process.js",
	"punycode":            "vendor/punycode-2.3.1/punycode.js",
	"querystring":         "querystring.js",
	"stream":              "stream.js",
	"stream/promises":     "stream_promises.js",
	"stream/web":          "stream_web.js",
	"string_decoder":      "vendor/string_decoder-1.3.0/lib/string_decoder.js",
	"timers":              "timers.js",
	"tls":                 "tls.js",
	"tty":                 "tty.js",
	"timers/promises":     "timers_promises.js",
	"url":                 "url.js",
	"util":                "util.js",
	"zlib":                "zlib.js",
}

// vendoredDeps are the packages the vendored polyfills require.
var vendoredDeps = map[string]string{
	"base64-js":       "vendor/base64-js-1.5.1/index.js",
	"ieee754":         "vendor/ieee754-1.2.1/index.js",
	"safe-buffer":     "vendor/safe-buffer-5.2.1/index.js",
	"inherits":        "vendor/inherits-2.0.4/inherits_browser.js",
	"util-deprecate":  "vendor/util-deprecate-1.0.2/browser.js",
	"string_decoder/": "vendor/string_decoder-1.3.0/lib/string_decoder.js",
}

// readableStream is where stream-browserify's readable-stream/... go.
const readableStream = "vendor/readable-stream-3.6.2/"

// browserFiles are the substitutions of readable-stream's "browser" field,
// which the vendored files rely on; not from.js's, whose browser version
// leaves out Readable.from, which QuickJS can run.
var browserFiles = map[string]string{
	readableStream + "errors.js":                      readableStream + "errors-browser.js",
	readableStream + "lib/internal/streams/stream.js": readableStream + "lib/internal/streams/stream-browser.js",
}

// ProvidedBuiltins lists the built-in modules fount provides.
func ProvidedBuiltins() []string {
	out := make([]string, 0, len(providedBuiltins))
	for name := range providedBuiltins {
		out = append(out, name)
	}
	return out
}

// nodeNamespace holds the built-in modules, by their path in nodeFS.
const nodeNamespace = "node"

// bufferGlobal is injected into every bundle: code that uses the Buffer
// global gets it from the buffer module, code that does not gets nothing.
const bufferGlobal = "fount:buffer-global"

// webStreamsGlobal is injected into bundles that name a WHATWG streams
// global: web-streams-polyfill's, where they are used.
const webStreamsGlobal = "fount:web-streams-global"

// fsWithStreams is fs for bundles that name its streams: fs.js and the
// module that makes the streams, which registers itself with it.
const fsWithStreams = "fs_full.js"

// builtinPath is the module of the built-in named name (bare), and
// whether fount provides one; withStreams picks fs with its streams.
func builtinPath(name string, withStreams bool) (string, bool) {
	if name == "fs" && withStreams {
		return fsWithStreams, true
	}
	file, ok := providedBuiltins[name]
	return file, ok
}

// setupBuiltins resolves and loads the modules of nodeFS for a server
// bundle.
func (b *build) setupBuiltins(pb esbuild.PluginBuild) {
	setupBuiltins(pb, b.fsStreams, func() {
		b.mu.Lock()
		b.usedBuiltins = true
		b.mu.Unlock()
	})
}

// setupBuiltins resolves and loads the modules of nodeFS (fs with its
// streams when withStreams); used is called whenever a bundle takes one
// of them.
func setupBuiltins(pb esbuild.PluginBuild, withStreams bool, used func()) {
	pb.OnResolve(esbuild.OnResolveOptions{Filter: "^" + bufferGlobal + "$"}, func(esbuild.OnResolveArgs) (esbuild.OnResolveResult, error) {
		return esbuild.OnResolveResult{Path: "buffer_global.js", Namespace: nodeNamespace}, nil
	})
	pb.OnResolve(esbuild.OnResolveOptions{Filter: "^" + webStreamsGlobal + "$"}, func(esbuild.OnResolveArgs) (esbuild.OnResolveResult, error) {
		return esbuild.OnResolveResult{Path: "web_streams_global.js", Namespace: nodeNamespace}, nil
	})
	pb.OnResolve(esbuild.OnResolveOptions{Filter: ".*", Namespace: nodeNamespace}, func(args esbuild.OnResolveArgs) (esbuild.OnResolveResult, error) {
		if strings.HasPrefix(args.Path, ".") {
			p := path.Join(path.Dir(args.Importer), args.Path)
			if ext := path.Ext(p); ext != ".js" && ext != ".mjs" {
				p += ".js"
			}
			if sub, ok := browserFiles[p]; ok {
				p = sub
			}
			return esbuild.OnResolveResult{Path: p, Namespace: nodeNamespace}, nil
		}
		name, _ := Builtin(args.Path)
		if file, ok := builtinPath(name, withStreams); ok {
			used()
			return esbuild.OnResolveResult{Path: file, Namespace: nodeNamespace}, nil
		}
		if file, ok := vendoredDeps[args.Path]; ok {
			return esbuild.OnResolveResult{Path: file, Namespace: nodeNamespace}, nil
		}
		if rest, ok := strings.CutPrefix(args.Path, "readable-stream/"); ok {
			return esbuild.OnResolveResult{Path: readableStream + rest, Namespace: nodeNamespace}, nil
		}
		return esbuild.OnResolveResult{}, fmt.Errorf("fount's %s imports %q, which it does not have", args.Importer, args.Path)
	})
	pb.OnLoad(esbuild.OnLoadOptions{Filter: ".*", Namespace: nodeNamespace}, func(args esbuild.OnLoadArgs) (esbuild.OnLoadResult, error) {
		if face, ok := strings.CutPrefix(args.Path, requirePrefix); ok {
			file, _ := builtinPath(strings.ReplaceAll(face, "__", "/"), withStreams)
			code := builtinRequire(file)
			return esbuild.OnLoadResult{Contents: &code, Loader: esbuild.LoaderJS}, nil
		}
		if face, ok := strings.CutPrefix(args.Path, facePrefix); ok {
			name := strings.ReplaceAll(face, "__", "/")
			file, _ := builtinPath(name, withStreams)
			code, err := builtinFace(name, file)
			if err != nil {
				return esbuild.OnLoadResult{}, err
			}
			return esbuild.OnLoadResult{Contents: &code, Loader: esbuild.LoaderJS}, nil
		}
		src, err := nodeFS.ReadFile(path.Join("node", args.Path))
		if err != nil {
			return esbuild.OnLoadResult{}, fmt.Errorf("built-in module %s: %w", args.Path, err)
		}
		s := string(src)
		return esbuild.OnLoadResult{Contents: &s, Loader: esbuild.LoaderJS}, nil
	})
}

// builtin resolves to a provided built-in module, and notes that the
// bundle holds one. An import statement gets the module's face (see
// builtinFace), require() the module itself.
func (b *build) builtin(name, file string, kind esbuild.ResolveKind) esbuild.OnResolveResult {
	b.mu.Lock()
	b.usedBuiltins = true
	b.mu.Unlock()
	return builtinResolved(name, file, kind)
}

// builtinResolved is where an import (a face) or a require() of
// built-in name, whose module is file, resolves.
func builtinResolved(name, file string, kind esbuild.ResolveKind) esbuild.OnResolveResult {
	face := strings.ReplaceAll(name, "/", "__")
	if kind == esbuild.ResolveJSImportStatement || kind == esbuild.ResolveJSDynamicImport {
		return esbuild.OnResolveResult{Path: facePrefix + face, Namespace: nodeNamespace}
	}
	return esbuild.OnResolveResult{Path: requirePrefix + face, Namespace: nodeNamespace}
}

// requirePrefix marks, in nodeNamespace, what require() of a built-in
// gives: as in Node, the module's own object, which code may change
// (graceful-fs replaces fs.close), not the frozen view of an ES module
// that esbuild would make; it holds each named export too.
const requirePrefix = "require/"

// builtinRequire is the CommonJS module require() of a built-in gets.
func builtinRequire(file string) string {
	return fmt.Sprintf(`var ns = require(%q);
var d = ns && ns.__esModule ? ns.default : ns;
if (ns && ns.__esModule && d && (typeof d === "object" || typeof d === "function")) {
  for (var k in ns) if (k !== "default" && !(k in d)) d[k] = ns[k];
}
module.exports = d;
`, "../"+file)
}

// facePrefix marks, in nodeNamespace, the face of a built-in: an ES
// module with every name Node's module exports.
const facePrefix = "face/"

// nodeExports are the names Node 20's built-in modules export, by module
// (node/node20-exports.json, from tools/node-exports.mjs).
var nodeExports = sync.OnceValues(func() (map[string][]string, error) {
	raw, err := nodeFS.ReadFile("node/node20-exports.json")
	if err != nil {
		return nil, err
	}
	var m map[string][]string
	return m, json.Unmarshal(raw, &m)
})

// builtinFace is the module an import statement of built-in name gets:
// its default export, and each name Node's module exports, as fount's
// module has it (exportOf), so that `import { publicEncrypt } from
// "crypto"` bundles as it loads in Node, and throws only if called.
// Unused names are dropped from the bundle: each is a pure call.
func builtinFace(name, file string) (string, error) {
	exports, err := nodeExports()
	if err != nil {
		return "", fmt.Errorf("node20-exports.json: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "import * as __fountImpl from %q;\n", "../"+file)
	b.WriteString("import { exportOf as __fountExportOf } from \"../unavailable.js\";\n")
	b.WriteString("export default __fountImpl.default;\n")
	for _, n := range exports[name] {
		fmt.Fprintf(&b, "export const %s = /* @__PURE__ */ __fountExportOf(__fountImpl, %q, %q);\n", n, name, n)
	}
	return b.String(), nil
}

// builtinFile is the module of a built-in fount provides, by any of its
// names ("events", "node:events").
func builtinFile(spec string, withStreams bool) (string, bool) {
	name, ok := Builtin(spec)
	if !ok {
		return "", false
	}
	return builtinPath(name, withStreams)
}
