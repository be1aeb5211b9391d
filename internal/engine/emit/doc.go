// Package emit turns what a run emitted and logged into the events its
// commit stores, for sources and workflows alike: the Collector gathers
// a run's emits and console lines as its sandbox sinks, within a Budget
// of channels per source and per run; the Pipeline orders them by ts,
// deduplicates them by the source's strategy, and adds an $errors event
// (ErrorEvent, its copies of the error and the triggering event capped)
// and $logs events. An emit with a future delivery_ts becomes a Delayed
// record on $in, which the engine releases when it is due.
//
// It does no I/O of its own: a Budget reads the channels a source has
// through the function it is given.
package emit
