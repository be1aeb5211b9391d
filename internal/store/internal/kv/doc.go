// Package kv is the contract between fount's store and its engines: the
// transaction the store's rules are written against (Tx, Engine), the
// tables and lists those rules use and where each engine files them
// (layout.go), and what the engines share beneath the rules: keys,
// cursors and pages, event ids, the bounds of a listener's deliveries,
// and the store's errors.
//
// Only store and its engines (store/internal/bolt,
// store/internal/jetstream) import it; callers name these types through
// store's aliases.
package kv
