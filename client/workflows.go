package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/fount-dev/fount/apiv1"
)

// CreateWorkflow deploys a workflow.
func (c *Client) CreateWorkflow(ctx context.Context, def apiv1.WorkflowDefinition, orgID string) (apiv1.Workflow, []byte, error) {
	var w apiv1.Workflow
	raw, err := c.Do(ctx, http.MethodPost, "/workflows", orgQuery(orgID), apiv1.CreateWorkflowRequest{WorkflowDefinition: def}, &w)
	return w, raw, err
}

// UpdateWorkflow replaces a workflow's definition.
func (c *Client) UpdateWorkflow(ctx context.Context, id string, def apiv1.WorkflowDefinition) (apiv1.Workflow, []byte, error) {
	var w apiv1.Workflow
	raw, err := c.Do(ctx, http.MethodPut, "/workflows/"+url.PathEscape(id), nil, apiv1.UpdateWorkflowRequest{WorkflowDefinition: def}, &w)
	return w, raw, err
}

// DeleteWorkflow deletes a workflow.
func (c *Client) DeleteWorkflow(ctx context.Context, id string) error {
	_, err := c.Do(ctx, http.MethodDelete, "/workflows/"+url.PathEscape(id), nil, nil, nil)
	return err
}

// Workflows lists every workflow of the caller (orgID "") or of an
// organization, in creation order.
func (c *Client) Workflows(ctx context.Context, orgID string) ([]apiv1.Workflow, error) {
	path := "/users/me/workflows"
	if orgID != "" {
		path = "/orgs/" + url.PathEscape(orgID) + "/workflows"
	}
	var all []apiv1.Workflow
	q := url.Values{"limit": {"100"}}
	for {
		var page []apiv1.Workflow
		raw, err := c.Do(ctx, http.MethodGet, path, q, nil, &page)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		var env apiv1.Page[apiv1.Workflow]
		_ = json.Unmarshal(raw, &env)
		if len(page) == 0 || env.PageInfo.EndCursor == "" {
			return all, nil
		}
		q.Set("after", env.PageInfo.EndCursor)
	}
}

// RunWorkflow queues a manual execution and returns its id.
func (c *Client) RunWorkflow(ctx context.Context, id string, event json.RawMessage) (string, error) {
	var q apiv1.ExecutionQueued
	_, err := c.Do(ctx, http.MethodPost, "/workflows/"+url.PathEscape(id)+"/run", nil, apiv1.RunWorkflowRequest{Event: event}, &q)
	return q.ExecutionID, err
}

// ReplayExecution queues a new execution with the trigger event of
// execution id, and returns the new one's id.
func (c *Client) ReplayExecution(ctx context.Context, id string) (string, error) {
	var q apiv1.ExecutionQueued
	_, err := c.Do(ctx, http.MethodPost, "/executions/"+url.PathEscape(id)+"/replay", nil, nil, &q)
	return q.ExecutionID, err
}

// Executions lists a workflow's newest n executions, newest first.
func (c *Client) Executions(ctx context.Context, id string, n int) ([]apiv1.ExecutionSummary, []byte, error) {
	var xs []apiv1.ExecutionSummary
	raw, err := c.Do(ctx, http.MethodGet, "/workflows/"+url.PathEscape(id)+"/executions", url.Values{"limit": {strconv.Itoa(n)}}, nil, &xs)
	return xs, raw, err
}

// Execution returns one execution with each step's values and logs.
func (c *Client) Execution(ctx context.Context, id string) (apiv1.Execution, []byte, error) {
	var x apiv1.Execution
	raw, err := c.Do(ctx, http.MethodGet, "/executions/"+url.PathEscape(id), nil, nil, &x)
	return x, raw, err
}

// RunAction runs an action once with props and a steps context.
func (c *Client) RunAction(ctx context.Context, req apiv1.RunActionRequest) (apiv1.ActionRun, []byte, error) {
	var out apiv1.ActionRun
	raw, err := c.Do(ctx, http.MethodPost, "/actions/run", nil, req, &out)
	return out, raw, err
}
