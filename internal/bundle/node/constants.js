// node:constants for fount: Node's deprecated merge of os.constants and
// fs.constants.
import os from "os";
import fs from "fs";

export default Object.assign({}, os.constants.errno, os.constants.signals, fs.constants);
