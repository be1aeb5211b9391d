package jetstream

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// What nodes sharing a JetStream store keep in it to share the work:
// leases, each held by one node until its TTL runs out, and the nodes
// alive, each a record that its node writes again before its TTL ends.
// The TTLs are the server's (message TTLs), so no node's clock decides
// when another's lease ends.
const (
	tblLeases = "lease" // lease name → holder
	tblNodes  = "node"  // node name → ""
)

// Lease takes or renews the lease name for holder for ttl (whole
// seconds, at least one), or with ttl 0 gives it up if holder has it. It
// returns who holds the lease after the call: holder, another node, or
// "" (nobody).
func (s *Engine) Lease(ctx context.Context, name, holder string, ttl time.Duration) (string, error) {
	if holder == "" {
		return "", errors.New("store: lease: empty holder")
	}
	var now string
	err := s.update(ctx, func(tx *jsTx) error {
		k := s.key(tblLeases, name)
		cur, ok, err := tx.get(k)
		if err != nil {
			return err
		}
		now = string(cur)
		switch {
		case ok && now != holder:
			return nil
		case ttl > 0:
			tx.putTTL(k, []byte(holder), ttl)
			now = holder
		case ok:
			tx.del(k)
			now = ""
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("store: lease %s: %w", name, err)
	}
	return now, nil
}

// Heartbeat records that node is alive for ttl.
func (s *Engine) Heartbeat(ctx context.Context, node string, ttl time.Duration) error {
	err := s.update(ctx, func(tx *jsTx) error {
		tx.putTTL(s.key(tblNodes, node), nil, ttl)
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: heartbeat of %s: %w", node, err)
	}
	return nil
}

// Leave removes node from the nodes alive. Its record is purged rather
// than deleted by a marker, so that Nodes, which reads the index of
// subjects, stops listing it at once.
func (s *Engine) Leave(ctx context.Context, node string) error {
	if err := s.purge(ctx, s.key(tblNodes, node)); err != nil {
		return fmt.Errorf("store: %s leaves: %w", node, err)
	}
	return nil
}

// Nodes lists the nodes alive, by name, from the stream's index of
// subjects: one answer of the leader, where a scan of records that their
// nodes rewrite all the time met some twice and missed others.
func (s *Engine) Nodes(ctx context.Context) ([]string, error) {
	subjects, err := s.listSubjects(ctx, s.key(tblNodes)+".*")
	if err != nil {
		return nil, fmt.Errorf("store: nodes: %w", err)
	}
	out := make([]string, 0, len(subjects))
	for _, subject := range subjects {
		parts, err := s.keyParts(tblNodes, subject)
		if err != nil || len(parts) != 1 {
			return nil, fmt.Errorf("store: node key %s: %w", subject, err)
		}
		out = append(out, parts[0])
	}
	slices.Sort(out)
	return out, nil
}

// Conn is the store's NATS connection, which nodes also use to tell each
// other what changed (see BusSubject).
func (s *Engine) Conn() *nats.Conn { return s.nc }

// BusSubject is a subject of this store's namespace for messages between
// nodes, outside the stream: "<namespace>-bus." and parts, each one
// token (encoded).
func (s *Engine) BusSubject(parts ...string) string {
	var b strings.Builder
	b.WriteString(s.prefix + "-bus")
	for _, p := range parts {
		b.WriteByte('.')
		b.WriteString(token(p))
	}
	return b.String()
}
