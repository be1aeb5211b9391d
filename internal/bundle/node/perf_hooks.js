// node:perf_hooks for fount: performance.now() and marks and measures
// from the call's clock; no event loop or garbage collection figures.
const origin = Date.now();
const entries = [];
export const performance = {
  timeOrigin: origin,
  now: () => Date.now() - origin,
  mark(name, options = {}) {
    const e = { name, entryType: "mark", startTime: options.startTime ?? Date.now() - origin, duration: 0, detail: options.detail ?? null };
    entries.push(e);
    return e;
  },
  measure(name, start, end) {
    const at = (m, dflt) => {
      if (typeof m !== "string") return m === undefined || m === null ? dflt : m;
      for (let i = entries.length - 1; i >= 0; i--) if (entries[i].name === m) return entries[i].startTime;
      return dflt;
    };
    const s = at(typeof start === "object" && start ? start.start : start, 0);
    const f = at(typeof start === "object" && start ? start.end : end, Date.now() - origin);
    const e = { name, entryType: "measure", startTime: s, duration: f - s, detail: null };
    entries.push(e);
    return e;
  },
  getEntries: () => entries.slice(),
  getEntriesByName: (name, type) => entries.filter((e) => e.name === name && (!type || e.entryType === type)),
  getEntriesByType: (type) => entries.filter((e) => e.entryType === type),
  clearMarks: (name) => remove("mark", name),
  clearMeasures: (name) => remove("measure", name),
  toJSON: () => ({ timeOrigin: origin }),
};
function remove(type, name) {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i].entryType === type && (name === undefined || entries[i].name === name)) entries.splice(i, 1);
}
export class PerformanceObserver {
  constructor(cb) {
    this.cb = cb;
  }
  observe() {}
  disconnect() {}
  static get supportedEntryTypes() {
    return ["mark", "measure"];
  }
}
export const monitorEventLoopDelay = () => ({ enable() {}, disable() {}, reset() {}, percentile: () => 0, min: 0, max: 0, mean: 0, stddev: 0 });
export const createHistogram = monitorEventLoopDelay;
export const constants = {};
export default { performance, PerformanceObserver, monitorEventLoopDelay, createHistogram, constants };
