package server

import (
	"context"
	"sync"
	"time"
)

// queueCountEvery is how often the queues are counted for metrics at
// most: counting reads the store (on bbolt a scan of the queues' keys, on
// JetStream the stream's index of subjects and every listener's backlog
// of deliveries), and a scraper that polls often must not keep the store
// busy counting. A scrape in between gets the last count.
const queueCountEvery = time.Second

// queueCountTimeout bounds one count of the queues for a metrics scrape.
const queueCountTimeout = 5 * time.Second

// recentDepths counts the queues with count at most once per every.
type recentDepths struct {
	count func(ctx context.Context) (invocations, deliveries int, err error)
	every time.Duration
	now   func() time.Time

	mu                      sync.Mutex // held while counting: callers share one count
	at                      time.Time
	invocations, deliveries int
}

func (d *recentDepths) depths(ctx context.Context) (invocations, deliveries int, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.at.IsZero() && d.now().Sub(d.at) < d.every {
		return d.invocations, d.deliveries, nil
	}
	invocations, deliveries, err = d.count(ctx)
	if err != nil {
		return 0, 0, err
	}
	d.at, d.invocations, d.deliveries = d.now(), invocations, deliveries
	return invocations, deliveries, nil
}
