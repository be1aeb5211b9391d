// node:dgram for fount: UDP is not part of the egress policy, which is
// TCP (sockets, fetch) only.
import { unavailable } from "./unavailable.js";

const no = unavailable("dgram", "fount components cannot use UDP");
export const createSocket = no("createSocket");
export class Socket {
  constructor() {
    no("Socket")();
  }
}
export default { createSocket, Socket };
