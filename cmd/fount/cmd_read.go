package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strconv"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/client"
	"github.com/fount-dev/fount/internal/ids"
)

func listCommand() command {
	return command{
		name: "list", summary: "List your sources, workflows, components, subscriptions or webhooks.",
		usage: "sources|workflows|components|subscriptions|webhooks", example: "fount list sources",
		run: func(ctx context.Context, c *cli, _ *flag.FlagSet, args []string) error {
			if len(args) != 1 {
				return usagef("list takes one of: sources, workflows, components, subscriptions, webhooks")
			}
			api, err := c.client()
			if err != nil {
				return err
			}
			switch args[0] {
			case "sources":
				return c.listSources(ctx, api)
			case "workflows":
				return c.listWorkflows(ctx, api)
			case "components":
				return c.listComponents(ctx, api)
			case "subscriptions":
				subs, raw, err := api.Subscriptions(ctx)
				if err != nil {
					return err
				}
				var rows [][]string
				for _, s := range subs {
					rows = append(rows, []string{s.ID, s.EmitterID, s.ListenerID, orDash(s.EventName)})
				}
				return c.output(raw, idsOf(subs, func(s apiv1.Subscription) string { return s.ID }), []string{"ID", "EMITTER", "LISTENER", "CHANNEL"}, rows)
			case "webhooks":
				hooks, raw, err := api.Webhooks(ctx)
				if err != nil {
					return err
				}
				var rows [][]string
				for _, h := range hooks {
					name := "-"
					if h.Name != nil {
						name = *h.Name
					}
					rows = append(rows, []string{h.ID, name, h.URL, strconv.FormatBool(h.Active)})
				}
				return c.output(raw, idsOf(hooks, func(h apiv1.Webhook) string { return h.ID }), []string{"ID", "NAME", "URL", "ACTIVE"}, rows)
			}
			return usagef("cannot list %q: choose sources, workflows, components, subscriptions or webhooks", args[0])
		},
	}
}

func idsOf[T any](items []T, id func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = id(it)
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// output prints the API's JSON, the ids, or a table.
func (c *cli) output(raw []byte, ids []string, header []string, rows [][]string) error {
	switch {
	case c.json:
		c.printJSON(raw)
	case c.quiet:
		for _, id := range ids {
			fmt.Fprintln(c.stdout, id)
		}
	default:
		c.table(header, rows)
	}
	return nil
}

func (c *cli) listSources(ctx context.Context, api *client.Client) error {
	sources, err := api.Sources(ctx)
	if err != nil {
		return err
	}
	raw, _ := json.Marshal(map[string]any{"data": sources})
	var rows [][]string
	for _, s := range sources {
		endpoint := "-"
		for _, u := range client.Endpoints(s) {
			endpoint = u
		}
		rows = append(rows, []string{s.ID, s.Name, strconv.FormatBool(s.Active), when(s.CreatedAt), endpoint})
	}
	return c.output(raw, idsOf(sources, func(s apiv1.Source) string { return s.ID }), []string{"ID", "NAME", "ACTIVE", "CREATED", "ENDPOINT"}, rows)
}

// listComponents lists the components your sources run (the API has no
// list of saved components).
func (c *cli) listComponents(ctx context.Context, api *client.Client) error {
	sources, err := api.Sources(ctx)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var comps []apiv1.Component
	for _, s := range sources {
		if seen[s.ComponentID] {
			continue
		}
		seen[s.ComponentID] = true
		comp, _, err := api.Component(ctx, s.ComponentID)
		if err != nil {
			return err
		}
		comps = append(comps, comp)
	}
	raw, _ := json.Marshal(map[string]any{"data": comps})
	var rows [][]string
	for _, comp := range comps {
		rows = append(rows, []string{comp.ID, orDash(comp.Key), comp.Name, comp.Version, comp.Type})
	}
	return c.output(raw, idsOf(comps, func(x apiv1.Component) string { return x.ID }), []string{"ID", "KEY", "NAME", "VERSION", "TYPE"}, rows)
}

func getCommand() command {
	var endpoint bool
	return command{
		name: "get", summary: "Show one source or workflow (by id or name), component, webhook or subscription.",
		usage: "<id or source name> [--endpoint]", example: "fount get hello-http --endpoint",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&endpoint, "endpoint", false, "print only the source's (or HTTP-triggered workflow's) endpoint URL")
		},
		run: func(ctx context.Context, c *cli, _ *flag.FlagSet, args []string) error {
			if len(args) != 1 {
				return usagef("get takes one id")
			}
			api, err := c.client()
			if err != nil {
				return err
			}
			ref := args[0]
			var v any
			switch {
			case ids.Is(ref, ids.Component):
				comp, raw, err := api.Component(ctx, ref)
				if err != nil {
					return err
				}
				if c.json {
					c.printJSON(raw)
					return nil
				}
				v = comp
			case ids.Is(ref, ids.Webhook), ids.Is(ref, ids.Subscription):
				found, err := findByID(ctx, api, ref)
				if err != nil {
					return err
				}
				v = found
			case ids.Is(ref, ids.Workflow):
				w, err := resolveWorkflow(ctx, api, ref)
				if err != nil {
					return err
				}
				if endpoint {
					return c.printWorkflowEndpoint(w)
				}
				v = w
			default:
				src, err := resolveSource(ctx, api, ref)
				if err != nil {
					// Not a source: perhaps a workflow of that name.
					w, werr := resolveWorkflow(ctx, api, ref)
					if werr != nil {
						return err
					}
					if endpoint {
						return c.printWorkflowEndpoint(w)
					}
					v = w
					break
				}
				if endpoint {
					for _, u := range client.Endpoints(src) {
						fmt.Fprintln(c.stdout, u)
						return nil
					}
					return fmt.Errorf("source %s has no HTTP endpoint", src.Name)
				}
				v = src
			}
			b, _ := json.MarshalIndent(v, "", "  ")
			switch {
			case c.json:
				b, _ = json.Marshal(map[string]any{"data": v})
			case c.quiet:
				var withID struct {
					ID string `json:"id"`
				}
				_ = json.Unmarshal(b, &withID)
				b = []byte(withID.ID)
			}
			fmt.Fprintln(c.stdout, string(b))
			return nil
		},
	}
}

func findByID(ctx context.Context, api *client.Client, id string) (any, error) {
	if ids.Is(id, ids.Webhook) {
		hooks, _, err := api.Webhooks(ctx)
		if err != nil {
			return nil, err
		}
		for _, h := range hooks {
			if h.ID == id {
				return h, nil
			}
		}
		return nil, fmt.Errorf("no webhook %s: see `fount list webhooks`", id)
	}
	subs, _, err := api.Subscriptions(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range subs {
		if s.ID == id {
			return s, nil
		}
	}
	return nil, fmt.Errorf("no subscription %s: see `fount list subscriptions`", id)
}

// eventsCommand serves both `events` and `logs` (the $logs channel).
func eventsCommand(name string) command {
	var n int
	var follow bool
	var channel string
	cmd := command{
		name: name, summary: "Show a source's or workflow's latest events, newest last; --follow streams new ones.",
		usage: "<source or workflow> [-n N] [--follow] [--channel NAME]", example: "fount events new-order -n 20 --follow",
		flags: func(fs *flag.FlagSet) {
			fs.IntVar(&n, "n", 10, "how many recent events (1-100)")
			fs.BoolVar(&follow, "follow", false, "keep streaming new events until Ctrl-C")
			if name == "events" {
				fs.StringVar(&channel, "channel", "", "the channel (default: the default channel; $errors, $logs, ...)")
			}
		},
	}
	label := "event"
	if name == "logs" {
		cmd.summary = "Show a source's console output (the $logs channel); --follow streams it."
		cmd.usage = "<source> [-n N] [--follow]"
		cmd.example = "fount logs new-order --follow"
		label = "log"
	}
	cmd.run = func(ctx context.Context, c *cli, _ *flag.FlagSet, args []string) error {
		if len(args) != 1 {
			return usagef("%s takes one source", name)
		}
		if n < 1 || n > 100 {
			return usagef("-n must be from 1 to 100")
		}
		if name == "logs" {
			channel = "$logs"
		}
		api, err := c.client()
		if err != nil {
			return err
		}
		src, err := resolveEmitter(ctx, api, args[0])
		if err != nil {
			return err
		}
		evs, raw, err := api.Events(ctx, src.id, channel, n)
		if err != nil {
			return err
		}
		if c.json && !follow {
			c.printJSON(raw)
			return nil
		}
		for i := len(evs) - 1; i >= 0; i-- {
			c.printEvent(evs[i], label)
		}
		if !follow {
			return nil
		}
		// Resume after the newest event shown, so that one stored between
		// the listing and the stream is not missed.
		after := client.FromStart
		if len(evs) > 0 {
			after = evs[0].ID
		}
		return api.Follow(ctx, src.id, channel, after, func(ev apiv1.EventSummary) error {
			c.printEvent(ev, label)
			return nil
		})
	}
	return cmd
}
