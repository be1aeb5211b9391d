// node:wasi for fount: a component cannot run WebAssembly of its own.
import { unavailable } from "./unavailable.js";

const no = unavailable("wasi", "fount components cannot run WebAssembly");
export class WASI {
  constructor() {
    no("WASI")();
  }
}
export default { WASI };
