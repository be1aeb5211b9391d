// fs's streams for fount, over the file descriptors of fs.js: the
// bundler adds this module to code that names them, and it registers its
// classes with fs.js (which see).
import { Readable, Writable } from "stream";
import { Buffer } from "buffer";
import { openSync, closeSync, readSync, writeSync } from "./fs.js";

const READ = Symbol.for("fount.fs.ReadStream"), WRITE = Symbol.for("fount.fs.WriteStream");

function closeFd(stream) {
  if (stream.fd !== null && stream.autoClose) {
    try {
      closeSync(stream.fd);
    } catch {
      // already closed
    }
    stream.fd = null;
  }
}

class ReadStream extends Readable {
  #pos;
  constructor(p, options) {
    const o = typeof options === "string" ? { encoding: options } : Object.assign({}, options);
    super({ highWaterMark: o.highWaterMark || 65536, encoding: o.encoding });
    this[READ] = true;
    this.path = p;
    this.bytesRead = 0;
    this.pending = true;
    this.fd = o.fd === undefined ? null : o.fd;
    this.flags = o.flags || "r";
    this.start = o.start;
    this.end = o.end;
    this.autoClose = o.autoClose !== false;
    this.#pos = o.start || 0;
    queueMicrotask(() => this.#open());
  }
  #open() {
    if (this.destroyed) return;
    try {
      if (this.fd === null) this.fd = openSync(this.path, this.flags);
    } catch (e) {
      this.destroy(e);
      return;
    }
    this.pending = false;
    this.emit("open", this.fd);
    this.emit("ready");
  }
  _read(size) {
    if (this.pending) {
      this.once("ready", () => this._read(size));
      return;
    }
    const last = this.end === undefined ? Infinity : this.end + 1;
    const want = Math.max(0, Math.min(size, last - this.#pos));
    const buf = Buffer.alloc(want);
    let n;
    try {
      n = want === 0 ? 0 : readSync(this.fd, buf, 0, want, this.#pos);
    } catch (e) {
      this.destroy(e);
      return;
    }
    this.#pos += n;
    this.bytesRead += n;
    this.push(n > 0 ? buf.subarray(0, n) : null);
  }
  _destroy(err, cb) {
    closeFd(this);
    cb(err);
  }
  close(cb) {
    this.destroy();
    if (cb) this.once("close", cb);
  }
}

class WriteStream extends Writable {
  constructor(p, options) {
    const o = typeof options === "string" ? { encoding: options } : Object.assign({}, options);
    super({ highWaterMark: o.highWaterMark || 16384, decodeStrings: true });
    this[WRITE] = true;
    this.path = p;
    this.bytesWritten = 0;
    this.pending = true;
    this.flags = o.flags || "w";
    this.fd = o.fd === undefined ? null : o.fd;
    this.autoClose = o.autoClose !== false;
    queueMicrotask(() => {
      if (this.destroyed) return;
      try {
        if (this.fd === null) this.fd = openSync(this.path, this.flags);
      } catch (e) {
        this.destroy(e);
        return;
      }
      this.pending = false;
      this.emit("open", this.fd);
      this.emit("ready");
    });
  }
  _write(chunk, enc, cb) {
    if (this.pending) {
      this.once("ready", () => this._write(chunk, enc, cb));
      return;
    }
    try {
      this.bytesWritten += writeSync(this.fd, chunk);
      cb();
    } catch (e) {
      cb(e);
    }
  }
  _destroy(err, cb) {
    closeFd(this);
    cb(err);
  }
  close(cb) {
    this.end();
    if (cb) this.once("close", cb);
  }
}

globalThis[Symbol.for("fount.fs.streams")] = { ReadStream, WriteStream };
