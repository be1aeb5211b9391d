package guest

import _ "embed"

// Wasm is the guest module: QuickJS and the fount shim, compiled to a
// wasm32-wasi reactor. Rebuild it with `make guest`; `make guest-verify`
// checks that the committed bytes are what the sources build.
//
//go:embed fount.wasm
var Wasm []byte

// Prelude is the JavaScript that implements the component model inside
// the guest. The host passes it to fount_init once per fresh runtime;
// instances restored from a snapshot already hold it.
//
//go:embed prelude.js
var Prelude []byte

// Web is the JavaScript of the web globals Node has (URL, TextEncoder,
// fetch's Request and Response...). Evaluated, they take about 300 KiB of
// an instance's memory, so the host sends it with the load of code that
// names one of them (see WebNames), and the prelude evaluates it then.
//
//go:embed web.js
var Web []byte

// Intl is the JavaScript of the Intl global (one locale, en-US, and the
// UTC time zone), sent like Web with the load of code that names Intl.
//
//go:embed intl.js
var Intl []byte

// WebNames are the globals Web defines, and fetch, which needs them.
var WebNames = []string{"URL", "URLSearchParams", "TextEncoder", "TextDecoder", "atob", "btoa", "DOMException", "Event",
	"EventTarget", "AbortController", "AbortSignal", "structuredClone", "Blob", "File", "MessageChannel", "MessagePort", "MessageEvent",
	"BroadcastChannel", "Headers", "Request", "Response", "fetch",
	"http_request"}
