package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/client"
	"github.com/fount-dev/fount/internal/bundle"
)

// saveFile bundles a component file and saves it on the server.
func (c *cli) saveFile(ctx context.Context, api *client.Client, path, org string, updatePackages bool) (apiv1.Component, bundle.Result, error) {
	stop := c.spinner("bundling " + path)
	b, err := bundle.File(path)
	stop()
	if _, serr := os.Stat(path); serr != nil {
		return apiv1.Component{}, b, usagef("cannot bundle %s: %v", path, serr)
	}
	if err != nil {
		// The component's error, not the command line's: exit 1.
		return apiv1.Component{}, b, fmt.Errorf("cannot bundle %s:\n%v", path, err)
	}
	stop = c.spinner("saving the component")
	sourceMap := b.SourceMap
	if len(b.Code)+len(sourceMap) > maxSaveBytes {
		sourceMap = "" // stacks then name the bundle's lines rather than the request fail
	}
	comp, err := api.SaveComponent(ctx, b.Code, sourceMap, org, updatePackages)
	stop()
	return comp, b, err
}

// maxSaveBytes keeps a save's code and source map under the server's
// 5 MiB request limit.
const maxSaveBytes = 4_500_000

// registryKey is what a published component's key looks like; a path
// has a dot or a slash.
var registryKey = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// isRegistryKey reports whether deploy's argument names a published
// component: no file of that name, and the shape of a key.
func isRegistryKey(arg string) bool {
	if _, err := os.Stat(arg); err == nil {
		return false
	}
	return registryKey.MatchString(arg)
}

// saveRegistryComponent saves the published component key as one of
// the caller's, as `pd deploy http-new-requests` does.
func (c *cli) saveRegistryComponent(ctx context.Context, api *client.Client, key, org string, updatePackages bool) (apiv1.Component, error) {
	stop := c.spinner("fetching " + key + " from the registry")
	pub, err := api.RegistryComponent(ctx, key)
	stop()
	var notFound *client.APIError
	if errors.As(err, &notFound) && notFound.Status == http.StatusNotFound {
		return apiv1.Component{}, usagef("%s is neither a file nor a published component's key", key)
	}
	if err != nil {
		return apiv1.Component{}, err
	}
	stop = c.spinner("saving the component")
	defer stop()
	return api.SaveComponent(ctx, pub.Code, "", org, updatePackages)
}

// apiAndSource returns the API client and the source ref names.
func (c *cli) apiAndSource(ctx context.Context, ref string) (*client.Client, apiv1.Source, error) {
	api, err := c.client()
	if err != nil {
		return nil, apiv1.Source{}, err
	}
	src, err := resolveSource(ctx, api, ref)
	return api, src, err
}

// resolveSource finds a source by id (dc_...), name or name slug, among
// the caller's sources and those of their organizations. A name that fits
// several sources is refused: pass the id.
func resolveSource(ctx context.Context, api *client.Client, ref string) (apiv1.Source, error) {
	sources, err := api.Sources(ctx)
	if err != nil {
		return apiv1.Source{}, err
	}
	me, _, err := api.Me(ctx)
	if err != nil {
		return apiv1.Source{}, err
	}
	for _, org := range me.Orgs {
		orgSources, err := api.OrgSources(ctx, org.ID)
		if err != nil {
			return apiv1.Source{}, err
		}
		sources = append(sources, orgSources...)
	}
	var found []apiv1.Source
	for _, s := range sources {
		if s.ID == ref {
			return s, nil
		}
		if s.Name == ref || s.NameSlug == ref {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		return apiv1.Source{}, fmt.Errorf("no source named %q: see `fount list sources`", ref)
	case 1:
		return found[0], nil
	}
	var ids []string
	for _, s := range found {
		ids = append(ids, s.ID)
	}
	return apiv1.Source{}, usagef("%q names %d sources (%s): pass an id", ref, len(found), strings.Join(ids, ", "))
}

func (c *cli) printSource(raw []byte, s apiv1.Source, verb string) {
	human := fmt.Sprintf("%s %s (%s)\n", verb, s.Name, s.ID)
	for prop, url := range client.Endpoints(s) {
		human += fmt.Sprintf("  %s endpoint: %s\n", prop, url)
	}
	c.report(raw, s.ID, human)
}

func deployCommand() command {
	var props propsInput
	var name, org string
	var updatePackages bool
	return command{
		name: "deploy", summary: "Bundle a component file (with its relative imports, JS or TS, and the npm packages installed in node_modules) and deploy it as a source; the server resolves the other npm imports (docs/packages.md) and bundles the Node built-ins fount provides (events, util, buffer, stream, crypto, http, fs on /tmp...; docs/runtime.md). An app prop takes a connected account as {\"authProvisionId\": \"apn_...\"} (fount accounts). Or deploy a workflow file (.yaml, .json), creating or updating the workflow of its name.",
		usage: "<file | registry key> [--prop name=value]... [--props file.json] [--name NAME] [--org ORG_ID] [--update-packages]", example: "fount deploy ./sources/new-order.mjs --prop channel=orders",
		flags: func(fs *flag.FlagSet) {
			props.register(fs)
			fs.StringVar(&name, "name", "", "the source's name (default: the component's name slug)")
			fs.StringVar(&org, "org", "", "deploy in this organization")
			fs.BoolVar(&updatePackages, "update-packages", false,
				"resolve npm imports to the newest matching versions, instead of the ones this code was deployed with before")
		},
		run: func(ctx context.Context, c *cli, _ *flag.FlagSet, args []string) error {
			if len(args) != 1 {
				return usagef("deploy takes one file")
			}
			api, err := c.client()
			if err != nil {
				return err
			}
			if isWorkflowFile(args[0]) {
				if len(props.flags) > 0 || props.file != "" || name != "" {
					return usagef("--prop, --props and --name are for sources; a workflow file names its workflow and its steps' props")
				}
				w, created, raw, err := c.deployWorkflowFile(ctx, api, args[0], org, updatePackages)
				if err != nil {
					return err
				}
				verb := "updated"
				if created {
					verb = "deployed"
				}
				c.printWorkflow(raw, w, verb)
				return nil
			}
			var comp apiv1.Component
			if isRegistryKey(args[0]) {
				comp, err = c.saveRegistryComponent(ctx, api, args[0], org, updatePackages)
			} else {
				comp, _, err = c.saveFile(ctx, api, args[0], org, updatePackages)
			}
			if err != nil {
				return err
			}
			values, err := props.build(c, comp.ConfigurableProps)
			if err != nil {
				return err
			}
			if err := checkRequired(comp.ConfigurableProps, values); err != nil {
				return err
			}
			stop := c.spinner("deploying")
			src, raw, err := api.CreateSource(ctx, comp.ID, name, org, values)
			stop()
			if err != nil {
				return err
			}
			c.printSource(raw, src, "deployed")
			return nil
		},
	}
}

func updateCommand() command {
	var props propsInput
	return command{
		name: "update", summary: "Replace a source's code (from a file) and/or props; the source keeps its id and endpoints.",
		usage: "<source> [<file>] [--prop name=value]... [--props file.json]", example: "fount update new-order ./sources/new-order.mjs",
		flags: func(fs *flag.FlagSet) {
			props.register(fs)
		},
		run: func(ctx context.Context, c *cli, _ *flag.FlagSet, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usagef("update takes a source and optionally a file")
			}
			api, src, err := c.apiAndSource(ctx, args[0])
			if err != nil {
				return err
			}
			var comp apiv1.Component
			if len(args) == 2 {
				comp, _, err = c.saveFile(ctx, api, args[1], "", false)
			} else {
				comp, _, err = api.Component(ctx, src.ComponentID)
			}
			if err != nil {
				return err
			}
			values, err := mergedProps(c, src, comp, props)
			if err != nil {
				return err
			}
			updated, raw, err := api.UpdateSource(ctx, src.ID, comp.ID, values, src.Active)
			if err != nil {
				return err
			}
			before, _ := json.Marshal(src.ConfiguredProps)
			after, _ := json.Marshal(updated.ConfiguredProps)
			if !c.json && !c.quiet && updated.ComponentID == src.ComponentID && string(before) == string(after) {
				fmt.Fprintf(c.stdout, "nothing changed: %s (%s) already runs that code with those props\n", updated.Name, updated.ID)
				return nil
			}
			c.printSource(raw, updated, "updated")
			return nil
		},
	}
}

// mergedProps is the source's current props that the component still has,
// with the command line's on top; nil (keep them all) when the command line
// gives none.
func mergedProps(c *cli, src apiv1.Source, comp apiv1.Component, in propsInput) (map[string]json.RawMessage, error) {
	if len(in.flags) == 0 && in.file == "" {
		return nil, nil
	}
	given, err := in.build(c, comp.ConfigurableProps)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, p := range comp.ConfigurableProps {
		known[p.Name] = true
	}
	out := map[string]json.RawMessage{}
	for k, v := range src.ConfiguredProps {
		if known[k] {
			out[k] = v
		}
	}
	for k, v := range given {
		out[k] = v
	}
	return out, nil
}

func deleteCommand() command {
	return command{
		name: "delete", summary: "Delete a source, its events and its subscriptions.", usage: "<source>", example: "fount delete new-order",
		run: func(ctx context.Context, c *cli, _ *flag.FlagSet, args []string) error {
			if len(args) != 1 {
				return usagef("delete takes one source")
			}
			api, src, err := c.apiAndSource(ctx, args[0])
			if err != nil {
				return err
			}
			if err := api.DeleteSource(ctx, src.ID); err != nil {
				return err
			}
			c.report(nil, src.ID, fmt.Sprintf("deleted %s (%s)\n", src.Name, src.ID))
			return nil
		},
	}
}

func devCommand() command {
	var props propsInput
	var name string
	var keep bool
	return command{
		name: "dev", summary: "Deploy a component, redeploy it on every save, and stream its events and logs until Ctrl-C.",
		usage: "<file> [--prop name=value]... [--name NAME] [--keep]", example: "fount dev ./sources/new-order.mjs",
		flags: func(fs *flag.FlagSet) {
			props.register(fs)
			fs.StringVar(&name, "name", "", "the dev source's name")
			fs.BoolVar(&keep, "keep", false, "keep the source when dev exits")
		},
		run: func(ctx context.Context, c *cli, _ *flag.FlagSet, args []string) error {
			if len(args) != 1 {
				return usagef("dev takes one file")
			}
			api, err := c.client()
			if err != nil {
				return err
			}
			if isWorkflowFile(args[0]) {
				return c.devWorkflow(ctx, api, args[0], keep)
			}
			comp, b, err := c.saveFile(ctx, api, args[0], "", false)
			if err != nil {
				return err
			}
			values, err := props.build(c, comp.ConfigurableProps)
			if err != nil {
				return err
			}
			src, _, err := api.CreateSource(ctx, comp.ID, name, "", values)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "dev: deployed %s (%s)\n", src.Name, src.ID)
			for prop, url := range client.Endpoints(src) {
				fmt.Fprintf(c.stdout, "dev: %s endpoint: %s\n", prop, url)
			}
			defer func() {
				if keep {
					fmt.Fprintf(c.stdout, "dev: keeping %s\n", src.ID)
					return
				}
				cleanup, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if err := api.DeleteSource(cleanup, src.ID); err == nil {
					fmt.Fprintf(c.stdout, "dev: deleted %s\n", src.ID)
				}
			}()
			go c.stream(ctx, api, src.ID, "", "event")
			go c.stream(ctx, api, src.ID, "$logs", "log")
			go c.stream(ctx, api, src.ID, "$errors", "error")
			return c.watch(ctx, api, src, args[0], b.Inputs, values)
		},
	}
}

// watch redeploys whenever one of the component's files changes.
func (c *cli) watch(ctx context.Context, api *client.Client, src apiv1.Source, path string, inputs []string, values map[string]json.RawMessage) error {
	mtimes := fileTimes(inputs)
	tick := time.NewTicker(300 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		now := fileTimes(inputs)
		if sameTimes(now, mtimes) {
			continue
		}
		mtimes = now
		comp, b, err := c.saveFile(ctx, api, path, "", false)
		if err != nil {
			fmt.Fprintf(c.stdout, "dev: not redeployed: %s\n", explain(err, c))
			continue
		}
		inputs, mtimes = b.Inputs, fileTimes(b.Inputs)
		if _, _, err := api.UpdateSource(ctx, src.ID, comp.ID, nil, true); err != nil {
			if errors.Is(err, context.Canceled) {
				return nil
			}
			fmt.Fprintf(c.stdout, "dev: not redeployed: %s\n", explain(err, c))
			continue
		}
		fmt.Fprintf(c.stdout, "dev: redeployed %s (%s)\n", src.Name, src.ID)
	}
}

func fileTimes(paths []string) map[string]time.Time {
	out := map[string]time.Time{}
	for _, p := range paths {
		if info, err := os.Stat(p); err == nil {
			out[p] = info.ModTime()
		}
	}
	return out
}

func sameTimes(a, b map[string]time.Time) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !b[k].Equal(v) {
			return false
		}
	}
	return true
}

// stream prints a channel's events, from the first, until ctx ends.
func (c *cli) stream(ctx context.Context, api *client.Client, sourceID, channel, label string) {
	_ = api.Follow(ctx, sourceID, channel, client.FromStart, func(ev apiv1.EventSummary) error {
		c.printEvent(ev, label)
		return nil
	})
}

// printEvent prints one event: its JSON with --json, else a line.
func (c *cli) printEvent(ev apiv1.EventSummary, label string) {
	if c.json {
		b, _ := json.Marshal(ev)
		fmt.Fprintln(c.stdout, string(b))
		return
	}
	if c.quiet {
		fmt.Fprintln(c.stdout, ev.ID)
		return
	}
	at := time.UnixMilli(ev.IndexedAtMs).Local().Format("15:04:05.000")
	body := strings.TrimSpace(string(ev.Event))
	if label == "log" {
		var l struct{ Level, Message string }
		if json.Unmarshal(ev.Event, &l) == nil {
			body = l.Level + " " + l.Message
		}
	}
	prefix := ""
	if label != "" && label != "event" {
		prefix = label + " "
	}
	fmt.Fprintf(c.stdout, "%s %s %s%s\n", at, ev.ID, prefix, body)
}
