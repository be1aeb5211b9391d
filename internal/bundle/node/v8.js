// node:v8 for fount: the engine is QuickJS, not V8; the heap figures are
// fixed, and nothing of the engine can be changed.
import { unavailable } from "./unavailable.js";

const no = unavailable("v8", "the engine is not V8");
export const getHeapStatistics = () => ({ total_heap_size: 0, total_heap_size_executable: 0, total_physical_size: 0,
  total_available_size: 0, used_heap_size: 0, heap_size_limit: 0, malloced_memory: 0, peak_malloced_memory: 0,
  does_zap_garbage: 0, number_of_native_contexts: 1, number_of_detached_contexts: 0 });
export const getHeapSpaceStatistics = () => [];
export const cachedDataVersionTag = () => 0;
export const setFlagsFromString = () => {};
export const serialize = no("serialize"), deserialize = no("deserialize"), getHeapSnapshot = no("getHeapSnapshot"),
  writeHeapSnapshot = no("writeHeapSnapshot");
export default { getHeapStatistics, getHeapSpaceStatistics, cachedDataVersionTag, setFlagsFromString, serialize, deserialize,
  getHeapSnapshot, writeHeapSnapshot };
