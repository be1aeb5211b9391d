// Package natsdev runs NATS servers with JetStream inside the process,
// on loopback: the cluster that tests and `make run-cluster` run fount's
// NATS store on. It is for development only; production runs nats-server
// itself.
package natsdev

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Cluster is a cluster of JetStream servers on loopback.
type Cluster struct {
	Servers []*server.Server
	opts    []*server.Options
}

// Ports fixes the servers' ports (client and cluster, one each per
// server); zero ports are picked free.
type Ports struct {
	Client, Cluster []int
}

// Start starts n servers clustered together (n = 1: a lone server),
// each storing under dir/<name>, and waits until JetStream has a leader.
func Start(dir string, n int, ports Ports) (*Cluster, error) {
	if n < 1 {
		return nil, errors.New("natsdev: no servers")
	}
	client, err := pick(ports.Client, n)
	if err != nil {
		return nil, err
	}
	routesPorts, err := pick(ports.Cluster, n)
	if err != nil {
		return nil, err
	}
	var routes []string
	for _, p := range routesPorts {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", p))
	}
	c := &Cluster{}
	for i := range n {
		name := fmt.Sprintf("n%d", i+1)
		o := &server.Options{
			ServerName: name, Host: "127.0.0.1", Port: client[i],
			JetStream: true, StoreDir: filepath.Join(dir, name),
			MaxPayload: 8 << 20, // fount's events may be 4 MiB (docs/nats.md)
			NoLog:      true, NoSigs: true,
		}
		if n > 1 {
			o.Cluster = server.ClusterOpts{Name: "fount-dev", Host: "127.0.0.1", Port: routesPorts[i]}
			o.Routes = server.RoutesFromStr(strings.Join(routes, ","))
		}
		c.opts = append(c.opts, o)
	}
	for i := range c.opts {
		if err := c.startServer(i); err != nil {
			c.Shutdown()
			return nil, err
		}
	}
	if err := c.WaitReady(60 * time.Second); err != nil {
		c.Shutdown()
		return nil, err
	}
	return c, nil
}

// startServer starts (or starts again) server i with its options.
func (c *Cluster) startServer(i int) error {
	s, err := server.NewServer(c.opts[i])
	if err != nil {
		return fmt.Errorf("natsdev: server %s: %w", c.opts[i].ServerName, err)
	}
	s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		s.Shutdown()
		return fmt.Errorf("natsdev: server %s did not start", c.opts[i].ServerName)
	}
	if i < len(c.Servers) {
		c.Servers[i] = s
	} else {
		c.Servers = append(c.Servers, s)
	}
	return nil
}

// Restart starts server i again, on its ports and store, after Stop.
func (c *Cluster) Restart(i int) error { return c.startServer(i) }

// Stop shuts server i down, as if its machine went away.
func (c *Cluster) Stop(i int) {
	c.Servers[i].Shutdown()
	c.Servers[i].WaitForShutdown()
}

// WaitReady waits until every running server's JetStream is enabled and,
// on a cluster, a meta leader is elected that knows every running server.
func (c *Cluster) WaitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		ready := true
		for _, s := range c.Servers {
			if !s.Running() {
				continue
			}
			if !s.JetStreamEnabled() || (len(c.Servers) > 1 && !s.JetStreamIsClustered()) {
				ready = false
				break
			}
		}
		if ready && (len(c.Servers) == 1 || c.hasLeader()) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("natsdev: JetStream did not become ready")
}

// hasLeader tells whether a meta leader is elected and has heard from
// every running server: until it has, it refuses to place a stream's
// replicas on the servers it has not heard from.
func (c *Cluster) hasLeader() bool {
	running := 0
	for _, s := range c.Servers {
		if s.Running() {
			running++
		}
	}
	return running > 0 && c.PeersOnline() >= running
}

// PeersOnline is how many servers the meta leader takes as online, the
// ones it places a stream's replicas on; 0 without a leader.
func (c *Cluster) PeersOnline() int {
	for _, s := range c.Servers {
		if s.Running() && s.JetStreamIsLeader() {
			return len(s.JetStreamClusterPeers())
		}
	}
	return 0
}

// URLs are the client URLs of every server, comma-separated, as fount's
// --store takes them.
func (c *Cluster) URLs() string {
	var urls []string
	for _, o := range c.opts {
		urls = append(urls, (&url.URL{Scheme: "nats", Host: fmt.Sprintf("127.0.0.1:%d", o.Port)}).String())
	}
	return strings.Join(urls, ",")
}

// Shutdown stops every server.
func (c *Cluster) Shutdown() {
	for _, s := range c.Servers {
		s.Shutdown()
		s.WaitForShutdown()
	}
}

// pick returns n ports: fixed ones, or free ones found by listening.
func pick(fixed []int, n int) ([]int, error) {
	if len(fixed) >= n {
		return fixed[:n], nil
	}
	out := make([]int, n)
	for i := range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("natsdev: find a free port: %w", err)
		}
		out[i] = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	return out, nil
}
