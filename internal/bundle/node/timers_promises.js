// node:timers/promises for fount.
import timers from "timers";
export const setTimeout = timers.promises.setTimeout;
export const setImmediate = timers.promises.setImmediate;
export default timers.promises;
