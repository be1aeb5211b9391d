package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// allowedImports is the import graph of docs/design.md ("Packages"): for
// each package, the fount packages it may import. Arrows run one way:
// cmd -> api -> engine -> (sandbox, store) -> (component, abi), and
// nothing but cmd/fount imports host.
var allowedImports = map[string][]string{
	"abi":              {},
	"abi/genheader":    {"abi"},
	"ids":              {},
	"component":        {"abi"},
	"secret":           {},
	"s3":               {},
	"egress":           {"abi"},
	"sandbox":          {"abi", "component"},
	"guest":            {},
	"host":             {"abi", "component", "egress", "guest", "host/interrupt", "sandbox"},
	"host/interrupt":   {},
	"store":            {"component", "ids", "secret"},
	"engine":           {"abi", "component", "egress", "ids", "sandbox", "secret", "store"},
	"cluster":          {"abi", "engine", "store"},
	"apiv1":            {},
	"api":              {"apiv1", "component", "engine", "ids", "secret", "store"},
	"client":           {"apiv1", "ids"},
	"bundle":           {},
	"bundle/npmtest":   {}, // a test registry, imported by tests only
	"internal/natsdev": {}, // embedded NATS servers, for tests and make run-cluster
	"internal/confine": {}, // Landlock for the worker processes
	"tools/devnats":    {"internal/natsdev"},
	"metrics":          {},
	"dashboard":        {},
	"registry":         {},
	"cmd/fount":        nil, // everything: it wires the process
}

// TestPackageLayering: every package imports only what the map allows,
// and every package is in the map.
func TestPackageLayering(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}:{{join .Imports " "}}`, "github.com/fount-dev/fount/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const module = "github.com/fount-dev/fount/"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ":")
		pkg = strings.TrimPrefix(pkg, module)
		allowed, known := allowedImports[pkg]
		if !known {
			t.Errorf("package %s is not in the layering map; add it with the imports it may have", pkg)
			continue
		}
		if pkg == "cmd/fount" {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if dep, ok := strings.CutPrefix(imp, module); ok && !slices.Contains(allowed, dep) {
				t.Errorf("package %s imports %s, which the layering does not allow", pkg, dep)
			}
		}
	}
}
