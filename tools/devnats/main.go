// Command devnats runs a cluster of NATS servers with JetStream on
// loopback until interrupted: the NATS that `make run-cluster` runs fount
// nodes on. It prints the URLs to give fount's --store. Development only.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/fount-dev/fount/internal/natsdev"
)

func main() {
	n := flag.Int("servers", 3, "how many servers")
	dir := flag.String("dir", "./fount-cluster/nats", "where the servers store their streams")
	port := flag.Int("port", 4222, "the first server's client port; the others follow")
	clusterPort := flag.Int("cluster-port", 6222, "the first server's cluster port; the others follow")
	flag.Parse()
	ports := natsdev.Ports{}
	for i := range *n {
		ports.Client = append(ports.Client, *port+i)
		ports.Cluster = append(ports.Cluster, *clusterPort+i)
	}
	c, err := natsdev.Start(*dir, *n, ports)
	if err != nil {
		fmt.Fprintln(os.Stderr, "devnats:", err)
		os.Exit(1)
	}
	fmt.Println(c.URLs())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	c.Shutdown()
}
