package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/internal/bundle"
)

// workflowFile is a workflow as a file defines it, in YAML (JSON is YAML
// too). Step files are relative to the workflow file.
//
//	name: greeter
//	trigger: { type: http }          # http (respond: true), timer (timer: {intervalSeconds: 60}),
//	                                 # source (source: NAME or emitter_id: dc_..., event_name), manual
//	steps:
//	  - name: parse
//	    code: ./parse.mjs            # a code step: export default defineComponent({...})
//	  - name: greet
//	    action: ./greet.mjs          # an action (type: "action"); or key: a published action
//	    props: { who: "{{steps.parse.$return_value.name}}" }
type workflowFile struct {
	Name        string        `yaml:"name"`
	Active      *bool         `yaml:"active"`
	Trigger     fileTrigger   `yaml:"trigger"`
	Steps       []fileStep    `yaml:"steps"`
	Throttle    *fileThrottle `yaml:"throttle"`
	Concurrency int           `yaml:"concurrency"`
	QueueSize   int           `yaml:"queue_size"`
	Retry       *struct {
		Attempts int `yaml:"attempts"`
	} `yaml:"retry"`
}

type fileThrottle struct {
	Limit           int `yaml:"limit"`
	IntervalSeconds int `yaml:"interval_seconds"`
}

type fileTrigger struct {
	Type      string         `yaml:"type"`
	Respond   bool           `yaml:"respond"`
	TokenEnv  string         `yaml:"token_env"` // the environment variable holding the bearer token, kept out of the file
	Timer     map[string]any `yaml:"timer"`
	Source    string         `yaml:"source"` // a source's name or id; the CLI finds its id
	EmitterID string         `yaml:"emitter_id"`
	EventName string         `yaml:"event_name"`
}

type fileStep struct {
	Name   string         `yaml:"name"`
	Code   string         `yaml:"code"`
	Action string         `yaml:"action"`
	Key    string         `yaml:"key"`
	Props  map[string]any `yaml:"props"`
}

// isWorkflowFile reports whether path names a workflow definition rather
// than a component: by its extension.
func isWorkflowFile(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// loadedWorkflow is a workflow file with its steps bundled.
type loadedWorkflow struct {
	def    apiv1.WorkflowDefinition
	source string   // trigger.source, to resolve to an id
	inputs []string // every local file it was built from, for watching
}

// loadWorkflowFile reads and checks a workflow file and bundles each
// step's file; getenv reads the environment (trigger.token_env). Errors
// name the step at fault.
func loadWorkflowFile(path string, getenv func(string) string) (loadedWorkflow, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return loadedWorkflow{}, usagef("read %s: %v", path, err)
	}
	var f workflowFile
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return loadedWorkflow{}, usagef("%s is not a workflow definition: %v", path, err)
	}
	if strings.TrimSpace(f.Name) == "" {
		return loadedWorkflow{}, usagef("%s: the workflow needs a name", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return loadedWorkflow{}, err
	}
	out := loadedWorkflow{source: f.Trigger.Source, inputs: []string{abs}}
	out.def = apiv1.WorkflowDefinition{Name: f.Name, Active: f.Active, Trigger: apiv1.TriggerSpec{
		Type: f.Trigger.Type, Respond: f.Trigger.Respond, EmitterID: f.Trigger.EmitterID, EventName: f.Trigger.EventName,
	}}
	if f.Trigger.Timer != nil {
		out.def.Trigger.Timer, _ = json.Marshal(f.Trigger.Timer)
	}
	if t := f.Throttle; t != nil {
		out.def.Throttle = &apiv1.Throttle{Limit: t.Limit, IntervalSeconds: t.IntervalSeconds}
	}
	out.def.Concurrency, out.def.QueueSize = f.Concurrency, f.QueueSize
	if r := f.Retry; r != nil {
		out.def.Retry = &apiv1.Retry{Attempts: r.Attempts}
	}
	if name := f.Trigger.TokenEnv; name != "" {
		if out.def.Trigger.Token = getenv(name); out.def.Trigger.Token == "" {
			return loadedWorkflow{}, usagef("%s: trigger.token_env names %s, which is not set in the environment", path, name)
		}
	}
	if f.Trigger.Source != "" && f.Trigger.EmitterID != "" {
		return loadedWorkflow{}, usagef("%s: the trigger has both source and emitter_id; give one", path)
	}
	dir := filepath.Dir(abs)
	for i, st := range f.Steps {
		step, inputs, err := loadStep(dir, st)
		if err != nil {
			return loadedWorkflow{}, usagef("%s: step %d (%s): %v", path, i+1, orDash(st.Name), err)
		}
		out.def.Steps = append(out.def.Steps, step)
		out.inputs = append(out.inputs, inputs...)
	}
	return out, nil
}

// loadStep bundles one step's file.
func loadStep(dir string, st fileStep) (apiv1.StepSpec, []string, error) {
	step := apiv1.StepSpec{Name: st.Name, Key: st.Key}
	given := 0
	for _, v := range []string{st.Code, st.Action, st.Key} {
		if v != "" {
			given++
		}
	}
	if given != 1 {
		return step, nil, errors.New("give exactly one of code (a file), action (a file) or key (a published action)")
	}
	for name, v := range st.Props {
		b, err := json.Marshal(v)
		if err != nil {
			return step, nil, fmt.Errorf("prop %s: %v", name, err)
		}
		if step.Props == nil {
			step.Props = map[string]json.RawMessage{}
		}
		step.Props[name] = b
	}
	if st.Key != "" {
		step.Kind = "action"
		return step, nil, nil
	}
	file, kind := st.Code, "code"
	if st.Action != "" {
		file, kind = st.Action, "action"
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	b, err := bundle.File(file)
	if err != nil {
		return step, nil, fmt.Errorf("cannot bundle %s:\n%v", file, err)
	}
	step.Kind, step.Code, step.SourceMap = kind, b.Code, b.SourceMap
	return step, b.Inputs, nil
}
