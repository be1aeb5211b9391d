package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/egress"
	"github.com/fount-dev/fount/internal/sandbox"
)

// rawSockets is component code over the prelude's socket hooks, without
// node:net: open(port) connects and resolves with the first event the
// host gives the socket (connect or error), holding it open.
const rawSockets = `const net = process[Symbol.for("fount.net")];
const waiting = new Map();
net.listen((events) => { for (const e of events) { const w = waiting.get(e.id); if (w) { waiting.delete(e.id); w(e); } } });
function open(port, host = "127.0.0.1") {
  const r = net.call({ op: "connect", host, port });
  if (r.error) return Promise.resolve({ type: "refused", code: r.error.code });
  net.hold(1);
  return new Promise((resolve) => waiting.set(r.id, resolve));
}
`

// acceptor listens on loopback and reports what each connection's peer
// did: "eof" when it was closed, "timeout" when nothing happened.
func acceptor(t *testing.T) (port int, outcomes chan string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	outcomes = make(chan string, 64)
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				c.SetReadDeadline(time.Now().Add(30 * time.Second))
				_, err := io.Copy(io.Discard, c)
				if err != nil {
					outcomes <- "timeout"
					return
				}
				outcomes <- "eof"
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, outcomes
}

// TestSocketsEndWithTheCall: a socket the component leaves open is closed
// by the host when the call ends, so the peer sees it end.
func TestSocketsEndWithTheCall(t *testing.T) {
	t.Parallel()
	port, outcomes := acceptor(t)
	h := newTestHost(t)
	s := deploy(t, h, rawSockets+`export default { name: "s", version: "1", async run(e) {
		const ev = await open(e.port);
		net.hold(-1);
		return ev.type;
	} }`, `{}`)
	out, err := s.Run(context.Background(), []byte(fmt.Sprintf(`{"port":%d}`, port)), sandbox.Capabilities{Egress: egress.New(true, 5*time.Second, 1<<20)})
	if err != nil || string(out.Value) != `"connect"` {
		t.Fatalf("run: %v %v", err, out)
	}
	select {
	case got := <-outcomes:
		if got != "eof" {
			t.Fatalf("the peer saw %s, want the socket closed", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the socket left open by the call was not closed")
	}
}

// TestSocketsArePolicedAndBounded: a private address is refused unless
// private egress is allowed; an egress that is not also a Sockets gives
// no sockets; a call may hold abi.MaxSocketsOpen sockets at once.
func TestSocketsArePolicedAndBounded(t *testing.T) {
	t.Parallel()
	port, _ := acceptor(t)
	h := newTestHost(t)
	s := deploy(t, h, rawSockets+`export default { name: "s", version: "1", async run(e) {
		const out = [];
		for (let i = 0; i < e.n; i++) { const ev = await open(e.port); out.push(ev.type === "error" ? ev.error.code : ev.type + (ev.code ? " " + ev.code : "")); }
		return out;
	} }`, `{}`)
	event := []byte(fmt.Sprintf(`{"port":%d,"n":1}`, port))
	out, err := s.Run(context.Background(), event, sandbox.Capabilities{Egress: egress.New(false, 5*time.Second, 1<<20)})
	if err != nil || string(out.Value) != `["EACCES"]` {
		t.Errorf("loopback without private egress: %v %v", err, out)
	}
	fetchOnly := sandbox.EgressFunc(egress.New(true, time.Second, 1).Fetch)
	_, err = s.Run(context.Background(), event, sandbox.Capabilities{Egress: fetchOnly})
	var se *sandbox.ScriptError
	if !errors.As(err, &se) || !strings.Contains(se.Message, "not allowed for this source") {
		t.Errorf("an egress without sockets: %v", err)
	}
	out, err = s.Run(context.Background(), []byte(fmt.Sprintf(`{"port":%d,"n":17}`, port)), sandbox.Capabilities{Egress: egress.New(true, 5*time.Second, 1<<20)})
	if err != nil || !strings.HasSuffix(string(out.Value), `"connect","refused EMFILE"]`) || strings.Count(string(out.Value), "connect") != 16 {
		t.Errorf("17 sockets at once: %v %s", err, out.Value)
	}
}

// TestSocketOfAnEarlierCallIsGone: the host's socket ids are the call's;
// an id from an earlier call names nothing in the next.
func TestSocketOfAnEarlierCallIsGone(t *testing.T) {
	t.Parallel()
	port, _ := acceptor(t)
	h := newTestHost(t)
	s := deploy(t, h, rawSockets+`let kept = 0;
	export default { name: "s", version: "1", async run(e) {
		if (kept) return net.call({ op: "write", id: kept, data: "aGk=" }).error.code;
		await open(e.port);
		kept = 1;
		net.hold(-1);
		return "opened";
	} }`, `{}`)
	caps := sandbox.Capabilities{Egress: egress.New(true, 5*time.Second, 1<<20)}
	event := []byte(fmt.Sprintf(`{"port":%d}`, port))
	for _, want := range []string{`"opened"`, `"EBADF"`} {
		out, err := s.Run(context.Background(), event, caps)
		if err != nil || string(out.Value) != want {
			t.Fatalf("run: %v %v, want %s", err, out, want)
		}
	}
}

// TestSocketWaitEndsAtTheDeadline: a call waiting on a socket that never
// speaks ends at its deadline, as one waiting on a timer does.
func TestSocketWaitEndsAtTheDeadline(t *testing.T) {
	t.Parallel()
	port, _ := acceptor(t)
	h := newTestHost(t)
	s := deploy(t, h, rawSockets+`export default { name: "s", version: "1", async run(e) {
		await open(e.port);
		await new Promise(() => {});
	} }`, `{}`)
	start := time.Now()
	_, err := s.Invoke(context.Background(), sandbox.Request{Op: "run", Event: []byte(fmt.Sprintf(`{"port":%d}`, port)), Limits: sandbox.Limits{Timeout: 500 * time.Millisecond}},
		sandbox.Capabilities{Egress: egress.New(true, 5*time.Second, 1<<20)})
	if !errors.Is(err, sandbox.ErrTimeout) {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("the call took %v", d)
	}
}
