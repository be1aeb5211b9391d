// Package npmtest is an npm registry for tests: it serves packuments and
// gzipped tarballs, made by the test, on loopback, so that no test of
// package resolution needs the internet.
package npmtest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Registry is a running test registry.
type Registry struct {
	srv *httptest.Server

	mu       sync.Mutex
	packages map[string]map[string]*version // name -> version -> tarball
	latest   map[string]string

	// Requests counts every request served, to tell a warm cache from a
	// cold one.
	Requests atomic.Int64
}

type version struct {
	manifest map[string]any
	tarball  []byte
	served   []byte // what the tarball URL answers; differs when tampered
}

// New starts a registry that stops when t ends.
func New(t testing.TB) *Registry {
	r := &Registry{packages: map[string]map[string]*version{}, latest: map[string]string{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

// URL is the registry's base URL.
func (r *Registry) URL() string { return r.srv.URL + "/" }

// Package is one version to publish.
type Package struct {
	Name, Version string
	Files         map[string]string // path in the package -> contents; package.json is made when absent
	Dependencies  map[string]string
	Main          string // package.json "main"; default index.js
	Engines       map[string]string
	Deprecated    string // the registry's deprecation message, if any
}

// Publish adds p; the last version published becomes "latest" unless a
// higher one was published before.
func (r *Registry) Publish(p Package) {
	files := map[string]string{}
	for k, v := range p.Files {
		files[k] = v
	}
	if _, ok := files["package.json"]; !ok {
		pj := map[string]any{"name": p.Name, "version": p.Version, "main": p.Main}
		if p.Main == "" {
			pj["main"] = "index.js"
		}
		if len(p.Dependencies) > 0 {
			pj["dependencies"] = p.Dependencies
		}
		b, _ := json.Marshal(pj)
		files["package.json"] = string(b)
	}
	tgz := tarball(files)
	sum := sha512.Sum512(tgz)
	sha := sha1.Sum(tgz)
	m := map[string]any{
		"name": p.Name, "version": p.Version, "dependencies": p.Dependencies, "engines": p.Engines,
		"dist": map[string]any{
			"tarball":   r.srv.URL + "/-/" + url.PathEscape(p.Name) + "-" + p.Version + ".tgz",
			"integrity": "sha512-" + base64.StdEncoding.EncodeToString(sum[:]),
			"shasum":    hex.EncodeToString(sha[:]),
		},
	}
	if p.Deprecated != "" {
		m["deprecated"] = p.Deprecated
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.packages[p.Name] == nil {
		r.packages[p.Name] = map[string]*version{}
	}
	r.packages[p.Name][p.Version] = &version{manifest: m, tarball: tgz, served: tgz}
	if cur := r.latest[p.Name]; cur == "" || versionLess(cur, p.Version) {
		r.latest[p.Name] = p.Version
	}
}

// PublishTarball adds a package as npm pack made it: its manifest is the
// tarball's own package.json, and its integrity the tarball's hash, as on
// the public registry.
func (r *Registry) PublishTarball(tgz []byte) error {
	pj, err := packageJSON(tgz)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(pj, &m); err != nil {
		return fmt.Errorf("package.json: %w", err)
	}
	name, _ := m["name"].(string)
	v, _ := m["version"].(string)
	if name == "" || v == "" {
		return errors.New("package.json names no name and version")
	}
	sum := sha512.Sum512(tgz)
	sha := sha1.Sum(tgz)
	m["dist"] = map[string]any{
		"tarball":   r.srv.URL + "/-/" + url.PathEscape(name) + "-" + v + ".tgz",
		"integrity": "sha512-" + base64.StdEncoding.EncodeToString(sum[:]),
		"shasum":    hex.EncodeToString(sha[:]),
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.packages[name] == nil {
		r.packages[name] = map[string]*version{}
	}
	r.packages[name][v] = &version{manifest: m, tarball: tgz, served: tgz}
	if cur := r.latest[name]; cur == "" || versionLess(cur, v) {
		r.latest[name] = v
	}
	return nil
}

// packageJSON reads the package.json at the root of a tarball, under
// whatever single folder the tarball keeps its files in.
func packageJSON(tgz []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			return nil, fmt.Errorf("no package.json in the tarball: %w", err)
		}
		if dir, file := path.Split(h.Name); file == "package.json" && strings.Count(strings.Trim(dir, "/"), "/") == 0 && dir != "" {
			return io.ReadAll(tr)
		}
	}
}

// Tamper makes the tarball of name@v answer bytes other than the ones
// its integrity hash was published for.
func (r *Registry) Tamper(name, v string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ver := r.packages[name][v]
	ver.served = append(bytes.Clone(ver.tarball), 0)
}

func (r *Registry) serve(w http.ResponseWriter, req *http.Request) {
	r.Requests.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	p := req.URL.EscapedPath()
	if rest, ok := strings.CutPrefix(p, "/-/"); ok {
		for name, vs := range r.packages {
			for v, ver := range vs {
				if rest == url.PathEscape(name)+"-"+v+".tgz" {
					w.Header().Set("Content-Type", "application/octet-stream")
					w.Write(ver.served)
					return
				}
			}
		}
		http.NotFound(w, req)
		return
	}
	name, err := url.PathUnescape(strings.TrimPrefix(p, "/"))
	vs, ok := r.packages[name]
	if err != nil || !ok {
		http.Error(w, `{"error":"Not found"}`, http.StatusNotFound)
		return
	}
	versions := map[string]any{}
	for v, ver := range vs {
		versions[v] = ver.manifest
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"name": name, "dist-tags": map[string]string{"latest": r.latest[name]}, "versions": versions,
	})
}

// tarball packs files under package/, as npm pack does.
func tarball(files map[string]string) []byte {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, n := range names {
		body := files[n]
		tw.WriteHeader(&tar.Header{Name: "package/" + n, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// versionLess compares dotted numeric versions, enough for tests.
func versionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if len(pa[i]) != len(pb[i]) {
			return len(pa[i]) < len(pb[i])
		}
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	return len(pa) < len(pb)
}

// Close stops the registry before the test ends, to test an unreachable one.
func (r *Registry) Close() { r.srv.Close() }
