package main

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// designTable reads the package table of docs/design.md ("Packages"):
// for each package, the fount packages it may import (nil: everything).
// The test reads the doc, so that the doc cannot drift from the code.
func designTable(t *testing.T) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile("../../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	names := regexp.MustCompile("`([^`]+)`")
	table := map[string][]string{}
	for line := range strings.SplitSeq(string(raw), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue // not a row of the package table
		}
		imports := []string{}
		switch col := strings.TrimSpace(cells[3]); col {
		case "everything":
			imports = nil
		case "-":
		default:
			for _, m := range names.FindAllStringSubmatch(col, -1) {
				imports = append(imports, m[1])
			}
		}
		for _, m := range names.FindAllStringSubmatch(cells[1], -1) {
			table[m[1]] = imports
		}
	}
	if len(table) < 10 {
		t.Fatalf("found %d packages in docs/design.md's table: is the table still there?", len(table))
	}
	return table
}

// TestPackageLayering: every package imports only what docs/design.md's
// table allows, and every package is in the table. Arrows run one way:
// cmd -> api -> engine -> (sandbox, store) -> model -> component.
func TestPackageLayering(t *testing.T) {
	t.Parallel()
	allowed := designTable(t)
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}:{{join .Imports " "}}`, "github.com/fount-dev/fount/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const module = "github.com/fount-dev/fount/"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ":")
		pkg = strings.TrimPrefix(pkg, module)
		may, known := allowed[pkg]
		if !known {
			t.Errorf("package %s is not in docs/design.md's package table; add it with the imports it may have", pkg)
			continue
		}
		if may == nil {
			continue // everything
		}
		for _, imp := range strings.Fields(imports) {
			if dep, ok := strings.CutPrefix(imp, module); ok && !slices.Contains(may, dep) {
				t.Errorf("package %s imports %s, which docs/design.md's package table does not allow", pkg, dep)
			}
		}
	}
}
