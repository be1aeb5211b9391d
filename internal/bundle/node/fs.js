// node:fs for fount: a /tmp in memory, for one invocation. Pipedream gives
// components a writable /tmp; fount's lives in the instance's memory, is
// emptied at the start of every call (nothing is shared between
// invocations, sources or tenants), and holds at most MAX_BYTES. Every
// other path is refused, as a read-only file system would.
import { Buffer } from "buffer";

const MAX_BYTES = 16 << 20;
const CALL = Symbol.for("fount.call");
let seq = null;
let nodes = null; // absolute path -> { dir: true } | { data: Buffer, mtimeMs }
let used = 0;

function table() {
  const now = globalThis.process[CALL];
  if (nodes === null || now !== seq) {
    seq = now;
    nodes = new Map([["/tmp", { dir: true, mtimeMs: Date.now() }]]);
    used = 0;
  }
  return nodes;
}

function fsError(code, syscall, p, text) {
  const e = new Error(code + ": " + text + ", " + syscall + " '" + p + "'");
  e.code = code;
  e.errno = { EBADF: -9, ENOENT: -2, EEXIST: -17, ENOTDIR: -20, EISDIR: -21, ENOTEMPTY: -39, EACCES: -13, ENOSPC: -28 }[code];
  e.syscall = syscall;
  e.path = p;
  return e;
}

// resolve makes p absolute and normal, and refuses what is not under /tmp.
function resolve(p, syscall) {
  let s = p instanceof URL ? decodeURIComponent(p.pathname) : Buffer.isBuffer(p) ? p.toString() : String(p);
  if (!s.startsWith("/")) s = "/tmp/" + s;
  const parts = [];
  for (const part of s.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  const abs = "/" + parts.join("/");
  if (abs !== "/tmp" && !abs.startsWith("/tmp/")) throw fsError("EACCES", syscall, s, "permission denied (fount components may only use /tmp)");
  return abs;
}

const parent = (p) => p.slice(0, p.lastIndexOf("/")) || "/";
const encodingOf = (o) => (typeof o === "string" ? o : o && o.encoding ? o.encoding : null);
function toBuffer(data, enc) {
  if (Buffer.isBuffer(data)) return Buffer.from(data);
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(String(data), enc || "utf8");
}

function fileFor(p, syscall) {
  const n = table().get(p);
  if (!n) throw fsError("ENOENT", syscall, p, "no such file or directory");
  return n;
}

function put(p, data, syscall) {
  const t = table();
  const dir = t.get(parent(p));
  if (!dir) throw fsError("ENOENT", syscall, p, "no such file or directory");
  if (!dir.dir) throw fsError("ENOTDIR", syscall, p, "not a directory");
  const old = t.get(p);
  if (old && old.dir) throw fsError("EISDIR", syscall, p, "illegal operation on a directory");
  const grow = data.length - (old ? old.data.length : 0);
  if (used + grow > MAX_BYTES) throw fsError("ENOSPC", syscall, p, "no space left on device (fount's /tmp holds " + (MAX_BYTES >> 20) + " MiB)");
  used += grow;
  t.set(p, { data, mtimeMs: Date.now() });
}

class Stats {
  constructor(n) {
    this.size = n.dir ? 4096 : n.data.length;
    this.mtimeMs = n.mtimeMs;
    this.mtime = new Date(n.mtimeMs);
    this.mode = n.dir ? 0o40755 : 0o100644;
    this._dir = Boolean(n.dir);
  }
  isFile() {
    return !this._dir;
  }
  isDirectory() {
    return this._dir;
  }
  isSymbolicLink() {
    return false;
  }
}

export function existsSync(p) {
  try {
    return table().has(resolve(p, "access"));
  } catch {
    return false;
  }
}
export function readFileSync(p, options) {
  const abs = resolve(p, "open");
  const n = fileFor(abs, "open");
  if (n.dir) throw fsError("EISDIR", "read", abs, "illegal operation on a directory");
  const enc = encodingOf(options);
  return enc ? n.data.toString(enc) : Buffer.from(n.data);
}
export function writeFileSync(p, data, options) {
  const abs = resolve(p, "open");
  put(abs, toBuffer(data, encodingOf(options)), "open");
}
export function appendFileSync(p, data, options) {
  const abs = resolve(p, "open");
  const old = table().get(abs);
  put(abs, Buffer.concat([old && !old.dir ? old.data : Buffer.alloc(0), toBuffer(data, encodingOf(options))]), "open");
}
export function mkdirSync(p, options) {
  const abs = resolve(p, "mkdir");
  const t = table();
  const recursive = Boolean(options && options.recursive);
  if (t.has(abs)) {
    if (recursive && t.get(abs).dir) return undefined;
    throw fsError("EEXIST", "mkdir", abs, "file already exists");
  }
  if (!t.has(parent(abs))) {
    if (!recursive) throw fsError("ENOENT", "mkdir", abs, "no such file or directory");
    mkdirSync(parent(abs), options);
  }
  t.set(abs, { dir: true, mtimeMs: Date.now() });
  return recursive ? abs : undefined;
}
export function readdirSync(p) {
  const abs = resolve(p, "scandir");
  const n = fileFor(abs, "scandir");
  if (!n.dir) throw fsError("ENOTDIR", "scandir", abs, "not a directory");
  const out = [];
  for (const k of table().keys()) if (parent(k) === abs && k !== abs) out.push(k.slice(abs.length + 1));
  return out.sort();
}
export function statSync(p) {
  const abs = resolve(p, "stat");
  return new Stats(fileFor(abs, "stat"));
}
export const lstatSync = statSync;
export function unlinkSync(p) {
  const abs = resolve(p, "unlink");
  const n = fileFor(abs, "unlink");
  if (n.dir) throw fsError("EISDIR", "unlink", abs, "illegal operation on a directory");
  used -= n.data.length;
  table().delete(abs);
}
export function rmSync(p, options) {
  const abs = resolve(p, "rm");
  const t = table();
  const n = t.get(abs);
  if (!n) {
    if (options && options.force) return;
    throw fsError("ENOENT", "rm", abs, "no such file or directory");
  }
  if (n.dir && !(options && options.recursive)) throw fsError("EISDIR", "rm", abs, "illegal operation on a directory");
  for (const [k, v] of [...t]) {
    if (k === abs || k.startsWith(abs + "/")) {
      if (!v.dir) used -= v.data.length;
      if (k !== "/tmp") t.delete(k);
    }
  }
}
export function rmdirSync(p) {
  const abs = resolve(p, "rmdir");
  if (readdirSync(abs).length > 0) throw fsError("ENOTEMPTY", "rmdir", abs, "directory not empty");
  if (abs !== "/tmp") table().delete(abs);
}
export function renameSync(from, to) {
  const a = resolve(from, "rename"), b = resolve(to, "rename");
  const n = fileFor(a, "rename");
  const t = table();
  if (!t.has(parent(b))) throw fsError("ENOENT", "rename", b, "no such file or directory");
  const old = t.get(b);
  if (old && !old.dir) used -= old.data.length;
  t.delete(a);
  t.set(b, n);
}
export function copyFileSync(from, to) {
  writeFileSync(to, readFileSync(from));
}
export function mkdtempSync(prefix) {
  const base = resolve(prefix, "mkdtemp");
  for (;;) {
    const p = base + Math.random().toString(36).slice(2, 8);
    if (!table().has(p)) {
      mkdirSync(p);
      return p;
    }
  }
}
export function accessSync(p) {
  fileFor(resolve(p, "access"), "access");
}

// ---- file descriptors: numbers from 3, for one call, as the files ----
let fds = null;
let fdCall = null;
function fdTable() {
  const now = globalThis.process[CALL];
  if (fds === null || fdCall !== now) {
    fdCall = now;
    fds = { next: 3, open: new Map() };
  }
  return fds;
}
function fdEntry(fd, syscall) {
  const e = fdTable().open.get(fd);
  if (!e) {
    const err = fsError("EBADF", syscall, "", "bad file descriptor");
    delete err.path;
    err.message = "EBADF: bad file descriptor, " + syscall;
    throw err;
  }
  return e;
}
export function openSync(p, flags = "r") {
  const abs = resolve(p, "open");
  const f = String(flags);
  const t = table();
  const n = t.get(abs);
  if (/x/.test(f) && n) throw fsError("EEXIST", "open", abs, "file already exists");
  if (/^[wa]/.test(f)) {
    if (n && n.dir) throw fsError("EISDIR", "open", abs, "illegal operation on a directory");
    if (!n || f[0] === "w") put(abs, Buffer.alloc(0), "open");
  } else if (!n) throw fsError("ENOENT", "open", abs, "no such file or directory");
  const table_ = fdTable();
  const fd = table_.next++;
  table_.open.set(fd, { path: abs, pos: 0, append: f[0] === "a", write: f[0] !== "r" || f.includes("+"), read: f[0] === "r" || f.includes("+") });
  return fd;
}
export function closeSync(fd) {
  fdEntry(fd, "close");
  fdTable().open.delete(fd);
}
export function fstatSync(fd) {
  return new Stats(fileFor(fdEntry(fd, "fstat").path, "fstat"));
}
export function readSync(fd, buffer, offset = 0, length, position) {
  if (offset && typeof offset === "object") ({ offset = 0, length, position } = offset);
  const e = fdEntry(fd, "read");
  const n = fileFor(e.path, "read");
  if (n.dir) throw fsError("EISDIR", "read", e.path, "illegal operation on a directory");
  const from = position === null || position === undefined ? e.pos : Number(position);
  const count = Math.max(0, Math.min(length === undefined ? buffer.length - offset : length, n.data.length - from));
  n.data.copy(buffer, offset, from, from + count);
  if (position === null || position === undefined) e.pos += count;
  return count;
}
export function writeSync(fd, data, offsetOrPosition, lengthOrEncoding, position) {
  const e = fdEntry(fd, "write");
  if (!e.write) throw fsError("EBADF", "write", e.path, "bad file descriptor");
  let chunk, pos;
  if (typeof data === "string") {
    chunk = Buffer.from(data, typeof lengthOrEncoding === "string" ? lengthOrEncoding : "utf8");
    pos = offsetOrPosition;
  } else {
    const b = toBuffer(data);
    const off = offsetOrPosition || 0;
    chunk = b.subarray(off, lengthOrEncoding === undefined ? b.length : off + lengthOrEncoding);
    pos = position;
  }
  const n = fileFor(e.path, "write");
  const at = e.append ? n.data.length : pos === null || pos === undefined ? e.pos : Number(pos);
  const next = Buffer.alloc(Math.max(n.data.length, at + chunk.length));
  n.data.copy(next);
  chunk.copy(next, at);
  put(e.path, next, "write");
  if (!e.append && (pos === null || pos === undefined)) e.pos = at + chunk.length;
  return chunk.length;
}

// ---- streams --------------------------------------------------------
// They need the stream module, about 125 KB of code that doubles the
// memory of a component that only reads a file. So fs_streams.js holds
// them, and the bundler adds it only to code that names them (see
// bundle.fsStreamUse); it registers itself here.
const STREAMS = Symbol.for("fount.fs.streams");
const READ = Symbol.for("fount.fs.ReadStream"), WRITE = Symbol.for("fount.fs.WriteStream");
function streams(name) {
  const s = globalThis[STREAMS];
  if (!s) throw new Error("fs." + name + " is not in this bundle: fount adds fs's streams to code that names them (fs.createReadStream, fs.createWriteStream, fs.ReadStream, fs.WriteStream)");
  return s;
}
export function createReadStream(p, options) {
  return new (streams("createReadStream").ReadStream)(p, options);
}
export function createWriteStream(p, options) {
  return new (streams("createWriteStream").WriteStream)(p, options);
}
// ReadStream and WriteStream answer instanceof for the streams above.
export function ReadStream(p, options) {
  return createReadStream(p, options);
}
Object.defineProperty(ReadStream, Symbol.hasInstance, { value: (x) => Boolean(x && x[READ]) });
export function WriteStream(p, options) {
  return createWriteStream(p, options);
}
Object.defineProperty(WriteStream, Symbol.hasInstance, { value: (x) => Boolean(x && x[WRITE]) });

// The promise and callback forms, over the synchronous ones.
const sync = { readFile: readFileSync, writeFile: writeFileSync, appendFile: appendFileSync, mkdir: mkdirSync,
  readdir: readdirSync, stat: statSync, lstat: lstatSync, unlink: unlinkSync, rm: rmSync, rmdir: rmdirSync,
  rename: renameSync, copyFile: copyFileSync, mkdtemp: mkdtempSync, access: accessSync, open: openSync,
  close: closeSync, fstat: fstatSync };
export const promises = {};
const callbacks = {};
for (const [name, fn] of Object.entries(sync)) {
  promises[name] = (...args) => new Promise((resolve, reject) => {
    try {
      resolve(fn(...args));
    } catch (e) {
      reject(e);
    }
  });
  callbacks[name] = (...args) => {
    const cb = args.pop();
    let out, err = null;
    try {
      out = fn(...args);
    } catch (e) {
      err = e;
    }
    queueMicrotask(() => cb(err, out));
  };
}
export const { readFile, writeFile, appendFile, mkdir, readdir, stat, lstat, unlink, rm, rmdir, rename, copyFile, mkdtemp, access,
  open, close, fstat } = callbacks;
export function exists(p, cb) {
  const v = existsSync(p);
  queueMicrotask(() => cb(v));
}
export const constants = { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1, O_RDONLY: 0, O_WRONLY: 1, O_RDWR: 2, S_IFMT: 61440, S_IFREG: 32768,
  S_IFDIR: 16384, S_IFCHR: 8192, S_IFBLK: 24576, S_IFIFO: 4096, S_IFLNK: 40960, S_IFSOCK: 49152, O_CREAT: 64, O_EXCL: 128,
  O_NOCTTY: 256, O_TRUNC: 512, O_APPEND: 1024, O_DIRECTORY: 65536, O_NOATIME: 262144, O_NOFOLLOW: 131072, O_SYNC: 1052672,
  O_DSYNC: 4096, O_DIRECT: 16384, O_NONBLOCK: 2048, COPYFILE_EXCL: 1, COPYFILE_FICLONE: 2, COPYFILE_FICLONE_FORCE: 4 };

export default { existsSync, readFileSync, writeFileSync, appendFileSync, mkdirSync, readdirSync, statSync, lstatSync,
  unlinkSync, rmSync, rmdirSync, renameSync, copyFileSync, mkdtempSync, accessSync, openSync, closeSync, fstatSync,
  readSync, writeSync, createReadStream, createWriteStream, ReadStream, WriteStream, promises, constants, exists,
  ...callbacks };
