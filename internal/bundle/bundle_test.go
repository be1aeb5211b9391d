package bundle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestFile(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"main.ts": `import { x } from "./lib";
import axios from "axios";
export default { name: "t", version: "1", run(): number { return x + (axios ? 1 : 0) } };`,
		"lib.ts": `export const x: number = 41;`,
	})
	res, err := File(filepath.Join(dir, "main.ts"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"var x = 41", `import axios from "axios"`, "export {"} {
		if !strings.Contains(res.Code, want) {
			t.Errorf("bundle lacks %q:\n%s", want, res.Code)
		}
	}
	if strings.Contains(res.Code, ": number") || strings.Contains(res.Code, dir) {
		t.Errorf("types or local paths survived:\n%s", res.Code)
	}
	if len(res.Inputs) != 2 || !strings.HasSuffix(res.Inputs[0], "lib.ts") || !filepath.IsAbs(res.Inputs[0]) {
		t.Errorf("inputs = %v", res.Inputs)
	}
}

func TestFileErrors(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"bad.mjs": "export default {\n  run() { return ) }\n}", "missing.mjs": `import "./nope.mjs"; export default {}`})
	for file, want := range map[string]string{"bad.mjs": "bad.mjs:2:", "missing.mjs": "nope.mjs", "absent.mjs": "absent.mjs"} {
		if _, err := File(filepath.Join(dir, file)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want it to mention %q", file, err, want)
		}
	}
}

func TestFileBundlesLocalPackages(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"main.mjs": `import here from "here";
import tooOld from "too-old@^2";
import pinned from "pinned@1.2";
import remote from "remote-only";
import events from "node:events";
export default { name: "t", version: "1", run() { return [here, tooOld, pinned, remote, events] } };`,
		"node_modules/here/package.json":    `{"name":"here","version":"3.0.0","main":"lib/index.js"}`,
		"node_modules/here/lib/index.js":    `module.exports = "HERE-" + require("./dep");`,
		"node_modules/here/lib/dep.js":      `module.exports = "DEP";`,
		"node_modules/too-old/package.json": `{"name":"too-old","version":"1.0.0","main":"index.js"}`,
		"node_modules/too-old/index.js":     `module.exports = "TOO-OLD";`,
		"node_modules/pinned/package.json":  `{"name":"pinned","version":"1.2.7","main":"index.js"}`,
		"node_modules/pinned/index.js":      `module.exports = "PINNED";`,
	})
	res, err := File(filepath.Join(dir, "main.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"HERE-"`, `"DEP"`, `"PINNED"`, `from "too-old@^2"`, `from "remote-only"`, `EventEmitter.prototype`} {
		if !strings.Contains(res.Code, want) {
			t.Errorf("bundle lacks %q:\n%s", want, res.Code)
		}
	}
	if strings.Contains(res.Code, "TOO-OLD") || strings.Contains(res.Code, `from "node:events"`) {
		t.Errorf("an installed version outside the import's range was bundled:\n%s", res.Code)
	}
	if len(res.Inputs) != 1 {
		t.Errorf("inputs = %v, want only the author's file", res.Inputs)
	}
}
