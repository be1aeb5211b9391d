// Package cluster lets several fount nodes share one NATS JetStream store
// (docs/nats.md). It implements engine.Cluster:
//
//   - Ownership. Sources, workflows and webhooks are hashed into a fixed
//     number of partitions, and each partition is a lease in the store
//     (store.JetStream.Lease) that one node holds at a time, with a TTL
//     that the NATS servers enforce. Every node renews what it holds and
//     takes free partitions up to its share (the partitions divided by
//     the nodes alive, which heartbeat into the store). A node that dies
//     stops renewing; its leases run out and the others take them.
//   - Messages between nodes, over core NATS: a kick for a source with
//     new work, a change of a source or workflow, stored events for event
//     streams, and responses for requests waiting on another node.
//
// A node past its share stops working on a partition at once but lets
// its lease run out rather than give it up, so that its work in flight
// (a batch of runs, a delivery) ends before another node starts on the
// partition; a node that stops cleanly gives its leases up after its work
// stopped. A node owns a partition only while its lease is surely
// unexpired: it
// counts the TTL from before it asked for the lease, and stops a third of
// the TTL early. If two nodes ever did run one source at once (a node
// stalled past its TTL), the store still commits each invocation once:
// a run's commit deletes its invocation with the revision it read.
package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/engine"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
	"github.com/nats-io/nats.go"
)

// Defaults of Config.
const (
	DefaultPartitions = 32
	DefaultLeaseTTL   = 10 * time.Second
)

// countNodesEvery is how many lease rounds pass between two counts of
// the nodes alive (a scan of the store): nodes come and go rarely.
const countNodesEvery = 5

// sweepEvery is how many lease rounds pass between two sweeps of the
// owned work: a kick lost on the way (NATS messages between nodes are at
// most once) delays a source's work by at most this many rounds.
const sweepEvery = 5

// maxEventsMessage bounds the events of one message to other nodes'
// event streams, under NATS's default payload limit.
const maxEventsMessage = 512 << 10

// Config configures a Cluster.
type Config struct {
	Store store.Shared
	// Node is this node's name, unique among the nodes on the store.
	Node string
	// Partitions is how many parts the work is cut into; every node must
	// use the same number. Default DefaultPartitions.
	Partitions int
	// LeaseTTL is how long a partition stays with a node that stopped
	// renewing it: how long a dead node's work waits. Whole seconds, at
	// least 3. Default DefaultLeaseTTL.
	LeaseTTL time.Duration
	Logger   *slog.Logger
}

// Cluster is one node's part in the cluster.
type Cluster struct {
	cfg  Config
	st   store.Shared
	nc   *nats.Conn
	log  *slog.Logger
	h    engine.ClusterHandlers
	subs []*nats.Subscription

	mu     sync.Mutex
	held   map[int]time.Time // partition → when the request that last renewed it was sent
	nodes  int               // nodes alive at the last count; the loop's alone
	rounds int               // lease rounds so far; the loop's alone

	resume chan bool // to the goroutine that resumes work: whether partitions were gained
	stop   chan struct{}
	wg     sync.WaitGroup
}

var _ engine.Cluster = (*Cluster)(nil)

// New returns a Cluster; it does nothing until Start.
func New(cfg Config) (*Cluster, error) {
	if cfg.Store == nil || cfg.Node == "" {
		return nil, errors.New("cluster: Store and Node are required")
	}
	if strings.ContainsAny(cfg.Node, "|") {
		return nil, fmt.Errorf("cluster: node name %q: no '|'", cfg.Node)
	}
	if cfg.Partitions <= 0 {
		cfg.Partitions = DefaultPartitions
	}
	if cfg.LeaseTTL == 0 {
		cfg.LeaseTTL = DefaultLeaseTTL
	}
	if cfg.LeaseTTL < 3*time.Second || cfg.LeaseTTL%time.Second != 0 {
		return nil, fmt.Errorf("cluster: lease TTL %v: whole seconds, at least 3", cfg.LeaseTTL)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Cluster{cfg: cfg, st: cfg.Store, nc: cfg.Store.Conn(), log: cfg.Logger, held: map[int]time.Time{},
		resume: make(chan bool, 1), stop: make(chan struct{})}, nil
}

// Start subscribes to the other nodes' messages, takes this node's first
// share of the partitions, and keeps renewing it until Stop.
func (c *Cluster) Start(h engine.ClusterHandlers) error {
	c.h = h
	for _, sub := range []struct {
		subject string
		handle  func(*nats.Msg)
	}{
		{c.st.BusSubject("kick"), func(m *nats.Msg) {
			if t, ok := targetOf(m); ok {
				h.Kick(t)
			}
		}},
		{c.st.BusSubject("changed"), c.onChanged},
		{c.st.BusSubject("events"), c.onEvents},
		{c.st.BusSubject("reply", c.cfg.Node), c.onReply},
	} {
		s, err := c.nc.Subscribe(sub.subject, sub.handle)
		if err != nil {
			c.unsubscribe()
			return fmt.Errorf("cluster: subscribe: %w", err)
		}
		c.subs = append(c.subs, s)
	}
	if err := c.nc.Flush(); err != nil {
		c.unsubscribe()
		return fmt.Errorf("cluster: subscribe: %w", err)
	}
	if c.round(context.Background()) {
		h.Resume(true)
	}
	c.wg.Add(2)
	go c.loop()
	go c.resumer()
	return nil
}

// leaveTimeout bounds what Stop spends handing back: a node told to
// stop exits soon, store or no store; what it could not hand back
// expires with its lease.
const leaveTimeout = 2 * time.Second

// Stop stops renewing, gives up this node's partitions and leaves, so
// that the other nodes take its work over at once. With the store out of
// reach it hands back nothing: the leases expire within their TTL.
func (c *Cluster) Stop() {
	select {
	case <-c.stop:
		return
	default:
	}
	close(c.stop)
	c.wg.Wait()
	c.unsubscribe()
	if !c.nc.IsConnected() {
		c.log.Warn("the store is out of reach: this node's partitions are taken over once their leases expire", "ttl", c.cfg.LeaseTTL)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), leaveTimeout)
	defer cancel()
	c.mu.Lock()
	held := c.held
	c.held = map[int]time.Time{}
	c.mu.Unlock()
	for p := range held {
		if _, err := c.st.Lease(ctx, leaseName(p), c.cfg.Node, 0); err != nil {
			c.log.Warn("give up a partition", "partition", p, "err", err)
		}
	}
	if err := c.st.Leave(ctx, c.cfg.Node); err != nil {
		c.log.Warn("leave the cluster", "err", err)
	}
}

func (c *Cluster) unsubscribe() {
	for _, s := range c.subs {
		_ = s.Unsubscribe()
	}
	c.subs = nil
}

// loop renews leases every sixth of the TTL.
func (c *Cluster) loop() {
	defer c.wg.Done()
	tick := time.NewTicker(c.cfg.LeaseTTL / 6)
	defer tick.Stop()
	for n := 1; ; n++ {
		select {
		case <-c.stop:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), c.cfg.LeaseTTL/3)
		gained := c.round(ctx)
		cancel()
		if gained || n%sweepEvery == 0 {
			c.askResume(gained)
		}
	}
}

// askResume has the resumer resume work, without waiting for it: the
// loop renews leases on time however long that takes.
func (c *Cluster) askResume(gained bool) {
	for {
		select {
		case c.resume <- gained:
			return
		case pending := <-c.resume: // one waits already: ask once for both
			gained = gained || pending
		}
	}
}

// resumer resumes work when the loop asks, one request at a time.
func (c *Cluster) resumer() {
	defer c.wg.Done()
	for {
		select {
		case <-c.stop:
			return
		case gained := <-c.resume:
			c.h.Resume(gained)
		}
	}
}

// round heartbeats, renews the partitions held, gives up those past this
// node's share and takes free ones up to it. It reports whether this node
// took any.
func (c *Cluster) round(ctx context.Context) bool {
	ttl := c.cfg.LeaseTTL
	if err := c.st.Heartbeat(ctx, c.cfg.Node, ttl); err != nil {
		c.log.Warn("cluster heartbeat", "err", err)
	}
	if c.rounds%countNodesEvery == 0 || c.nodes == 0 {
		nodes, err := c.st.Nodes(ctx)
		switch {
		case err != nil:
			c.log.Warn("count the nodes", "err", err)
		case len(nodes) > 0:
			c.nodes = len(nodes)
		}
		c.nodes = max(c.nodes, 1)
	}
	c.rounds++
	share := (c.cfg.Partitions + c.nodes - 1) / c.nodes
	c.mu.Lock()
	held := make([]int, 0, len(c.held))
	for p := range c.held {
		held = append(held, p)
	}
	c.mu.Unlock()
	kept := 0
	for _, p := range held {
		if kept >= share { // past this node's share: another node takes it once its lease runs out
			c.mu.Lock()
			delete(c.held, p)
			c.mu.Unlock()
			continue
		}
		if c.take(ctx, p) {
			kept++
		}
	}
	gained := false
	start := int(hash(c.cfg.Node) % uint32(c.cfg.Partitions)) // nodes try different partitions first
	for i := 0; i < c.cfg.Partitions && kept < share; i++ {
		p := (start + i) % c.cfg.Partitions
		if c.holds(p) {
			continue
		}
		if c.take(ctx, p) {
			kept++
			gained = true
		}
	}
	return gained
}

// take asks for partition p's lease and records the outcome.
func (c *Cluster) take(ctx context.Context, p int) bool {
	asked := time.Now()
	holder, err := c.st.Lease(ctx, leaseName(p), c.cfg.Node, c.cfg.LeaseTTL)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case err != nil:
		c.log.Warn("renew a partition", "partition", p, "err", err)
		return c.ownsLocked(p) // still ours until its time runs out
	case holder == c.cfg.Node:
		c.held[p] = asked
		return true
	default:
		delete(c.held, p)
		return false
	}
}

func (c *Cluster) holds(p int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.held[p]
	return ok
}

// Owned counts the partitions this node owns now, for metrics: a cluster
// is balanced when each node owns its share.
func (c *Cluster) Owned() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for p := range c.held {
		if c.ownsLocked(p) {
			n++
		}
	}
	return n
}

// Owns reports whether this node holds id's partition, with a third of
// the lease's TTL to spare.
func (c *Cluster) Owns(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ownsLocked(c.partition(id))
}

func (c *Cluster) ownsLocked(p int) bool {
	asked, ok := c.held[p]
	return ok && time.Since(asked) < c.cfg.LeaseTTL*2/3
}

func (c *Cluster) partition(id string) int {
	return int(hash(id) % uint32(c.cfg.Partitions))
}

func hash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

func leaseName(p int) string { return fmt.Sprintf("partition-%d", p) }

// Kick tells every node that t has queued work.
func (c *Cluster) Kick(t model.Target) {
	c.send("kick", targetMessage(c.st.BusSubject("kick"), t))
}

// Changed tells the other nodes that t changed; this node, which made
// the change, has it already.
func (c *Cluster) Changed(t model.Target) {
	m := targetMessage(c.st.BusSubject("changed"), t)
	m.Header.Set(hdrNode, c.cfg.Node)
	c.send("changed", m)
}

// hdrNode names the node a message between nodes comes from, and
// hdrTargetKind what kind of target a kick or change is about.
const (
	hdrNode       = "Fount-Node"
	hdrTargetKind = "Fount-Target-Kind"
)

func (c *Cluster) onChanged(m *nats.Msg) {
	if m.Header.Get(hdrNode) == c.cfg.Node {
		return
	}
	if t, ok := targetOf(m); ok {
		c.h.Changed(t)
	}
}

// targetMessage is a message about t to subject: its id, and its kind
// in a header.
func targetMessage(subject string, t model.Target) *nats.Msg {
	m := nats.NewMsg(subject)
	m.Data = []byte(t.ID)
	m.Header.Set(hdrTargetKind, string(t.Kind))
	return m
}

// targetOf is the target a message names; a message from a node of an
// older fount names none but the id.
func targetOf(m *nats.Msg) (model.Target, bool) {
	id := string(m.Data)
	switch kind := model.TargetKind(m.Header.Get(hdrTargetKind)); kind {
	case model.TargetSource, model.TargetWorkflow:
		return model.Target{Kind: kind, ID: id}, true
	case "":
		return model.TargetOfStored(id)
	}
	return model.Target{}, false
}

func (c *Cluster) publish(subject string, data []byte, parts ...string) {
	m := nats.NewMsg(c.st.BusSubject(append([]string{subject}, parts...)...))
	m.Data = data
	c.send(subject, m)
}

// send sends m, a message of the kind subject names, to the other nodes;
// one that cannot be sent is logged (every message between nodes is at
// most once: the owners sweep their work now and then).
func (c *Cluster) send(subject string, m *nats.Msg) {
	if err := c.nc.PublishMsg(m); err != nil {
		c.log.Warn("tell the other nodes", "subject", subject, "err", err)
	}
}

// eventsMessage carries stored events to the other nodes.
type eventsMessage struct {
	Node   string        `json:"node"`
	Events []model.Event `json:"events"`
}

// Publish gives stored events to the other nodes' event streams, in
// messages under NATS's payload limit; an event larger than that alone
// is left out of them (its own node's streams have it).
func (c *Cluster) Publish(events []model.Event) {
	var batch []model.Event
	size := 0
	flush := func() {
		if len(batch) == 0 {
			return
		}
		data, err := json.Marshal(eventsMessage{Node: c.cfg.Node, Events: batch})
		if err == nil {
			c.publish("events", data)
		}
		batch, size = nil, 0
	}
	for _, ev := range events {
		n := len(ev.Data) + len(ev.Summary) + 256
		if n > maxEventsMessage {
			c.log.Warn("an event too large for other nodes' event streams", "emitter", ev.EmitterID, "bytes", len(ev.Data))
			continue
		}
		if size+n > maxEventsMessage {
			flush()
		}
		batch = append(batch, ev)
		size += n
	}
	flush()
}

func (c *Cluster) onEvents(m *nats.Msg) {
	var msg eventsMessage
	if err := json.Unmarshal(m.Data, &msg); err != nil {
		c.log.Warn("events from another node do not decode", "err", err)
		return
	}
	if msg.Node != c.cfg.Node {
		c.h.Events(msg.Events)
	}
}

// ReplyAddress is "<node>|<key>".
func (c *Cluster) ReplyAddress(key string) string { return c.cfg.Node + "|" + key }

// replyMessage carries a run's response to the node where its request
// waits; Response nil: the run ended.
type replyMessage struct {
	Address  string          `json:"address"`
	Response json.RawMessage `json:"response,omitempty"`
}

// Reply sends r to the node of address, unless that is this node.
func (c *Cluster) Reply(address string, r *abi.Response) bool {
	node, _, ok := strings.Cut(address, "|")
	if !ok || node == c.cfg.Node {
		return false
	}
	msg := replyMessage{Address: address}
	if r != nil {
		msg.Response, _ = json.Marshal(r)
	}
	data, err := json.Marshal(msg)
	if err != nil {
		c.log.Warn("a response does not encode", "err", err)
		return true
	}
	c.publish("reply", data, node)
	return true
}

func (c *Cluster) onReply(m *nats.Msg) {
	var msg replyMessage
	if err := json.Unmarshal(m.Data, &msg); err != nil {
		c.log.Warn("a response from another node does not decode", "err", err)
		return
	}
	if len(msg.Response) == 0 {
		c.h.Reply(msg.Address, nil)
		return
	}
	// Checked as the sandbox's own responses are: it becomes an HTTP
	// response on this node.
	r, err := abi.DecodeResponse(msg.Response)
	if err != nil {
		c.log.Warn("a response from another node is not valid", "err", err)
		c.h.Reply(msg.Address, nil)
		return
	}
	c.h.Reply(msg.Address, &r)
}
