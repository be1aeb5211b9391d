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
