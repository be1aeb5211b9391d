package jetstream

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/natsdev"
)

// BenchmarkStreamLeader measures R, the rate at which one stream's
// leader commits fount's transactions: atomic batches of blind writes of
// 100 bytes, 1 or 100 messages each, from 16 writers at once, on one
// server (R1) and on a cluster of three (R3), all on this machine. It is
// the bound of a cluster on one stream (docs/nats.md, "Throughput").
func BenchmarkStreamLeader(b *testing.B) {
	for _, replicas := range []int{1, 3} {
		cluster, err := natsdev.Start(b.TempDir(), replicas, natsdev.Ports{})
		if err != nil {
			b.Fatal(err)
		}
		if err := cluster.WaitReady(time.Minute); err != nil {
			b.Fatal(err)
		}
		for _, size := range []int{1, 100} {
			b.Run(fmt.Sprintf("R%d/batch=%d", replicas, size), func(b *testing.B) {
				s, err := Open(ctx, Config{URLs: cluster.URLs(), Namespace: fmt.Sprintf("leader%d%d", replicas, size), Replicas: replicas}, time.Now)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				value := []byte(strings.Repeat("x", 100))
				var n atomic.Int64
				b.SetParallelism(8) // 16 writers on 2 cores
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						k := n.Add(1)
						err := s.update(ctx, func(tx *jsTx) error {
							for i := range size {
								tx.put(s.key("bench", fmt.Sprint(k), fmt.Sprint(i)), value)
							}
							return nil
						})
						if err != nil {
							b.Error(err)
							return
						}
					}
				})
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "batches/s")
				b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "msgs/s")
			})
		}
		cluster.Shutdown()
	}
}
