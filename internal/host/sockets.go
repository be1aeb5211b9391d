package host

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/tetratelabs/wazero/api"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/egress"
	"github.com/fount-dev/fount/internal/sandbox"
)

// sockets are one call's TCP connections: opened by the net import
// through the egress policy, each read by one goroutine of the table's,
// and all closed, with their goroutines waited for, when the call ends.
type sockets struct {
	dialer sandbox.Sockets
	ctx    context.Context // ends with the call, or at closeAll
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	byID   map[int]*socket
	queue  []abi.NetEvent
	ready  chan struct{} // holds a token while queue may be non-empty
	nextID int
	dials  int
	bytes  int64 // written and read by all sockets of the call
}

// socket is one connection. Its reader holds at most one unread chunk:
// it reads the next only once a poll has handed the last to the guest.
type socket struct {
	id    int
	host  string
	conn  net.Conn // nil until connected; guarded by sockets.mu
	isTLS bool
	// closed: the guest closed it, or the call ended; no events are
	// queued for it any more.
	closed bool
	taken  chan struct{} // a token when the guest has taken a data chunk
	stop   chan struct{} // closed to stop the current reader
	done   chan struct{} // closed when the current reader has returned
}

func newSockets(ctx context.Context, d sandbox.Sockets) *sockets {
	ctx, cancel := context.WithCancel(ctx)
	return &sockets{dialer: d, ctx: ctx, cancel: cancel, byID: map[int]*socket{}, ready: make(chan struct{}, 1)}
}

// closeAll closes every socket and waits for every goroutine.
func (s *sockets) closeAll() {
	s.cancel()
	s.mu.Lock()
	for _, sk := range s.byID {
		s.closeLocked(sk)
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *sockets) closeLocked(sk *socket) {
	if sk.closed {
		return
	}
	sk.closed = true
	delete(s.byID, sk.id)
	close(sk.stop)
	if sk.conn != nil {
		sk.conn.Close()
	}
	kept := s.queue[:0]
	for _, e := range s.queue {
		if e.ID != sk.id {
			kept = append(kept, e)
		}
	}
	s.queue = kept
}

// push queues an event of sk's, unless sk is closed.
func (s *sockets) push(sk *socket, e abi.NetEvent) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sk.closed {
		return false
	}
	e.ID = sk.id
	s.queue = append(s.queue, e)
	select {
	case s.ready <- struct{}{}:
	default:
	}
	return true
}

// fail queues err as sk's error event and closes its connection; the
// guest then destroys the socket, as Node's does after 'error'.
func (s *sockets) fail(sk *socket, syscall string, err error) {
	s.push(sk, abi.NetEvent{Type: "error", Error: netError(syscall, sk.host, err)})
	s.mu.Lock()
	if sk.conn != nil {
		sk.conn.Close()
	}
	s.mu.Unlock()
}

// count adds n bytes to the call's total and reports whether it is still
// within abi.MaxSocketBytes.
func (s *sockets) count(n int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bytes += int64(n)
	return s.bytes <= abi.MaxSocketBytes
}

var errSocketBytes = fmt.Errorf("the call's sockets moved more than %d MiB", abi.MaxSocketBytes>>20)

func (s *sockets) connect(req abi.NetRequest) abi.NetReply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.byID) >= abi.MaxSocketsOpen || s.dials >= abi.MaxSocketDials {
		return abi.NetReply{Error: &abi.NetError{Code: "EMFILE", Syscall: "connect",
			Message: fmt.Sprintf("a call may have %d sockets open at once and open %d in all", abi.MaxSocketsOpen, abi.MaxSocketDials)}}
	}
	s.dials++
	s.nextID++
	sk := &socket{id: s.nextID, host: req.Host, taken: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	s.byID[sk.id] = sk
	s.wg.Add(1)
	go s.open(sk, req)
	return abi.NetReply{ID: sk.id}
}

// open dials sk, starts TLS when asked, then reads it until it ends.
func (s *sockets) open(sk *socket, req abi.NetRequest) {
	defer s.wg.Done()
	conn, err := s.dialer.Dial(s.ctx, req.Host, req.Port)
	if err != nil {
		close(sk.done)
		s.fail(sk, dialSyscall(err), err)
		return
	}
	s.mu.Lock()
	if sk.closed {
		s.mu.Unlock()
		conn.Close()
		close(sk.done)
		return
	}
	sk.conn = conn
	s.mu.Unlock()
	s.push(sk, abi.NetEvent{Type: "connect", Local: addressOf(conn.LocalAddr()), Remote: addressOf(conn.RemoteAddr())})
	if req.TLS != nil {
		if !s.secure(sk, conn, *req.TLS) {
			close(sk.done)
			return
		}
	}
	s.read(sk)
}

// secure runs the TLS handshake over conn and makes the TLS connection
// sk's; false when it failed (the error event is queued).
func (s *sockets) secure(sk *socket, conn net.Conn, opts abi.TLSOptions) bool {
	cfg, err := tlsConfig(sk.host, opts)
	if err != nil {
		s.fail(sk, "connect", err)
		return false
	}
	tc := tls.Client(conn, cfg)
	s.mu.Lock()
	if sk.closed {
		s.mu.Unlock()
		return false
	}
	sk.conn, sk.isTLS = tc, true
	s.mu.Unlock()
	if err := tc.HandshakeContext(s.ctx); err != nil {
		s.fail(sk, "connect", err)
		return false
	}
	state := tc.ConnectionState()
	info := &abi.TLSConnection{Protocol: tlsVersion(state.Version), ALPN: state.NegotiatedProtocol, Authorized: true}
	if opts.Insecure {
		if err := verifyPeer(cfg, state); err != nil {
			info.Authorized, info.AuthorizationError = false, egress.Code(err)
		}
	}
	s.push(sk, abi.NetEvent{Type: "secure", TLS: info})
	return true
}

// read reads sk's connection, one chunk at a time, until it ends, fails
// or is stopped (closed, or handed over to TLS).
func (s *sockets) read(sk *socket) {
	s.mu.Lock()
	conn, stop, done := sk.conn, sk.stop, sk.done
	s.mu.Unlock()
	defer close(done)
	buf := make([]byte, abi.MaxSocketChunk)
	for {
		n, err := conn.Read(buf)
		if n > 0 {
			if !s.count(n) {
				s.fail(sk, "read", errSocketBytes)
				return
			}
			if !s.push(sk, abi.NetEvent{Type: "data", Data: bytes.Clone(buf[:n])}) {
				return
			}
			select {
			case <-sk.taken:
			case <-stop:
				return
			case <-s.ctx.Done():
				return
			}
		}
		if err == nil {
			continue
		}
		select {
		case <-stop:
			return // closed, or stopped for TLS: not the peer's doing
		default:
		}
		if errors.Is(err, io.EOF) {
			s.push(sk, abi.NetEvent{Type: "end"})
		} else {
			s.fail(sk, "read", err)
		}
		return
	}
}

func (s *sockets) socket(id int) (*socket, *abi.NetError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sk := s.byID[id]
	if sk == nil {
		return nil, &abi.NetError{Code: "EBADF", Message: fmt.Sprintf("socket %d is not open", id)}
	}
	if sk.conn == nil {
		return nil, &abi.NetError{Code: "ENOTCONN", Message: fmt.Sprintf("socket %d is not connected yet", id)}
	}
	return sk, nil
}

func (s *sockets) write(deadline time.Time, req abi.NetRequest) abi.NetReply {
	sk, nerr := s.socket(req.ID)
	if nerr != nil {
		return abi.NetReply{Error: nerr}
	}
	if !s.count(len(req.Data)) {
		s.fail(sk, "write", errSocketBytes)
		return abi.NetReply{Error: netError("write", sk.host, errSocketBytes)}
	}
	s.mu.Lock()
	conn := sk.conn
	s.mu.Unlock()
	conn.SetWriteDeadline(deadline)
	if _, err := conn.Write(req.Data); err != nil {
		return abi.NetReply{Error: netError("write", sk.host, err)}
	}
	return abi.NetReply{}
}

func (s *sockets) end(req abi.NetRequest) abi.NetReply {
	sk, nerr := s.socket(req.ID)
	if nerr != nil {
		return abi.NetReply{Error: nerr}
	}
	s.mu.Lock()
	conn := sk.conn
	s.mu.Unlock()
	if cw, ok := conn.(interface{ CloseWrite() error }); ok {
		if err := cw.CloseWrite(); err != nil {
			return abi.NetReply{Error: netError("shutdown", sk.host, err)}
		}
	}
	return abi.NetReply{}
}

func (s *sockets) close(req abi.NetRequest) abi.NetReply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sk := s.byID[req.ID]; sk != nil {
		s.closeLocked(sk)
	}
	return abi.NetReply{}
}

// upgrade starts TLS on a connected socket: its plain reader is stopped,
// and a goroutine runs the handshake and reads on.
func (s *sockets) upgrade(req abi.NetRequest) abi.NetReply {
	sk, nerr := s.socket(req.ID)
	if nerr != nil {
		return abi.NetReply{Error: nerr}
	}
	s.mu.Lock()
	conn, stop, done, isTLS := sk.conn, sk.stop, sk.done, sk.isTLS
	if !isTLS {
		close(stop)
		sk.stop, sk.done = make(chan struct{}), make(chan struct{})
	}
	s.mu.Unlock()
	if isTLS {
		return abi.NetReply{Error: &abi.NetError{Code: "ERR_TLS_ALREADY_SECURE", Message: "the socket already speaks TLS"}}
	}
	conn.SetReadDeadline(time.Now()) // wakes the reader, which sees stop closed
	<-done
	conn.SetReadDeadline(time.Time{})
	opts := abi.TLSOptions{}
	if req.TLS != nil {
		opts = *req.TLS
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if !s.secure(sk, conn, opts) {
			close(sk.done)
			return
		}
		s.read(sk)
	}()
	return abi.NetReply{}
}

// poll waits up to wait (and no later than deadline) for an event, and
// hands over every event queued so far.
func (s *sockets) poll(ctx context.Context, wait time.Duration) ([]abi.NetEvent, error) {
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			events := s.queue
			s.queue = nil
			for _, e := range events {
				if e.Type == "data" {
					if sk := s.byID[e.ID]; sk != nil {
						select {
						case sk.taken <- struct{}{}:
						default:
						}
					}
				}
			}
			s.mu.Unlock()
			return events, nil
		}
		s.mu.Unlock()
		select {
		case <-s.ready:
		case <-t.C:
			return nil, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func tlsConfig(host string, opts abi.TLSOptions) (*tls.Config, error) {
	name := opts.ServerName
	if name == "" {
		name = strings.Trim(host, "[]")
	}
	cfg := &tls.Config{ServerName: name, NextProtos: opts.ALPN, MinVersion: tls.VersionTLS12, InsecureSkipVerify: opts.Insecure}
	if len(opts.CA) > 0 {
		pool := x509.NewCertPool()
		for _, pem := range opts.CA {
			if !pool.AppendCertsFromPEM([]byte(pem)) {
				return nil, errors.New("tls: a ca certificate is not PEM")
			}
		}
		cfg.RootCAs = pool
	}
	return cfg, nil
}

// verifyPeer checks the peer's certificate as a verifying handshake would
// have, for socket.authorized when the component chose not to require it.
func verifyPeer(cfg *tls.Config, state tls.ConnectionState) error {
	if len(state.PeerCertificates) == 0 {
		return errors.New("no certificate")
	}
	inter := x509.NewCertPool()
	for _, c := range state.PeerCertificates[1:] {
		inter.AddCert(c)
	}
	_, err := state.PeerCertificates[0].Verify(x509.VerifyOptions{DNSName: cfg.ServerName, Roots: cfg.RootCAs, Intermediates: inter})
	return err
}

func tlsVersion(v uint16) string {
	switch v {
	case tls.VersionTLS13:
		return "TLSv1.3"
	case tls.VersionTLS12:
		return "TLSv1.2"
	}
	return "unknown"
}

func addressOf(a net.Addr) *abi.NetAddress {
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return nil
	}
	family := 4
	if ap.Addr().Unmap().Is6() {
		family = 6
	}
	return &abi.NetAddress{Address: ap.Addr().Unmap().String(), Family: family, Port: int(ap.Port())}
}

// dialSyscall is the syscall Node names for a failed connect: DNS's
// getaddrinfo, or connect.
func dialSyscall(err error) string {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return "getaddrinfo"
	}
	return "connect"
}

// netError is err as Node reports it, in words that name no address of
// the server's.
func netError(syscall, host string, err error) *abi.NetError {
	if errors.Is(err, errSocketBytes) {
		return &abi.NetError{Code: "ENOBUFS", Syscall: syscall, Message: err.Error()}
	}
	return &abi.NetError{Code: egress.Code(err), Syscall: syscall, Hostname: host, Message: egress.Describe(err)}
}

// hostNet serves the net import: sockets and DNS for node:net, node:tls
// and node:dns, granted with egress.
func hostNet(ctx context.Context, inv *invocation, mod api.Module, stack []uint64) int32 {
	inv.clearReply()
	dialer, ok := inv.caps.Egress.(sandbox.Sockets)
	if !ok {
		return abi.ErrDenied
	}
	req, code := guestMessage(mod, stack, abi.DecodeNetRequest)
	if code != 0 {
		return code
	}
	if inv.sockets == nil {
		inv.sockets = newSockets(ctx, dialer)
	}
	var reply abi.NetReply
	switch req.Op {
	case "connect":
		reply = inv.sockets.connect(req)
	case "write":
		reply = inv.sockets.write(inv.deadline, req)
	case "end":
		reply = inv.sockets.end(req)
	case "close":
		reply = inv.sockets.close(req)
	case "tls":
		reply = inv.sockets.upgrade(req)
	case "poll":
		wait := time.Duration(req.Wait) * time.Millisecond
		if !inv.deadline.IsZero() && time.Until(inv.deadline) < wait {
			wait = time.Until(inv.deadline)
		}
		events, err := inv.sockets.poll(ctx, wait)
		if err != nil || inv.pastDeadline(ctx) && len(events) == 0 {
			inv.timedOut = true
			return abi.ErrTimeout
		}
		reply.Events = events
	case "lookup":
		reply = lookup(ctx, dialer, req)
	case "resolve":
		records, err := dialer.Resolve(ctx, req.Host, req.RRType)
		if err != nil {
			reply.Error = netError("query"+strings.ToUpper(req.RRType[:1])+strings.ToLower(req.RRType[1:]), req.Host, err)
		}
		reply.Records = records
	}
	return inv.replyJSON(reply)
}

func lookup(ctx context.Context, dialer sandbox.Sockets, req abi.NetRequest) abi.NetReply {
	addrs, err := dialer.Lookup(ctx, req.Host)
	if err != nil {
		return abi.NetReply{Error: netError("getaddrinfo", req.Host, err)}
	}
	var reply abi.NetReply
	for _, a := range addrs {
		family := 4
		if a.Is6() {
			family = 6
		}
		if req.Family == 0 || req.Family == family {
			reply.Addresses = append(reply.Addresses, abi.NetAddress{Address: a.String(), Family: family})
		}
	}
	if len(reply.Addresses) == 0 {
		return abi.NetReply{Error: &abi.NetError{Code: "ENOTFOUND", Syscall: "getaddrinfo", Hostname: req.Host,
			Message: fmt.Sprintf("DNS: %s has no IPv%d address", req.Host, req.Family)}}
	}
	return reply
}
