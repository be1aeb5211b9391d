// node:child_process for fount: it loads (nodemailer's sendmail transport
// requires it at load); a component cannot run processes.
import { unavailable } from "./unavailable.js";

const no = unavailable("child_process", "fount components cannot run processes");
export const exec = no("exec"), execSync = no("execSync"), execFile = no("execFile"), execFileSync = no("execFileSync"),
  spawn = no("spawn"), spawnSync = no("spawnSync"), fork = no("fork");
export class ChildProcess {
  constructor() {
    no("ChildProcess")();
  }
}
export default { exec, execSync, execFile, execFileSync, spawn, spawnSync, fork, ChildProcess };
