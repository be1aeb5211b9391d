// node:inspector for fount: there is no inspector to open.
import { EventEmitter } from "events";
import { unavailable } from "./unavailable.js";

const no = unavailable("inspector", "fount components have no inspector");
export const open = no("open");
export const close = () => {}, url = () => undefined, waitForDebugger = no("waitForDebugger");
export const console = globalThis.console;
export class Session extends EventEmitter {
  connect() {
    no("Session.connect")();
  }
  post() {
    no("Session.post")();
  }
  disconnect() {}
}
export default { open, close, url, waitForDebugger, console, Session };
