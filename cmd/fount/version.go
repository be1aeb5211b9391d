package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// buildVersion is what `fount version` reports: the release version, and
// the VCS revision Go stamped into the binary.
type buildVersion struct {
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

func currentVersion() buildVersion {
	v := buildVersion{Version: version, Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if v.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version // go install of a tagged module
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

func (v buildVersion) String() string {
	var details []string
	if v.Revision != "" {
		rev := v.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if v.Modified {
			rev += "+modified"
		}
		details = append(details, "revision "+rev)
	}
	if v.Time != "" {
		details = append(details, v.Time)
	}
	details = append(details, v.Go)
	return fmt.Sprintf("fount %s (%s)", v.Version, strings.Join(details, ", "))
}

// runVersion prints the version, as JSON with --json.
func runVersion(args []string, stdout, stderr io.Writer) int {
	v := currentVersion()
	switch {
	case len(args) == 0:
		fmt.Fprintln(stdout, v)
	case len(args) == 1 && args[0] == "--json":
		json.NewEncoder(stdout).Encode(v)
	default:
		fmt.Fprintln(stderr, "fount version takes no arguments but --json")
		return exitUsage
	}
	return exitOK
}
