// node:cluster for fount: a component is the primary, and cannot fork.
import { EventEmitter } from "events";
import { unavailable } from "./unavailable.js";

const no = unavailable("cluster", "fount components cannot fork processes");
const cluster = new EventEmitter();
Object.assign(cluster, { isPrimary: true, isMaster: true, isWorker: false, workers: {}, settings: {}, SCHED_NONE: 1, SCHED_RR: 2,
  schedulingPolicy: 2, fork: no("fork"), setupPrimary: no("setupPrimary"), setupMaster: no("setupMaster"), disconnect: no("disconnect") });
export default cluster;
