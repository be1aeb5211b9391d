// Package component is fount's component model: what a component is, as
// the specification defines it and as every other package sees it.
//
//   - Metadata and Prop describe a loaded component (what introspection
//     found, what the store keeps, what the API shows as
//     configurable_props). DecodeMetadata is the one decoder of the
//     guest's description; stored records decode into the same types.
//   - PropType names each prop type with its meaning; Prop.Check and
//     CheckTimer validate configured values against their prop.
//   - TimerSpec is a timer prop's schedule (cron or interval) and knows
//     when it fires next.
//   - EndpointToken is the unguessable last path segment of an HTTP
//     interface; the URL is derived from it and the server's public URL
//     whenever it is shown, never stored.
//
// The package does no I/O and holds no state. The guest's JavaScript
// prelude keeps copies of a few of these constants (prop types, hooks,
// dedupe strategies); TestPreludeMatchesGo in package guest checks them.
package component
