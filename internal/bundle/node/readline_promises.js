// node:readline/promises for fount: readline's Interface, whose question
// answers "" at once.
import { Interface as Base } from "readline";

export class Interface extends Base {
  question() {
    return Promise.resolve("");
  }
}
export const createInterface = (input, output, completer, terminal) => new Interface(input, output, completer, terminal);
export default { Interface, createInterface };
