package bundle

import (
	"context"
	"crypto/sha1"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"net/http"
	"net/url"
	"strings"
)

// Getter fetches a URL. The caller wires it to fount's egress policy,
// so that every request a registry's answers point at is checked.
type Getter interface {
	Get(ctx context.Context, url string, header http.Header) (status int, body []byte, err error)
}

// Registry is an npm registry: packuments at <URL>/<name>, tarballs
// wherever a packument says.
type Registry struct {
	URL string // the registry's base URL, e.g. from npm's own configuration
	Get Getter
}

// packument is the part of an npm package document fount reads. The
// abbreviated form (application/vnd.npm.install-v1+json) has all of it.
type packument struct {
	Name     string                     `json:"name"`
	DistTags map[string]string          `json:"dist-tags"`
	Versions map[string]packageManifest `json:"versions"`
}

type packageManifest struct {
	Name                 string  `json:"name"`
	Version              string  `json:"version"`
	Dependencies         depList `json:"dependencies"`
	PeerDependencies     depList `json:"peerDependencies"`
	OptionalDependencies depList `json:"optionalDependencies"`
	Engines              engines `json:"engines"`
	// Deprecated is the deprecation message; old manifests hold a bool.
	Deprecated any `json:"deprecated"`
	Dist       struct {
		Tarball   string `json:"tarball"`
		Integrity string `json:"integrity"`
		Shasum    string `json:"shasum"`
	} `json:"dist"`
}

// depList is a manifest's dependencies, by name: the range each needs.
// Old versions in the registry hold other shapes, which one version's
// manifest must not make the whole package unreadable for: a list of
// names (any version, as npm reads it), or values that are not strings
// (left out).
type depList map[string]string

func (d *depList) UnmarshalJSON(b []byte) error {
	var raw any
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := depList{}
	switch v := raw.(type) {
	case map[string]any:
		for name, r := range v {
			if s, ok := r.(string); ok {
				out[name] = s
			}
		}
	case []any:
		for _, name := range v {
			if s, ok := name.(string); ok {
				out[s] = "*"
			}
		}
	}
	*d = out
	return nil
}

// engines is what a manifest's engines field says of Node: the range of
// versions it runs on, "" when it says nothing readable.
type engines struct{ Node string }

func (e *engines) UnmarshalJSON(b []byte) error {
	var raw any
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if m, ok := raw.(map[string]any); ok {
		e.Node, _ = m["node"].(string)
	}
	return nil
}

// packumentURL escapes a scoped name's slash, as npm clients do.
func (r *Registry) packumentURL(name string) string {
	return strings.TrimRight(r.URL, "/") + "/" + strings.Replace(name, "/", "%2f", 1)
}

func (r *Registry) packument(ctx context.Context, name string) (*packument, error) {
	h := http.Header{}
	h.Set("Accept", "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8")
	status, body, err := r.Get.Get(ctx, r.packumentURL(name), h)
	if err != nil {
		return nil, &PackageError{Package: name, Reason: fmt.Sprintf("the npm registry is unreachable: %v", err)}
	}
	switch {
	case status == http.StatusNotFound:
		return nil, &PackageError{Package: name, Reason: "no such package in the npm registry"}
	case status != http.StatusOK:
		return nil, &PackageError{Package: name, Reason: fmt.Sprintf("the npm registry answered %d", status)}
	}
	var p packument
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, &PackageError{Package: name, Reason: fmt.Sprintf("the npm registry's package document does not parse: %v", err)}
	}
	return &p, nil
}

// tarball downloads and verifies the tarball of m. Only the tarball's
// own integrity hash is trusted: sha512 (or, for packages published
// before npm had it, the sha1 shasum).
func (r *Registry) tarball(ctx context.Context, m packageManifest) ([]byte, error) {
	id := m.Name + "@" + m.Version
	want, err := integrityOf(m)
	if err != nil {
		return nil, &PackageError{Package: id, Reason: err.Error()}
	}
	u, err := url.Parse(m.Dist.Tarball)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, &PackageError{Package: id, Reason: fmt.Sprintf("the tarball URL %q is not http(s)", m.Dist.Tarball)}
	}
	status, body, err := r.Get.Get(ctx, u.String(), nil)
	if err != nil {
		return nil, &PackageError{Package: id, Reason: fmt.Sprintf("the npm registry is unreachable: %v", err)}
	}
	if status != http.StatusOK {
		return nil, &PackageError{Package: id, Reason: fmt.Sprintf("the tarball download answered %d", status)}
	}
	if err := want.verify(body); err != nil {
		return nil, &PackageError{Package: id, Reason: err.Error()}
	}
	return body, nil
}

// integrity is one subresource-integrity hash.
type integrity struct {
	algo   string // "sha512" or "sha1"
	digest []byte
}

// integrityOf picks the strongest hash the registry gives for m.
func integrityOf(m packageManifest) (integrity, error) {
	for _, field := range strings.Fields(m.Dist.Integrity) {
		algo, b64, ok := strings.Cut(field, "-")
		if !ok || algo != "sha512" {
			continue
		}
		d, err := base64.StdEncoding.DecodeString(b64)
		if err != nil || len(d) != sha512.Size {
			return integrity{}, fmt.Errorf("its integrity %q is malformed", field)
		}
		return integrity{algo: "sha512", digest: d}, nil
	}
	if d, err := hex.DecodeString(m.Dist.Shasum); err == nil && len(d) == sha1.Size {
		return integrity{algo: "sha1", digest: d}, nil
	}
	return integrity{}, errors.New("the registry gives no integrity hash for its tarball")
}

// parseIntegrity reads the form String writes, as stored in a lock.
func parseIntegrity(s string) (integrity, error) {
	algo, b64, _ := strings.Cut(s, "-")
	d, err := base64.StdEncoding.DecodeString(b64)
	switch {
	case err != nil:
		return integrity{}, fmt.Errorf("integrity %q: %w", s, err)
	case algo == "sha512" && len(d) == sha512.Size, algo == "sha1" && len(d) == sha1.Size:
		return integrity{algo: algo, digest: d}, nil
	}
	return integrity{}, fmt.Errorf("integrity %q: not a sha512 or sha1 hash", s)
}

func (i integrity) String() string {
	return i.algo + "-" + base64.StdEncoding.EncodeToString(i.digest)
}

func (i integrity) verify(body []byte) error {
	var h hash.Hash = sha512.New()
	if i.algo == "sha1" {
		h = sha1.New()
	}
	h.Write(body)
	if subtle.ConstantTimeCompare(h.Sum(nil), i.digest) != 1 {
		return fmt.Errorf("integrity mismatch: the tarball's %s is not the one the registry published", i.algo)
	}
	return nil
}

// PackageError is a failure to resolve or fetch one package, or an
// import fount cannot satisfy; Package names it (with its version once
// known).
type PackageError struct {
	Package string
	Reason  string
	Builtin bool // Package is a Node built-in module fount does not provide
}

func (e *PackageError) Error() string {
	if e.Builtin {
		return fmt.Sprintf("module %q is a Node built-in module that fount does not provide", e.Package)
	}
	if e.Package == "" {
		return e.Reason
	}
	return fmt.Sprintf("npm package %q: %s", e.Package, e.Reason)
}

// BuildError is code esbuild could not bundle for a reason of its own
// (a syntax error, say), with esbuild's messages.
type BuildError struct{ Messages string }

func (e *BuildError) Error() string { return e.Messages }
