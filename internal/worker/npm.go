package worker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/bundle"
	"github.com/fount-dev/fount/internal/confine"
	"github.com/fount-dev/fount/internal/egress"
	"github.com/fount-dev/fount/internal/engine"
	"github.com/fount-dev/fount/internal/model"
)

// npm packages are bundled with esbuild, whose parser recurses without
// bound (see analyzer.go), over code and packages from tenants: so the
// server bundles in a worker process, like the analyze worker, with the
// same stack and memory limits and the npm deadline.

const (
	bundleWorker = "bundle"
	// maxNpmDownload caps one packument or tarball.
	maxNpmDownload = 64 << 20
	// bundleWorkerMaxReply is the largest bundle the server accepts from
	// the worker, past any --max-bundle-size.
	bundleWorkerMaxReply = 128 << 20
)

// bundleRequest and bundleReply are the bundle worker's stdin and stdout.
type bundleRequest struct {
	Code         string          `json:"code"`
	Lock         []bundle.Locked `json:"lock,omitempty"`
	Registry     string          `json:"registry,omitempty"`
	Cache        string          `json:"cache"`
	Staging      string          `json:"staging"`
	MaxBundle    int             `json:"max_bundle"`
	Timeout      time.Duration   `json:"timeout"`
	AllowPrivate bool            `json:"allow_private"`
}

type bundleReply struct {
	Code     string          `json:"code,omitempty"`
	Map      string          `json:"map,omitempty"`
	Packages []bundle.Locked `json:"packages,omitempty"`
	// Downloaded is the bytes of tarballs fetched, whatever the outcome.
	Downloaded int64 `json:"downloaded,omitempty"`
	// Failure is the code's or a package's problem: "package", "build"
	// or "timeout", with Message for the component's author.
	Failure string `json:"failure,omitempty"`
	Message string `json:"message,omitempty"`
}

// NPMConfig is how a server resolves and bundles npm packages.
type NPMConfig struct {
	// Registry is the npm registry; "" asks npm on this machine which it
	// uses, when the first package is needed.
	Registry     string
	Timeout      time.Duration // of one deploy's resolution and bundling
	MaxBundle    int           // bytes of bundled code at most
	CacheDir     string        // where packages are kept; only the bundle worker reads it
	CacheBytes   int64         // the cache's size, past which the least used go
	AllowPrivate bool          // tenants' packages may come from private addresses
}

// Packages is the engine's Packages: bundle.Packages in a worker
// process of the executable exe, against the npm registry found when it
// is first needed. It owns the package cache: each deploy's worker
// unpacks what it downloads into a staging folder, moved into the cache
// only once the bundle is accepted.
type Packages struct {
	exe   string
	cfg   NPMConfig
	cache bundle.Cache
	log   *slog.Logger

	once     sync.Once
	registry string

	mu      sync.Mutex // serializes commits to the cache
	running int        // workers reading the cache now: none may be evicted meanwhile
}

// NewPackages returns the Packages of a server whose executable is exe.
func NewPackages(exe string, cfg NPMConfig, log *slog.Logger) *Packages {
	return &Packages{exe: exe, cfg: cfg, cache: bundle.Cache{Dir: cfg.CacheDir, MaxBytes: cfg.CacheBytes}, log: log}
}

// Bundle implements engine.Packages.
func (n *Packages) Bundle(ctx context.Context, code string, lock []model.Package) (engine.Bundled, error) {
	n.once.Do(func() {
		n.registry = n.cfg.Registry
		if n.registry == "" {
			n.registry = npmConfiguredRegistry(n.cfg.Timeout)
		}
		_ = n.cache.Reset() // what a server stopped mid-deploy staged
	})
	staging, err := n.cache.Stage()
	if err != nil {
		return engine.Bundled{}, err
	}
	defer n.cache.Discard(staging)
	req := bundleRequest{Code: code, Registry: n.registry, Cache: n.cache.Dir, Staging: staging,
		MaxBundle: n.cfg.MaxBundle, Timeout: n.cfg.Timeout, AllowPrivate: n.cfg.AllowPrivate}
	for _, l := range lock {
		req.Lock = append(req.Lock, bundle.Locked(l))
	}
	n.mu.Lock()
	n.running++
	n.mu.Unlock()
	reply, err := n.run(ctx, req)
	n.mu.Lock()
	n.running--
	if err == nil && reply.Failure == "" {
		// Caching is for the next deploys: this one has its bundle
		// whatever becomes of its packages.
		if _, cerr := n.cache.Commit(staging, n.running == 0); cerr != nil {
			n.log.Error("npm cache: keep a deploy's packages", "err", cerr)
		}
	}
	n.mu.Unlock()
	if err != nil {
		return engine.Bundled{Downloaded: reply.Downloaded}, err
	}
	switch reply.Failure {
	case "":
	case "build":
		// The sandbox reports code it cannot read, as for any code.
		return engine.Bundled{Downloaded: reply.Downloaded}, nil
	default:
		return engine.Bundled{Downloaded: reply.Downloaded}, &engine.CodeError{Name: "ImportError", Message: reply.Message}
	}
	out := make([]model.Package, len(reply.Packages))
	for i, l := range reply.Packages {
		out[i] = model.Package(l)
	}
	return engine.Bundled{Code: reply.Code, Map: reply.Map, Packages: out, Downloaded: reply.Downloaded}, nil
}

func (n *Packages) run(ctx context.Context, req bundleRequest) (bundleReply, error) {
	raw, err := json.Marshal(req)
	if err != nil {
		return bundleReply{}, err
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = bundle.DefaultTimeout
	}
	var reply bundleReply
	// The worker's own deadline comes first; this one catches a stuck worker.
	if err := os.MkdirAll(req.Cache, 0o755); err != nil { // confinement allows only what exists
		return bundleReply{}, fmt.Errorf("npm cache: %w", err)
	}
	err = runWorkerProcess(ctx, workerJob{exe: n.exe, name: bundleWorker, request: raw, timeout: timeout + 10*time.Second,
		maxReply: bundleWorkerMaxReply, files: bundleWorkerFiles(req.Cache), env: certEnv()}, &reply)
	switch {
	case errors.Is(err, errWorkerDeadline):
		return bundleReply{}, &engine.CodeError{Name: "ImportError", Message: (&bundle.TimeoutError{Limit: timeout}).Error()}
	case errors.Is(err, errWorkerDied):
		return bundleReply{}, &engine.CodeError{Name: "ImportError",
			Message: "the code and its npm packages could not be bundled: they are nested too deeply, or too large, for the bundler"}
	case err != nil:
		return bundleReply{}, err
	}
	return reply, nil
}

// bundleWorkerFiles are what the bundle worker may open: the npm cache,
// and what Go reads to reach a registry (name resolution and the CAs
// that TLS trusts). No folder of these holds a private key.
func bundleWorkerFiles(cache string) []confine.Rule {
	rules := []confine.Rule{{Path: cache, Access: confine.ReadWrite}}
	for _, f := range []string{"/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/host.conf", "/etc/gai.conf",
		"/etc/services", "/etc/protocols", "/etc/ssl/certs", "/etc/ssl/cert.pem", "/etc/ssl/ca-bundle.pem", "/etc/pki/tls/certs",
		"/etc/pki/tls/cacert.pem", "/etc/pki/ca-trust/extracted", "/usr/share/ca-certificates", "/usr/local/share/ca-certificates",
		os.Getenv("SSL_CERT_FILE"), os.Getenv("SSL_CERT_DIR")} {
		if f != "" {
			rules = append(rules, confine.Rule{Path: f, Access: confine.Read})
		}
	}
	return rules
}

// certEnv passes the server's choice of CAs, if it made one, to the
// bundle worker, whose environment is otherwise empty.
func certEnv() []string {
	var env []string
	for _, k := range []string{"SSL_CERT_FILE", "SSL_CERT_DIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// runBundleWorker is the bundle worker's main: one request on stdin, one
// reply on stdout.
func runBundleWorker(stdin io.Reader, stdout io.Writer) int {
	var req bundleRequest
	if !startWorker(stdin, &req) {
		return 2
	}
	p := &bundle.Packages{Cache: req.Cache, Staging: req.Staging, MaxBundle: req.MaxBundle, Timeout: req.Timeout}
	if u, err := url.Parse(req.Registry); req.Registry != "" && err == nil {
		get := &npmGetter{host: u.Host, trusted: egress.New(true, req.Timeout, maxNpmDownload),
			tenant: egress.New(req.AllowPrivate, req.Timeout, maxNpmDownload)}
		p.Registry = &bundle.Registry{URL: req.Registry, Get: get}
	}
	res, err := p.Bundle(context.Background(), req.Code, req.Lock)
	reply := bundleReply{Downloaded: res.Downloaded}
	var (
		pe *bundle.PackageError
		te *bundle.TimeoutError
		be *bundle.BuildError
	)
	switch {
	case errors.As(err, &pe):
		reply.Failure, reply.Message = "package", err.Error()
	case errors.As(err, &te):
		reply.Failure, reply.Message = "timeout", err.Error()
	case errors.As(err, &be):
		reply.Failure, reply.Message = "build", err.Error()
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		return 1
	default:
		reply.Code, reply.Map, reply.Packages = res.Code, res.Map, res.Packages
	}
	if err := json.NewEncoder(stdout).Encode(reply); err != nil {
		return 1
	}
	return 0
}

// npmConfiguredRegistry is the registry npm on this machine uses, as
// `npm config get registry` says (it reads every npmrc, and knows npm's
// default); "" when npm is not installed. npm's environment variable is
// read with the flags.
func npmConfiguredRegistry(timeout time.Duration) string {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "npm", "config", "get", "registry").Output()
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "http://") || strings.HasPrefix(line, "https://") {
			return line
		}
	}
	return ""
}

// npmGetter fetches from the registry the operator chose, wherever it
// is (an internal registry on a private address is common), and from any
// other host a registry's answers name under the tenants' egress policy.
type npmGetter struct {
	host            string
	trusted, tenant *egress.Policy
}

func (g *npmGetter) Get(ctx context.Context, raw string, header http.Header) (int, []byte, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return 0, nil, err
	}
	policy := g.tenant
	if u.Host == g.host {
		policy = g.trusted
	}
	headers := map[string]string{}
	for k := range header {
		headers[k] = header.Get(k)
	}
	res, err := policy.Fetch(ctx, abi.FetchRequest{URL: raw, Method: http.MethodGet, Headers: headers})
	if err != nil {
		// Shown to the tenant: no server addresses, no registry credentials.
		return 0, nil, errors.New(egress.Describe(err))
	}
	return res.Status, []byte(res.Body), nil
}
