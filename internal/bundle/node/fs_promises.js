// node:fs/promises for fount: the promise forms of fs.
import { promises } from "fs";
export const { readFile, writeFile, appendFile, mkdir, readdir, stat, lstat, unlink, rm, rmdir, rename, copyFile, mkdtemp, access } = promises;
export default promises;
