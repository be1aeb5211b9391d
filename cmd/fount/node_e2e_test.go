package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// nodeFixtures holds components that use Node's globals and built-ins,
// each with the event it emits under Node 20 (<name>.want.json).
const nodeFixtures = "testdata/node"

// TestNodeGlobals: a component using the web globals Node has (URL,
// URLSearchParams, TextEncoder and TextDecoder, atob and btoa,
// structuredClone, AbortController, EventTarget, Headers, Request,
// Response, setInterval, setImmediate, queueMicrotask, process.nextTick)
// emits in fount what it emits in Node 20.
func TestNodeGlobals(t *testing.T) {
	t.Parallel()
	checkAsInNode(t, "globals")
}

// checkAsInNode deploys testdata/node/<name>.mjs on a server, runs it
// once and compares what it emits with <name>.want.json; with node
// installed, it checks that Node emits that too.
func checkAsInNode(t *testing.T, name string) {
	t.Helper()
	fixtureAsInNode(t, startEngineServer(t), nodeFixtures, name, map[string]any{}, false)
}

// fixtureAsInNode deploys <dir>/<name>.mjs on s, runs it once on event
// and compares what it emits with <name>.want.json; with node installed,
// it checks that Node emits that too, with the test corpus installed
// when withCorpus.
func fixtureAsInNode(t *testing.T, s *testServer, dir, name string, event map[string]any, withCorpus bool) {
	t.Helper()
	code, err := os.ReadFile(filepath.Join(dir, name+".mjs"))
	if err != nil {
		t.Fatal(err)
	}
	wantRaw, err := os.ReadFile(filepath.Join(dir, name+".want.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(string(wantRaw))
	src := s.deploySource(string(code), nil)
	s.run(src["id"].(string), event)
	if got := canonicalJSON(t, s.emittedOrFailed(src["id"].(string))); got != want {
		t.Errorf("fount emitted\n%s\nNode 20 emits\n%s", got, want)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Log("node is not installed: the check that Node 20 emits " + name + ".want.json is skipped (apt-get install nodejs)")
		return
	}
	work := t.TempDir()
	if withCorpus {
		installCorpus(t, work)
	}
	if err := os.WriteFile(filepath.Join(work, "component.mjs"), code, 0o644); err != nil {
		t.Fatal(err)
	}
	ev, _ := json.Marshal(event)
	if got := nodeEmits(t, node, work, string(ev)); got != want {
		t.Errorf("Node emits\n%s\nnot %s.want.json:\n%s", got, name, want)
	}
}

// TestNodeBuiltins: a component importing the Node built-in modules fount
// provides (events, util, buffer, path, querystring, url, string_decoder,
// assert, timers/promises, os), bare and node:-prefixed, and using the
// Buffer global, emits in fount what it emits in Node 20.
func TestNodeBuiltins(t *testing.T) {
	t.Parallel()
	checkAsInNode(t, "builtins")
}

// TestNodeCiphers: node:crypto's ciphers and key derivation, done by the
// host, give Node 20's bytes and errors.
func TestNodeCiphers(t *testing.T) {
	t.Parallel()
	checkAsInNode(t, "ciphers")
}

// TestNodeZlib: node:zlib's formats, forms and errors are Node 20's.
func TestNodeZlib(t *testing.T) {
	t.Parallel()
	checkAsInNode(t, "zlib")
}

// TestNodeBuiltinsRest: the rest of Node's built-in modules load; what
// fount gives of them (vm's runInThisContext, module's list,
// diagnostics_channel, perf_hooks' marks, AsyncLocalStorage in
// synchronous code, stream/consumers, readline over a stream, ...) is
// what Node 20 gives.
func TestNodeBuiltinsRest(t *testing.T) {
	t.Parallel()
	checkAsInNode(t, "builtins-rest")
}

// TestUnavailableBuiltinsSayWhy: what fount cannot give of Node's modules
// (processes, threads, UDP, new contexts, the inspector, and any name of
// Node's that fount lacks, imported by name) throws, with code ENOSYS and
// the reason, when it is called, not when it is loaded; the default
// object lacks what fount lacks, as feature tests expect.
func TestUnavailableBuiltinsSayWhy(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	src := s.deploySource(`import cp from "child_process"; import { Worker } from "worker_threads"; import dgram from "dgram";
	import vm from "vm"; import inspector from "inspector"; import cluster from "cluster";
	import crypto, { setEngine } from "crypto"; import { resolveObjectURL } from "node:buffer";
	export default { name: "refused", version: "1", run() {
		const out = [];
		for (const f of [() => cp.spawn("ls"), () => cp.execSync("ls"), () => new Worker("x.js"), () => dgram.createSocket("udp4"),
			() => vm.measureMemory(), () => inspector.open(), () => cluster.fork(), () => setEngine("x"), () => resolveObjectURL("blob:x")]) {
			try { f(); out.push("ran"); } catch (e) { out.push(e.code + " " + e.message); }
		}
		out.push("setEngine on the default object: " + typeof crypto.setEngine);
		this.$emit(out);
	} }`, nil)
	s.run(src["id"].(string), map[string]any{})
	got := fmt.Sprint(s.emittedOrFailed(src["id"].(string)))
	for _, want := range []string{"ENOSYS child_process.spawn: fount components cannot run processes", "ENOSYS child_process.execSync",
		"ENOSYS worker_threads.Worker: fount components run on one thread", "ENOSYS dgram.createSocket: fount components cannot use UDP",
		"ENOSYS vm.measureMemory: fount components have one realm", "ENOSYS inspector.open", "ENOSYS cluster.fork",
		"ENOSYS crypto.setEngine: not available in fount", "ENOSYS buffer.resolveObjectURL: not available in fount",
		"setEngine on the default object: undefined"} {
		if !strings.Contains(got, want) {
			t.Errorf("the calls gave %s, lacking %q", got, want)
		}
	}
}

// TestNodeFS: fs, fs/promises and fs's callbacks on /tmp behave in fount
// (a /tmp in memory) as in Node 20 (a real one).
func TestNodeFS(t *testing.T) {
	t.Parallel()
	checkAsInNode(t, "fs")
}

// TestTmpIsPerCall: fount's /tmp is emptied at every call, and nothing
// outside it can be read or written.
func TestTmpIsPerCall(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	src := s.deploySource(`import fs from "fs";
	export default { name: "tmp", version: "1", run(e) {
		const seen = fs.existsSync("/tmp/mark");
		fs.writeFileSync("/tmp/mark", "x");
		const denied = [];
		for (const p of ["/etc/passwd", "/tmp/../etc/x", "relative-is-tmp"]) {
			try { fs.writeFileSync(p, "y"); denied.push(p + " ok " + fs.existsSync("/tmp/" + p)); } catch (err) { denied.push(p + " " + err.code); }
		}
		let big = null;
		try { fs.writeFileSync("/tmp/big", Buffer.alloc(17 << 20)); } catch (err) { big = err.code; }
		this.$emit({ n: e.n, seen, denied, big });
	} }`, nil)
	id := src["id"].(string)
	s.run(id, map[string]any{"n": 1})
	s.run(id, map[string]any{"n": 2})
	for _, ev := range s.events(id, "", 2) {
		got := canonicalJSON(t, ev["event"])
		if !strings.Contains(got, `"seen":false`) || !strings.Contains(got, `"/etc/passwd EACCES"`) || !strings.Contains(got, `"/tmp/../etc/x EACCES"`) ||
			!strings.Contains(got, `"relative-is-tmp ok true"`) || !strings.Contains(got, `"big":"ENOSPC"`) {
			t.Errorf("event %s", got)
		}
	}
}

// TestNodeCrypto: node:crypto's hashes, HMACs and random values, and the
// crypto global, computed by the host, are what Node 20 gives.
func TestNodeCrypto(t *testing.T) {
	t.Parallel()
	checkAsInNode(t, "crypto")
}

// TestNodeProcess: process answers what libraries read of it at load as
// Node 20's does (versions, title, the tag axios checks), and punycode is
// there.
func TestNodeProcess(t *testing.T) {
	t.Parallel()
	checkAsInNode(t, "process")
}

// TestNodeNetworkErrors: a request that cannot connect fails as in Node
// 20: fetch with TypeError "fetch failed" whose cause carries the code,
// node:http with the code, errno and syscall.
func TestNodeNetworkErrors(t *testing.T) {
	t.Parallel()
	checkAsInNode(t, "network")
}

// TestAlertProps: an alert prop (a note for whoever configures the
// component) loads, is described with its note, takes no value, and
// gives the component none.
func TestAlertProps(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	code := `export default { name: "alerted", version: "1", props: {
		info: { type: "alert", alertType: "warning", content: "Create the **webhook** in the vendor's console first." },
		n: { type: "integer", default: 1 } },
		run() { this.$emit({ info: this.info === undefined ? "undefined" : this.info }) } }`
	st, body := s.do("POST", "/v1/components", map[string]any{"component_code": code})
	if st != 200 {
		t.Fatalf("save: %d %v", st, body)
	}
	var alert map[string]any
	for _, p := range data(body)["configurable_props"].([]any) {
		if p := p.(map[string]any); p["name"] == "info" {
			alert = p
		}
	}
	if alert["type"] != "alert" || alert["alertType"] != "warning" || !strings.Contains(fmt.Sprint(alert["content"]), "webhook") {
		t.Errorf("the alert prop is described as %v", alert)
	}
	if st, body := s.do("POST", "/v1/sources", map[string]any{"component_code": code, "configured_props": map[string]any{"info": "x"}}); st != 400 || !strings.Contains(fmt.Sprint(body), "alert") {
		t.Errorf("a value for the alert: %d %v, want 400 saying it is an alert", st, body)
	}
	src := s.deploySource(code, nil)
	s.run(src["id"].(string), map[string]any{})
	if got := s.events(src["id"].(string), "", 1)[0]["event"].(map[string]any)["info"]; got != "undefined" {
		t.Errorf("this.info = %v, want undefined", got)
	}
}

// TestNodeCryptoSign: keys and signatures of node:crypto (createSign,
// createVerify, sign, verify, createPrivateKey, createPublicKey,
// createSecretKey) give what Node 20 gives, for RSA (PKCS #1 v1.5 and
// PSS), ECDSA P-256 (DER and IEEE P1363) and Ed25519 keys.
func TestNodeCryptoSign(t *testing.T) {
	t.Parallel()
	checkAsInNode(t, "crypto-sign")
}

// TestNodeFSStreams: fs's file descriptors (openSync, readSync,
// writeSync, fstatSync, closeSync) and streams (createReadStream,
// createWriteStream, ReadStream, WriteStream) on /tmp behave as in Node
// 20.
func TestNodeFSStreams(t *testing.T) {
	t.Parallel()
	checkAsInNode(t, "fs-streams")
}

// TestNodeKeygen: generateKeyPair(Sync), diffieHellman and createECDH
// give what Node 20 gives: key types and details, RFC 7748's X25519
// vectors, P-256 ECDH from a fixed private key, and Node's error codes.
func TestNodeKeygen(t *testing.T) {
	t.Parallel()
	checkAsInNode(t, "keygen")
}

// TestNodeStackAPI: Error.captureStackTrace and Error.prepareStackTrace
// give call sites as V8's do (depd reads its caller's file and line from
// them when express loads).
func TestNodeStackAPI(t *testing.T) {
	t.Parallel()
	checkAsInNode(t, "stacks")
}

// TestNodeIntl: the Intl global (en-US and UTC) formats dates, numbers,
// plurals, relative times and lists, and collates, as Node 20 does.
func TestNodeIntl(t *testing.T) {
	t.Parallel()
	checkAsInNode(t, "intl")
}

// TestRequireGivesNodesModuleObjects: require() of a built-in gives, as in
// Node, the module's own object, which code may patch (graceful-fs
// replaces fs.close) and which holds every export, and the same object
// to every caller; a TLSSocket made over a JavaScript stream has the
// wrap http2-wrapper takes the constructor of at load.
func TestRequireGivesNodesModuleObjects(t *testing.T) {
	t.Parallel()
	s := startEngineServer(t)
	src := s.deploySource(`const fs = require("fs");
const orig = fs.close;
fs.close = function patched() {};
const seen = require("fs").close.name;
fs.close = orig;
const tls = require("tls"), stream = require("stream");
const wrap = new tls.TLSSocket(new stream.PassThrough())._handle._parentWrap.constructor;
module.exports = { name: "requires", version: "1", run() {
  this.$emit([seen, typeof wrap, typeof require("crypto").createHash, typeof require("events"), typeof require("zlib").gunzipSync]);
} };`, nil)
	s.run(src["id"].(string), map[string]any{})
	if got := fmt.Sprint(s.emittedOrFailed(src["id"].(string))); got != "[patched function function function function]" {
		t.Errorf("the component emitted %s", got)
	}
}

// TestNodeES2023: the ES2022 and ES2023 methods Node 20 has and this
// QuickJS lacks (Object.hasOwn, at, findLast, the copying array methods)
// give what Node's do.
func TestNodeES2023(t *testing.T) {
	t.Parallel()
	checkAsInNode(t, "es2023")
}
