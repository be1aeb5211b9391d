package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/client"
	"github.com/fount-dev/fount/internal/ids"
)

func runCommand() command {
	var event string
	return command{
		name: "run", summary: "Queue a manual run of a source or workflow, with an optional JSON event.",
		usage: "<source or workflow> [--event JSON]", example: `fount run new-order --event '{"id": 42}'`,
		flags: func(fs *flag.FlagSet) { fs.StringVar(&event, "event", "", "the run's event, as JSON") },
		run: func(ctx context.Context, c *cli, _ *flag.FlagSet, args []string) error {
			if len(args) != 1 {
				return usagef("run takes one source")
			}
			if event != "" && !json.Valid([]byte(event)) {
				return usagef("--event must be JSON, got %q", event)
			}
			api, err := c.client()
			if err != nil {
				return err
			}
			em, err := resolveEmitter(ctx, api, args[0])
			if err != nil {
				return err
			}
			if ids.Is(em.id, ids.Workflow) {
				x, err := api.RunWorkflow(ctx, em.id, json.RawMessage(event))
				if err != nil {
					return err
				}
				c.report(nil, x, fmt.Sprintf("queued execution %s of %s (%s)\n", x, em.name, em.id))
				return nil
			}
			if err := api.Run(ctx, em.id, json.RawMessage(event)); err != nil {
				return err
			}
			c.report(nil, em.id, fmt.Sprintf("queued a run of %s (%s)\n", em.name, em.id))
			return nil
		},
	}
}

// resolveEndpoint turns a source name into its id; other ids and globs
// pass through.
func resolveEndpoint(ctx context.Context, api *client.Client, ref string) (string, error) {
	if _, glob := ids.GlobOf(ref); glob {
		return ref, nil
	}
	if kind, ok := ids.Of(ref); ok && (kind == ids.Source || kind == ids.Workflow || kind == ids.Webhook) {
		return ref, nil
	}
	src, err := resolveSource(ctx, api, ref)
	return src.ID, err
}

func subscribeCommand(name string) command {
	var emitter, listener, channel string
	cmd := command{
		name: name, summary: "Subscribe a listener (source, webhook) to an emitter's channel.",
		usage: "--emitter SOURCE --listener SOURCE|WEBHOOK_ID [--channel NAME]", example: "fount subscribe --emitter new-order --listener wh_3kQ... --channel orders",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&emitter, "emitter", "", "the emitting source (id, name, or dc_* for all)")
			fs.StringVar(&listener, "listener", "", "the listening source or webhook")
			fs.StringVar(&channel, "channel", "", "the channel (default: the default channel)")
		},
	}
	if name == "unsubscribe" {
		cmd.summary = "Remove a subscription."
		cmd.example = "fount unsubscribe --emitter new-order --listener wh_3kQ... --channel orders"
	}
	cmd.run = func(ctx context.Context, c *cli, _ *flag.FlagSet, args []string) error {
		if len(args) != 0 || emitter == "" || listener == "" {
			return usagef("%s needs --emitter and --listener", name)
		}
		api, err := c.client()
		if err != nil {
			return err
		}
		e, err := resolveEndpoint(ctx, api, emitter)
		if err != nil {
			return err
		}
		l, err := resolveEndpoint(ctx, api, listener)
		if err != nil {
			return err
		}
		if name == "unsubscribe" {
			if err := api.Unsubscribe(ctx, e, l, channel); err != nil {
				return err
			}
			c.report(nil, "", fmt.Sprintf("unsubscribed %s from %s\n", l, e))
			return nil
		}
		sub, raw, err := api.Subscribe(ctx, e, l, channel)
		if err != nil {
			return err
		}
		c.report(raw, sub.ID, fmt.Sprintf("subscribed %s to %s (%s)\n", l, e, sub.ID))
		return nil
	}
	return cmd
}

func webhooksCommand() command {
	var name string
	var overlap time.Duration
	var follow bool
	return command{
		name: "webhooks", summary: "Create, list or delete webhooks; list a webhook's deliveries, resend one, or rotate its signing secret.",
		usage:   "create <url> [--name NAME] | list | delete <id> | deliveries <id> [--follow] | resend <id> <delivery id> | rotate <id> [--overlap 24h]",
		example: "fount webhooks create https://example.com/hooks/fount --name ops",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&name, "name", "", "the webhook's name (create)")
			fs.DurationVar(&overlap, "overlap", 24*time.Hour, "how long the old secret also signs deliveries (rotate; at most 168h)")
			fs.BoolVar(&follow, "follow", false, "keep showing deliveries as they change, until Ctrl-C (deliveries)")
		},
		run: func(ctx context.Context, c *cli, fs *flag.FlagSet, args []string) error {
			if len(args) == 0 {
				return usagef("webhooks takes create, list or delete")
			}
			if args[0] == "list" && len(args) == 1 {
				return listCommand().run(ctx, c, fs, []string{"webhooks"})
			}
			api, err := c.client()
			if err != nil {
				return err
			}
			switch {
			case args[0] == "create" && len(args) == 2:
				h, raw, err := api.CreateWebhook(ctx, args[1], name)
				if err != nil {
					return err
				}
				c.report(raw, h.ID, fmt.Sprintf("created webhook %s for %s\n  signing secret (shown once): %s\n", h.ID, h.URL, h.SigningSecret))
				if c.quiet {
					fmt.Fprintf(c.stderr, "signing secret (shown once): %s\n", h.SigningSecret)
				}
				return nil
			case args[0] == "delete" && len(args) == 2:
				if err := api.DeleteWebhook(ctx, args[1]); err != nil {
					return err
				}
				c.report(nil, args[1], fmt.Sprintf("deleted webhook %s\n", args[1]))
				return nil
			case args[0] == "deliveries" && len(args) == 2:
				ds, raw, err := api.Deliveries(ctx, args[1])
				if err != nil {
					return err
				}
				if follow {
					return c.followDeliveries(ctx, api, args[1], ds)
				}
				c.printDeliveries(raw, ds)
				return nil
			case args[0] == "resend" && len(args) == 3:
				d, raw, err := api.ResendDelivery(ctx, args[1], args[2])
				if err != nil {
					return err
				}
				c.report(raw, d.ID, fmt.Sprintf("queued delivery %s of webhook %s again\n", d.ID, args[1]))
				return nil
			case args[0] == "rotate" && len(args) == 2:
				h, raw, err := api.RotateWebhook(ctx, args[1], overlap)
				if err != nil {
					return err
				}
				c.report(raw, h.ID, fmt.Sprintf("rotated the signing secret of %s; the old one also signs for %s\n  new signing secret (shown once): %s\n", h.ID, overlap, h.SigningSecret))
				if c.quiet {
					fmt.Fprintf(c.stderr, "new signing secret (shown once): %s\n", h.SigningSecret)
				}
				return nil
			}
			return usagef("webhooks takes: create <url> | list | delete <id> | deliveries <id> | resend <id> <delivery id> | rotate <id>")
		},
	}
}

func whoamiCommand() command {
	return command{
		name: "whoami", summary: "Show the user the API key belongs to, and the server.", usage: "", example: "fount whoami",
		run: func(ctx context.Context, c *cli, _ *flag.FlagSet, args []string) error {
			if len(args) != 0 {
				return usagef("whoami takes no arguments")
			}
			api, err := c.client()
			if err != nil {
				return err
			}
			u, raw, err := api.Me(ctx)
			if err != nil {
				return err
			}
			c.report(raw, u.ID, fmt.Sprintf("%s (%s, %s) on %s\n", u.Username, u.Email, u.ID, c.url))
			return nil
		},
	}
}

func loginCommand() command {
	return command{
		name: "login", summary: "Check a server URL and API key, and save them in a profile (mode 0600).",
		usage: "[--url URL] [--key KEY] [--profile NAME]", example: "fount login --url http://127.0.0.1:8080 --key fount_...",
		run: func(ctx context.Context, c *cli, _ *flag.FlagSet, args []string) error {
			if len(args) != 0 {
				return usagef("login takes no arguments")
			}
			if c.key == "" && c.env.getenv("FOUNT_API_KEY") == "" {
				key, err := promptKey(c)
				if err != nil {
					return err
				}
				c.key = key
			}
			api, err := c.client()
			if err != nil {
				return err
			}
			u, _, err := api.Me(ctx)
			if client.IsStatus(err, http.StatusUnauthorized) {
				return fmt.Errorf("the server at %s refused that API key: check it (a new server writes its owner's key to <data-dir>/owner.key)", api.BaseURL)
			}
			if err != nil {
				return err
			}
			cfg, err := loadConfig(c.env)
			if err != nil {
				return err
			}
			cfg.Profiles[c.profileName()] = profileConfig{URL: c.url, Key: c.key}
			path, err := saveConfig(c.env, cfg)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "logged in to %s as %s; profile %q saved in %s\n", c.url, u.Username, c.profileName(), path)
			return nil
		},
	}
}

func promptKey(c *cli) (string, error) {
	f, ok := c.stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		key, err := readSecret(bufio.NewReader(c.stdin))
		if err != nil || key == "" {
			return "", errors.New("no API key: pass --key, set FOUNT_API_KEY, or send it on standard input")
		}
		return key, nil
	}
	fmt.Fprint(c.stderr, "API key: ")
	b, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(c.stderr)
	return strings.TrimSpace(string(b)), err
}

// printDeliveries prints a webhook's deliveries, newest first.
func (c *cli) printDeliveries(raw []byte, ds []apiv1.Delivery) {
	switch {
	case c.json:
		c.printJSON(raw)
	case c.quiet:
		for _, d := range ds {
			fmt.Fprintln(c.stdout, d.ID)
		}
	default:
		rows := make([][]string, 0, len(ds))
		for _, d := range ds {
			last := "-"
			if n := len(d.Attempts); n > 0 {
				a := d.Attempts[n-1]
				last = fmt.Sprint(a.Status)
				if a.Error != "" {
					last = a.Error
				}
			}
			rows = append(rows, []string{d.ID, d.Status, fmt.Sprint(len(d.Attempts)), last, d.EventID})
		}
		c.table([]string{"ID", "STATUS", "ATTEMPTS", "LAST", "EVENT"}, rows)
	}
}

// followDeliveries prints a line per delivery of a webhook each time it
// is new or changes (status, attempts), oldest first, until ctx ends.
// Deliveries are not streamed: it asks every half second.
func (c *cli) followDeliveries(ctx context.Context, api *client.Client, id string, ds []apiv1.Delivery) error {
	seen := map[string]string{}
	show := func(ds []apiv1.Delivery) {
		for i := len(ds) - 1; i >= 0; i-- {
			d := ds[i]
			state := fmt.Sprint(d.Status, len(d.Attempts))
			if seen[d.ID] == state {
				continue
			}
			seen[d.ID] = state
			switch {
			case c.json:
				b, _ := json.Marshal(d)
				fmt.Fprintln(c.stdout, string(b))
			case c.quiet:
				fmt.Fprintln(c.stdout, d.ID)
			default:
				fmt.Fprintf(c.stdout, "%s  %s  attempts %d  event %s\n", d.ID, d.Status, len(d.Attempts), d.EventID)
			}
		}
	}
	show(ds)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		ds, _, err := api.Deliveries(ctx, id)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		show(ds)
	}
}
