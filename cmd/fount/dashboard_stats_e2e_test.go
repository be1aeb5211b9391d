package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/fount-dev/fount/internal/server"
)

// chartSum is JavaScript that sums a chart series' values (data-values)
// of the first chart in scope that has it.
func chartSum(scope, series string) string {
	return fmt.Sprintf(`(document.querySelector(%q)?.getAttribute('data-values') ?? '').split(',').filter(Boolean).map(Number).reduce((a, b) => a + b, 0)`,
		scope+` path[data-series="`+series+`"]`)
}

// darkMode makes the page prefer a dark colour scheme, as a system
// setting would.
func darkMode(dark bool) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		value := "light"
		if dark {
			value = "dark"
		}
		_, err := cdp.Call(ctx, target, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: value}}})
		return err
	})
}

// TestDashboardChartsTraffic drives a source through requests that
// succeed and fail, delivered to a webhook, and checks that the charts'
// data, the totals on the page and the lists' sparklines equal what was
// sent; it takes the charts' screenshots in light and dark mode.
func TestDashboardChartsTraffic(t *testing.T) {
	t.Parallel()
	s := startServer(t, server.Config{BootstrapKey: "dashboard-key-0123456789abcdef012345", AllowPrivateEgress: true})
	const ok, failing = 12, 4
	src, hook, _ := s.countedTraffic(ok, failing, func(i int) bool { return i%4 == 3 })
	id := src["id"].(string)
	s.waitStats("webhooks", hook, map[string]float64{"delivered": ok})

	ctx := newBrowser(t)
	shots := newScreenshots(t)
	loaded := `Boolean(document.querySelector('.activity-body')?.dataset.loaded)`
	steps(t, ctx, s, "open the source's activity", append(signInAt(s, "#/sources/"+id),
		waitJS(loaded),
		chromedp.ScrollIntoView(chromedp.CSS(".activity")),
	)...)
	number := func(what, js string) int {
		t.Helper()
		got := value(t, ctx, s, what, chromedp.Evaluate[string](`String(`+js+`)`))
		n, err := strconv.Atoi(strings.TrimSpace(got))
		if err != nil {
			t.Fatalf("%s reads %q", what, got)
		}
		return n
	}
	total := func(key string) string {
		return `document.querySelector('[data-total="` + key + `"]').textContent`
	}
	checks := []struct {
		what string
		js   string
		want int
	}{
		{"the events total", total("events"), ok},
		{"the errors total", total("errors"), failing},
		{"the runs total", total("runs"), ok + failing},
		{"the failed runs total", total("runs_failed"), failing},
		{"the events chart", chartSum(`[data-chart="Events and errors"]`, "events"), ok},
		{"the errors chart", chartSum(`[data-chart="Events and errors"]`, "errors"), failing},
		{"the hour's points", `document.querySelector('path[data-series="events"]').getAttribute('data-values').split(',').length`, 60},
	}
	for _, c := range checks {
		if got := number(c.what, c.js); got != c.want {
			t.Errorf("%s = %d, want %d", c.what, got, c.want)
		}
	}
	if p95 := value(t, ctx, s, "run p95", chromedp.Evaluate[string](total("run_ms_p95"))); !strings.HasSuffix(p95, " ms") || p95 == "0 ms" {
		t.Errorf("the run p95 reads %q, want a duration in ms", p95)
	}
	steps(t, ctx, s, "light and dark screenshots", shots.take("source-activity"), darkMode(true), shots.take("source-activity-dark"), darkMode(false))

	steps(t, ctx, s, "a day of minutes",
		chromedp.Click(chromedp.CSS(`button[data-range="day"]`)),
		waitJS(`document.querySelector('.activity-body')?.dataset.range === 'day'`),
	)
	if n := number("the day's points", `document.querySelector('path[data-series="events"]').getAttribute('data-values').split(',').length`); n != 1440 {
		t.Errorf("the day chart has %d points, want 1440", n)
	}
	if n := number("the day's events", chartSum(`[data-chart="Events and errors"]`, "events")); n != ok {
		t.Errorf("the day chart sums %d events, want %d", n, ok)
	}

	steps(t, ctx, s, "the sources list's sparkline",
		chromedp.Navigate(s.base+"/#/sources"),
		waitJS(`Boolean(document.querySelector('td.spark-cell svg'))`),
	)
	if n := number("the sparkline's events", `document.querySelector('td.spark-cell svg').getAttribute('data-values').split(',').map(Number).reduce((a, b) => a + b, 0)`); n != ok {
		t.Errorf("the sources list's sparkline sums %d events, want %d", n, ok)
	}
	steps(t, ctx, s, "the list in dark mode", darkMode(true), shots.take("sources-sparklines-dark"), darkMode(false))

	steps(t, ctx, s, "the webhook's activity",
		chromedp.Navigate(s.base+"/#/webhooks/"+hook),
		waitJS(loaded),
		chromedp.ScrollIntoView(chromedp.CSS(".activity")),
	)
	if n := number("delivered", total("delivered")); n != ok {
		t.Errorf("the webhook's delivered total = %d, want %d", n, ok)
	}
	if n := number("the deliveries chart", chartSum(`[data-chart="Deliveries and failures"]`, "delivered")); n != ok {
		t.Errorf("the webhook's deliveries chart sums %d, want %d", n, ok)
	}
	steps(t, ctx, s, "the webhook's screenshots", shots.take("webhook-activity"), darkMode(true), shots.take("webhook-activity-dark"))
}
