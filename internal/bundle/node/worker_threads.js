// node:worker_threads for fount: a component is its one main thread.
import { unavailable } from "./unavailable.js";

const no = unavailable("worker_threads", "fount components run on one thread");
export const isMainThread = true, parentPort = null, workerData = null, threadId = 0, resourceLimits = {}, SHARE_ENV = Symbol("SHARE_ENV");
export class Worker {
  constructor() {
    no("Worker")();
  }
}
export class MessageChannel {
  constructor() {
    no("MessageChannel")();
  }
}
export class BroadcastChannel {
  constructor() {
    no("BroadcastChannel")();
  }
}
export const markAsUntransferable = () => {}, getEnvironmentData = () => undefined, setEnvironmentData = () => {};
export const receiveMessageOnPort = () => undefined;
export default { isMainThread, parentPort, workerData, threadId, resourceLimits, SHARE_ENV, Worker, MessageChannel, BroadcastChannel,
  markAsUntransferable, getEnvironmentData, setEnvironmentData, receiveMessageOnPort };
