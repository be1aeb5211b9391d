package natsdev

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
)

// Shared is one lone server for a whole test binary, started by the first
// test that asks for it, each test on a namespace of its own. Its zero
// value is ready; Shutdown, from TestMain, stops the server if it ran.
type Shared struct {
	once    sync.Once
	cluster *Cluster
	dir     string
	err     error
	n       atomic.Int64 // namespaces handed out
}

// URL starts the server unless it runs, and returns its client URL.
func (s *Shared) URL() (string, error) {
	s.once.Do(func() {
		if s.dir, s.err = os.MkdirTemp("", "fount-nats-"); s.err == nil {
			s.cluster, s.err = Start(s.dir, 1, Ports{})
		}
	})
	if s.err != nil {
		return "", fmt.Errorf("natsdev: the shared server: %w", s.err)
	}
	return s.cluster.URLs(), nil
}

// Namespace returns a namespace no other caller of this Shared got.
func (s *Shared) Namespace() string {
	return fmt.Sprintf("t%d", s.n.Add(1))
}

// Shutdown stops the server, if it was started, and removes its files.
func (s *Shared) Shutdown() {
	if s.cluster != nil {
		s.cluster.Shutdown()
	}
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
}
