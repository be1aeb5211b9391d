// Package host runs guest code under wazero. It compiles the guest once per
// process, creates instances per source, implements the fount ABI imports,
// and enforces memory, time and size limits.
//
// Instances are never shared across sources. The host knows nothing about
// HTTP, users or storage: callers hand it capabilities per invocation.
package host
