package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/client"
	"github.com/fount-dev/fount/internal/ids"
)

// statsColumns is how many points a sparkline of `fount stats` draws.
const statsColumns = 60

func statsCommand() command {
	var last time.Duration
	return command{
		name: "stats", summary: "Show what a source, workflow or webhook did over time: events, errors, runs and their duration, deliveries and their latency, each as a sparkline.",
		usage: "<source or workflow (id or name), or webhook id> [--last 1h]", example: "fount stats hello-http --last 24h",
		flags: func(fs *flag.FlagSet) {
			fs.DurationVar(&last, "last", time.Hour, "the span to show, up to now (kept: 7 days)")
		},
		run: func(ctx context.Context, c *cli, _ *flag.FlagSet, args []string) error {
			if len(args) != 1 {
				return usagef("stats takes one source, workflow or webhook")
			}
			if last < time.Minute || last > 7*24*time.Hour {
				return usagef("--last is %s; it must be from 1m to 168h", last)
			}
			api, err := c.client()
			if err != nil {
				return err
			}
			id, name, err := resolveStatsTarget(ctx, api, args[0])
			if err != nil {
				return err
			}
			step := max(time.Minute, (last/statsColumns + time.Minute - 1).Truncate(time.Minute))
			to := time.Now().Truncate(time.Minute).Add(time.Minute)
			st, raw, err := api.Stats(ctx, id, to.Add(-last), to, step)
			if err != nil {
				return err
			}
			if c.json || c.quiet {
				c.report(raw, id, "")
				return nil
			}
			printStats(c.stdout, name, id, last, st)
			return nil
		},
	}
}

// resolveStatsTarget finds what ref names: a webhook by id, or a source
// or workflow by id or name.
func resolveStatsTarget(ctx context.Context, api *client.Client, ref string) (id, name string, err error) {
	if ids.Is(ref, ids.Webhook) {
		hook, err := findByID(ctx, api, ref)
		if err != nil {
			return "", "", err
		}
		h := hook.(apiv1.Webhook)
		if h.Name != nil {
			name = *h.Name
		}
		return h.ID, name, nil
	}
	em, err := resolveEmitter(ctx, api, ref)
	return em.id, em.name, err
}

// printStats prints st as a line per series: its sparkline and its
// total over the span.
func printStats(w io.Writer, name, id string, last time.Duration, st apiv1.Stats) {
	if name == "" {
		name = id
	}
	fmt.Fprintf(w, "%s (%s), the last %s, a column each %s:\n", name, id, shortDuration(last), shortDuration(time.Duration(st.Step)*time.Second))
	t, s := st.Totals, st.Series
	rows := []struct {
		label  string
		series []int64
		total  string
	}{
		{"events", s.Events, fmt.Sprint(t.Events)},
		{"errors", s.Errors, fmt.Sprint(t.Errors)},
		{"runs", s.Runs, fmt.Sprintf("%d (%d failed)", t.Runs, t.RunsFailed)},
		{"run ms p95", msColumn(s.RunMsP95), fmt.Sprintf("p50 %.3g, p95 %.3g", t.RunMsP50, t.RunMsP95)},
		{"delivered", s.Delivered, fmt.Sprintf("%d (%d failed attempts)", t.Delivered, t.DeliveryFailures)},
		{"latency ms p95", msColumn(s.LatencyMsP95), fmt.Sprintf("p50 %.3g, p95 %.3g", t.LatencyMsP50, t.LatencyMsP95)},
	}
	for _, r := range rows {
		fmt.Fprintf(w, "  %-15s %s  %s\n", r.label, sparkline(r.series), r.total)
	}
}

// sparkBars are a sparkline's eight heights.
var sparkBars = []rune("▁▂▃▄▅▆▇█")

// sparkline draws values as bars scaled to their largest; a zero is a
// space, so that nothing and a little differ.
func sparkline(values []int64) string {
	var top int64
	for _, v := range values {
		top = max(top, v)
	}
	var b strings.Builder
	for _, v := range values {
		switch {
		case v <= 0:
			b.WriteRune(' ')
		default:
			b.WriteRune(sparkBars[min(int((v*int64(len(sparkBars))-1)/top), len(sparkBars)-1)])
		}
	}
	return b.String()
}

// msColumn is a series of milliseconds as microseconds, for a sparkline.
func msColumn(ms []float64) []int64 {
	out := make([]int64, len(ms))
	for i, v := range ms {
		out[i] = int64(v * 1000)
	}
	return out
}

// shortDuration is d as Go writes it without zero tails: 1h, 24m, 1h30m.
func shortDuration(d time.Duration) string {
	return strings.TrimSuffix(strings.TrimSuffix(d.String(), "0s"), "0m")
}
