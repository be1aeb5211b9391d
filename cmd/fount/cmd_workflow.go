package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/client"
	"github.com/fount-dev/fount/internal/ids"
)

// deployWorkflowFile bundles a workflow file's steps and creates the
// workflow, or updates the one of the same name (slug) in the account.
func (c *cli) deployWorkflowFile(ctx context.Context, api *client.Client, path, org string, updatePackages bool) (apiv1.Workflow, bool, []byte, error) {
	stop := c.spinner("bundling " + path)
	wf, err := loadWorkflowFile(path, c.env.getenv)
	stop()
	if err != nil {
		return apiv1.Workflow{}, false, nil, err
	}
	wf.def.UpdatePackages = updatePackages
	if wf.source != "" {
		src, err := resolveSource(ctx, api, wf.source)
		if err != nil {
			return apiv1.Workflow{}, false, nil, fmt.Errorf("the trigger's source: %w", err)
		}
		wf.def.Trigger.EmitterID = src.ID
	}
	existing, err := api.Workflows(ctx, org)
	if err != nil {
		return apiv1.Workflow{}, false, nil, err
	}
	slug := slugOf(wf.def.Name)
	stop = c.spinner("deploying")
	defer stop()
	for _, w := range existing {
		if w.NameSlug == slug {
			updated, raw, err := api.UpdateWorkflow(ctx, w.ID, wf.def)
			return updated, false, raw, err
		}
	}
	created, raw, err := api.CreateWorkflow(ctx, wf.def, org)
	return created, true, raw, err
}

// slugOf is the server's name slug of a workflow name: lower-case letters
// and digits joined by hyphens.
func slugOf(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	s := b.String()
	if len(s) > 100 { // the server's longest slug
		s = strings.TrimRight(s[:100], "-")
	}
	if s == "" {
		return "source"
	}
	return s
}

// readJSONFile decodes a JSON file into v.
func readJSONFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

func (c *cli) printWorkflow(raw []byte, w apiv1.Workflow, verb string) {
	human := fmt.Sprintf("%s workflow %s (%s)\n", verb, w.Name, w.ID)
	if w.Trigger.EndpointURL != "" {
		human += fmt.Sprintf("  http endpoint: %s\n", w.Trigger.EndpointURL)
	}
	c.report(raw, w.ID, human)
}

// resolveWorkflow finds a workflow by id (p_...), name or name slug among
// the caller's workflows and those of their organizations.
func resolveWorkflow(ctx context.Context, api *client.Client, ref string) (apiv1.Workflow, error) {
	all, err := api.Workflows(ctx, "")
	if err != nil {
		return apiv1.Workflow{}, err
	}
	me, _, err := api.Me(ctx)
	if err != nil {
		return apiv1.Workflow{}, err
	}
	for _, org := range me.Orgs {
		more, err := api.Workflows(ctx, org.ID)
		if err != nil {
			return apiv1.Workflow{}, err
		}
		all = append(all, more...)
	}
	var found []apiv1.Workflow
	for _, w := range all {
		if w.ID == ref {
			return w, nil
		}
		if w.Name == ref || w.NameSlug == ref {
			found = append(found, w)
		}
	}
	switch len(found) {
	case 0:
		return apiv1.Workflow{}, fmt.Errorf("no workflow named %q: see `fount list workflows`", ref)
	case 1:
		return found[0], nil
	}
	return apiv1.Workflow{}, usagef("%q names %d workflows: pass an id", ref, len(found))
}

// emitter is a source or a workflow named on the command line.
type emitter struct{ id, name string }

// resolveEmitter finds the source, or else the workflow, that ref names.
func resolveEmitter(ctx context.Context, api *client.Client, ref string) (emitter, error) {
	if !ids.Is(ref, ids.Workflow) {
		src, err := resolveSource(ctx, api, ref)
		if err == nil || ids.Is(ref, ids.Source) {
			return emitter{src.ID, src.Name}, err
		}
		var usage usageError
		if errors.As(err, &usage) {
			return emitter{}, err
		}
	}
	w, err := resolveWorkflow(ctx, api, ref)
	if err != nil && !ids.Is(ref, ids.Workflow) {
		return emitter{}, fmt.Errorf("no source or workflow named %q: see `fount list sources` and `fount list workflows`", ref)
	}
	return emitter{w.ID, w.Name}, err
}

func (c *cli) listWorkflows(ctx context.Context, api *client.Client) error {
	flows, err := api.Workflows(ctx, "")
	if err != nil {
		return err
	}
	raw, _ := json.Marshal(map[string]any{"data": flows})
	var rows [][]string
	for _, w := range flows {
		trigger := w.Trigger.Type
		if w.Trigger.EndpointURL != "" {
			trigger += " " + w.Trigger.EndpointURL
		}
		if w.Trigger.EmitterID != "" {
			trigger += " " + w.Trigger.EmitterID
		}
		rows = append(rows, []string{w.ID, w.Name, fmt.Sprint(w.Active), fmt.Sprint(len(w.Steps)), trigger})
	}
	return c.output(raw, idsOf(flows, func(w apiv1.Workflow) string { return w.ID }), []string{"ID", "NAME", "ACTIVE", "STEPS", "TRIGGER"}, rows)
}

func executionsCommand() command {
	var n int
	var follow bool
	return command{
		name: "executions", summary: "Show a workflow's latest executions, newest last, each step's status and summary; --follow shows new ones. 'replay ID' runs an execution's trigger event again.",
		usage: "<workflow> [-n N] [--follow] | replay <execution id>", example: "fount executions greeter --follow",
		flags: func(fs *flag.FlagSet) {
			fs.IntVar(&n, "n", 10, "how many recent executions (1-1000)")
			fs.BoolVar(&follow, "follow", false, "keep showing new executions until Ctrl-C")
		},
		run: func(ctx context.Context, c *cli, _ *flag.FlagSet, args []string) error {
			if len(args) == 2 && args[0] == "replay" {
				return c.replayExecution(ctx, args[1])
			}
			if len(args) != 1 {
				return usagef("executions takes one workflow, or replay and an execution id")
			}
			if n < 1 || n > 1000 {
				return usagef("-n must be from 1 to 1000")
			}
			api, err := c.client()
			if err != nil {
				return err
			}
			w, err := resolveWorkflow(ctx, api, args[0])
			if err != nil {
				return err
			}
			xs, raw, err := api.Executions(ctx, w.ID, n)
			if err != nil {
				return err
			}
			if c.json && !follow {
				c.printJSON(raw)
				return nil
			}
			seen := map[string]bool{}
			for i := len(xs) - 1; i >= 0; i-- {
				seen[xs[i].ID] = true
				c.printExecution(xs[i])
			}
			if !follow {
				return nil
			}
			return c.followExecutions(ctx, api, w.ID, seen)
		},
	}
}

// replayExecution queues a new execution with the trigger event of
// execution id and prints the new one's id.
func (c *cli) replayExecution(ctx context.Context, id string) error {
	api, err := c.client()
	if err != nil {
		return err
	}
	newID, err := api.ReplayExecution(ctx, id)
	if err != nil {
		return err
	}
	if c.json {
		b, _ := json.Marshal(apiv1.ExecutionQueued{ExecutionID: newID, Queued: true})
		fmt.Fprintln(c.stdout, string(b))
		return nil
	}
	fmt.Fprintln(c.stdout, newID)
	return nil
}

// followExecutions prints each new execution of a workflow once, oldest
// first, until ctx ends. Executions are not streamed: it asks every
// half second.
func (c *cli) followExecutions(ctx context.Context, api *client.Client, id string, seen map[string]bool) error {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		xs, _, err := api.Executions(ctx, id, 100)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		for i := len(xs) - 1; i >= 0; i-- {
			if !seen[xs[i].ID] {
				seen[xs[i].ID] = true
				c.printExecution(xs[i])
			}
		}
	}
}

// printExecution prints one execution: its JSON with --json, its id with
// --quiet, else a line and a line per step.
func (c *cli) printExecution(x apiv1.ExecutionSummary) {
	switch {
	case c.json:
		b, _ := json.Marshal(x)
		fmt.Fprintln(c.stdout, string(b))
		return
	case c.quiet:
		fmt.Fprintln(c.stdout, x.ID)
		return
	}
	at := time.UnixMilli(x.StartedAtMs).Local().Format("15:04:05.000")
	line := fmt.Sprintf("%s %s %s %dms", at, x.ID, x.Status, x.DurationMs)
	if x.ExitReason != "" {
		line += " (" + x.ExitReason + ")"
	}
	fmt.Fprintln(c.stdout, line)
	for _, s := range x.Steps {
		detail := s.Summary
		if s.Error != "" {
			detail = s.Error
		}
		fmt.Fprintf(c.stdout, "  %-20s %-8s %5dms %s\n", s.Name, s.Status, s.DurationMs, detail)
	}
}

func runActionCommand() command {
	var props propsInput
	var stepsFile string
	return command{
		name: "run-action", summary: "Run an action once with props (and a steps context), and print what it returned, exported and logged.",
		usage: "<file> [--prop name=value]... [--props file.json] [--steps file.json]", example: "fount run-action ./actions/add.mjs --prop a=1 --prop b=2",
		flags: func(fs *flag.FlagSet) {
			props.register(fs)
			fs.StringVar(&stepsFile, "steps", "", `a JSON file of the steps context the action sees, e.g. {"trigger": {"event": {...}}}`)
		},
		run: func(ctx context.Context, c *cli, _ *flag.FlagSet, args []string) error {
			if len(args) != 1 {
				return usagef("run-action takes one file")
			}
			var steps map[string]json.RawMessage
			if stepsFile != "" {
				if err := readJSONFile(stepsFile, &steps); err != nil {
					return usagef("--steps: %v", err)
				}
			}
			api, err := c.client()
			if err != nil {
				return err
			}
			comp, b, err := c.saveFile(ctx, api, args[0], "", false)
			if err != nil {
				return err
			}
			values, err := props.build(c, comp.ConfigurableProps)
			if err != nil {
				return err
			}
			stop := c.spinner("running")
			res, raw, err := api.RunAction(ctx, apiv1.RunActionRequest{Code: b.Code, Props: values, Steps: steps})
			stop()
			if err != nil {
				return err
			}
			if c.json {
				c.printJSON(raw)
			} else {
				c.printActionRun(res)
			}
			if res.Status == "error" {
				return errActionFailed
			}
			return nil
		},
	}
}

// errActionFailed makes run-action exit 1 when the action threw; what it
// threw is already printed.
var errActionFailed = errors.New("the action failed")

func (c *cli) printActionRun(r apiv1.ActionRun) {
	fmt.Fprintf(c.stdout, "%s in %dms\n", r.Status, r.DurationMs)
	for _, l := range r.Logs {
		fmt.Fprintf(c.stdout, "log %s %s\n", l.Level, l.Text)
	}
	if r.Summary != "" {
		fmt.Fprintf(c.stdout, "$summary: %s\n", r.Summary)
	}
	if len(r.ReturnValue) > 0 {
		fmt.Fprintf(c.stdout, "$return_value: %s\n", r.ReturnValue)
	}
	for name, v := range r.Exports {
		fmt.Fprintf(c.stdout, "export %s: %s\n", name, v)
	}
	for _, e := range r.Emits {
		fmt.Fprintf(c.stdout, "emitted (not stored): %s\n", e)
	}
	for _, s := range r.Sends {
		fmt.Fprintf(c.stdout, "$.send.%s (not sent): %s %s\n", s.Kind, s.Method, s.URL)
	}
	if r.ExitReason != "" {
		fmt.Fprintf(c.stdout, "exited: %s\n", r.ExitReason)
	}
	if r.Error != nil {
		fmt.Fprintf(c.stdout, "error: %s: %s\n", r.Error.Name, r.Error.Message)
		if r.Error.Stack != "" {
			fmt.Fprintln(c.stdout, r.Error.Stack)
		}
	}
}

// devWorkflow deploys a workflow file, redeploys it whenever the file or
// one of its steps' files changes, and prints each execution until ctx
// ends. A workflow it created is deleted then, unless keep.
func (c *cli) devWorkflow(ctx context.Context, api *client.Client, path string, keep bool) error {
	w, created, _, err := c.deployWorkflowFile(ctx, api, path, "", false)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "dev: deployed workflow %s (%s)\n", w.Name, w.ID)
	if w.Trigger.EndpointURL != "" {
		fmt.Fprintf(c.stdout, "dev: http endpoint: %s\n", w.Trigger.EndpointURL)
	}
	defer func() {
		if keep || !created {
			fmt.Fprintf(c.stdout, "dev: keeping %s\n", w.ID)
			return
		}
		cleanup, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := api.DeleteWorkflow(cleanup, w.ID); err == nil {
			fmt.Fprintf(c.stdout, "dev: deleted %s\n", w.ID)
		}
	}()
	seen := map[string]bool{}
	if xs, _, err := api.Executions(ctx, w.ID, 1000); err == nil {
		for _, x := range xs {
			seen[x.ID] = true
		}
	}
	followCtx, stopFollowing := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.followExecutions(followCtx, api, w.ID, seen)
	}()
	defer func() {
		stopFollowing()
		<-done
	}()
	loaded, err := loadWorkflowFile(path, c.env.getenv)
	if err != nil {
		return err
	}
	inputs := loaded.inputs
	mtimes := fileTimes(inputs)
	tick := time.NewTicker(300 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		if now := fileTimes(inputs); sameTimes(now, mtimes) {
			continue
		}
		mtimes = fileTimes(inputs)
		if l, err := loadWorkflowFile(path, c.env.getenv); err == nil {
			inputs, mtimes = l.inputs, fileTimes(l.inputs)
		}
		if _, _, _, err := c.deployWorkflowFile(ctx, api, path, "", false); err != nil {
			if errors.Is(err, context.Canceled) {
				return nil
			}
			fmt.Fprintf(c.stdout, "dev: not redeployed: %s\n", explain(err, c))
			continue
		}
		fmt.Fprintf(c.stdout, "dev: redeployed workflow %s (%s)\n", w.Name, w.ID)
	}
}

func (c *cli) printWorkflowEndpoint(w apiv1.Workflow) error {
	if w.Trigger.EndpointURL == "" {
		return fmt.Errorf("workflow %s is triggered by %s, not HTTP: it has no endpoint", w.Name, w.Trigger.Type)
	}
	fmt.Fprintln(c.stdout, w.Trigger.EndpointURL)
	return nil
}
