package guest

import _ "embed"

// Wasm is the guest module: QuickJS and the fount shim, compiled to a
// wasm32-wasi reactor. Rebuild it with `make guest`; `make guest-verify`
// checks that the committed bytes are what the sources build.
//
//go:embed fount.wasm
var Wasm []byte

// Prelude is the JavaScript that implements the component model inside the
// guest: the web globals (web.js), then the component model (prelude.js).
// The host passes it to fount_init once per fresh runtime; instances
// restored from a snapshot already hold it.
var Prelude = append(append(append([]byte{}, webJS...), '\n'), preludeJS...)

//go:embed web.js
var webJS []byte

//go:embed prelude.js
var preludeJS []byte
