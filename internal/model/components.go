package model

import (
	"github.com/fount-dev/fount/internal/component"
)

// Component is a saved component: code plus what introspection found.
type Component struct {
	ID       string `json:"id"`       // sc_...
	OwnerID  string `json:"owner_id"` // user or org whose namespace holds Key
	Key      string `json:"key,omitempty"`
	Name     string `json:"name"`
	Version  string `json:"version"`
	Code     string `json:"code"`
	CodeHash string `json:"code_hash"` // sha256 of Code, hex
	// Bundle is Code with the npm packages it imports bundled in, what
	// the sandbox runs; "" when Code imports none.
	Bundle string `json:"bundle,omitempty"`
	// Packages is the lock: the package versions in Bundle.
	Packages []Package `json:"packages,omitempty"`
	// SourceMap maps Code to the author's files (from the client, when it
	// bundled them); BundleMap maps Bundle to Code and the packages' files.
	SourceMap    string             `json:"source_map,omitempty"`
	BundleMap    string             `json:"bundle_map,omitempty"`
	ComponentURL string             `json:"component_url,omitempty"`
	Metadata     component.Metadata `json:"metadata"` // what introspection found: type, props, hooks, dedupe...
	CreatedAt    int64              `json:"created_at"`
	UpdatedAt    int64              `json:"updated_at"`
}

// Package is one npm package version bundled into a component.
type Package struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	Integrity string `json:"integrity"` // "sha512-<base64>"
}

// RunCode is the code the sandbox runs: the bundle when there is one.
func (c Component) RunCode() string {
	if c.Bundle != "" {
		return c.Bundle
	}
	return c.Code
}
