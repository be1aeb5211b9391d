// Package registry is the set of published components compiled into the
// fount binary: one file per component under components/, each with a
// registry key (app-slug-component-name) and a semantic version. Publishing
// means adding a file here; TestRegistry checks both rules for every file.
package registry

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
)

//go:embed components/*.mjs
var files embed.FS

// Entry is one published component's code.
type Entry struct {
	File string // file name under components/
	Code string
}

// Entries returns every published component, by file name.
func Entries() ([]Entry, error) {
	names, err := fs.Glob(files, "components/*.mjs")
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	sort.Strings(names)
	out := make([]Entry, 0, len(names))
	for _, n := range names {
		b, err := files.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("registry: read %s: %w", n, err)
		}
		out = append(out, Entry{File: path.Base(n), Code: string(b)})
	}
	return out, nil
}
