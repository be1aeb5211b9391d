package api

import (
	"encoding/json"
	"slices"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/secret"
)

// viewSource shows a source: secrets redacted, each HTTP interface as its
// endpoint URL under the server's current public URL.
func (s *Server) viewSource(src model.Source) apiv1.Source {
	props := make(map[string]json.RawMessage, len(src.ConfiguredProps)+len(src.Endpoints))
	for name, raw := range src.ConfiguredProps {
		if slices.Contains(src.SecretProps, name) {
			raw = json.RawMessage(`"` + secret.Marker + `"`)
		}
		props[name] = raw
	}
	for name, tok := range src.Endpoints {
		props[name], _ = json.Marshal(map[string]string{"endpoint_url": tok.URL(s.publicURL)})
	}
	out := apiv1.Source{
		ID: src.ID, UserID: src.UserID, ComponentID: src.ComponentID, ConfiguredProps: props, Active: src.Active,
		CreatedAt: src.CreatedAt, UpdatedAt: src.UpdatedAt, Name: src.Name, NameSlug: src.NameSlug, QueueSize: src.QueueSize,
	}
	out.Throttle = viewControls(src.Controls).Throttle
	return out
}

func viewProps(in []component.Prop) []apiv1.Prop {
	props := make([]apiv1.Prop, 0, len(in))
	for _, p := range in {
		props = append(props, apiv1.Prop{
			Name: p.Name, Type: string(p.Type), Label: p.Label, Description: p.Description, Optional: p.Optional,
			Default: p.Default, Secret: p.Secret, Min: p.Min, Max: p.Max, Options: p.Options, RemoteOptions: p.RemoteOptions,
			ReloadProps: p.ReloadProps, PropDefinition: p.PropDefinition, App: p.App, CustomResponse: p.CustomResponse,
			AlertType: p.AlertType, Content: p.Content,
		})
	}
	return props
}

func viewComponent(c model.Component) apiv1.Component {
	return apiv1.Component{
		ID: c.ID, Key: c.Key, Code: c.Code, CodeHash: c.CodeHash, Name: c.Name, Version: c.Version, Type: c.Metadata.Type,
		ConfigurableProps: viewProps(c.Metadata.ConfigurableProps), Packages: viewPackages(c.Packages), CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
	}
}

func viewWebhook(h model.Webhook) apiv1.Webhook {
	return apiv1.Webhook{ID: h.ID, Name: h.Name, Description: h.Description, URL: h.URL, Active: h.Active, DisabledReason: h.DisabledReason,
		CreatedAt: h.CreatedAt, UpdatedAt: h.UpdatedAt}
}

func viewSubscription(sub model.Subscription) apiv1.Subscription {
	return apiv1.Subscription{ID: sub.ID, EmitterID: sub.EmitterID, ListenerID: sub.ListenerID, EventName: sub.EventName}
}

func viewOrg(o model.Org) apiv1.Org {
	return apiv1.Org{ID: o.ID, Orgname: o.Orgname, Name: o.Name, Email: o.Email, Members: o.Members}
}

func viewDelivery(d model.Delivery) apiv1.Delivery {
	v := apiv1.Delivery{ID: d.ID, EventID: d.EventID, EmitterID: d.EmitterID, EventName: d.Channel, Status: d.Status,
		Attempts: make([]apiv1.Attempt, 0, len(d.Attempts)), CreatedAtMs: d.CreatedAtMs}
	for _, a := range d.Attempts {
		v.Attempts = append(v.Attempts, apiv1.Attempt{AtMs: a.AtMs, Status: a.Status, Error: a.Error, DurationMs: a.DurationMs})
	}
	if d.Status == model.DeliveryPending {
		next := d.NextAttemptMs
		v.NextAttempt = &next
	}
	return v
}

// viewAll applies view to every item.
func viewAll[T, V any](items []T, view func(T) V) []V {
	out := make([]V, 0, len(items))
	for _, it := range items {
		out = append(out, view(it))
	}
	return out
}

func viewPackages(ps []model.Package) []apiv1.Package {
	var out []apiv1.Package
	for _, p := range ps {
		out = append(out, apiv1.Package{Name: p.Name, Version: p.Version, Integrity: p.Integrity})
	}
	return out
}
