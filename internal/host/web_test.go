package host

import "testing"

// TestWebGlobalsOnlyWhereNamed: the web globals are evaluated for code
// that names one (a comment is enough), and not for other code, whose
// instances stay about 300 KiB smaller.
func TestWebGlobalsOnlyWhereNamed(t *testing.T) {
	t.Parallel()
	dynamic := `run() { return [typeof globalThis["U" + "RL"], typeof globalThis["Text" + "Encoder"]] }`
	runComponentCases(t, []componentCase{
		{name: "code that names none", code: src(dynamic), check: wantValue(`["undefined","undefined"]`)},
		{name: "code that names one", code: "// uses URL\n" + src(dynamic), check: wantValue(`["function","function"]`)},
		{name: "fetch without the globals", code: src(`async run() { return await globalThis["fe" + "tch"]("http://x.example/") }`),
			check: wantScriptError("ReferenceError", "fetch needs the web globals")},
	})
}
