// node:readline for fount: createInterface reads lines from a stream
// (a file of /tmp, a response), with 'line' and 'close' events and async
// iteration. There is no terminal: question() and prompts answer nothing,
// and the cursor functions do nothing.
import { EventEmitter } from "events";

export class Interface extends EventEmitter {
  constructor(input, output, completer, terminal) {
    super();
    const options = input && typeof input.on === "function" ? { input, output, completer, terminal } : input || {};
    this.input = options.input;
    this.output = options.output;
    this.terminal = false;
    this.line = "";
    this.closed = false;
    this._crlfDelay = Math.max(100, Number(options.crlfDelay) || 100);
    this._buf = "";
    this._queue = [];
    this._waiters = [];
    this._paused = false;
    if (this.input) {
      if (typeof this.input.setEncoding === "function") this.input.setEncoding("utf8");
      this._onData = (d) => this._feed(String(d));
      this._onEnd = () => {
        if (this._buf.length > 0) this._emitLine(this._buf);
        this._buf = "";
        this.close();
      };
      this.input.on("data", this._onData);
      this.input.on("end", this._onEnd);
    }
  }
  _feed(s) {
    this._buf += s;
    let i;
    while ((i = this._buf.search(/\r\n|\n|\r/)) >= 0) {
      const sep = this._buf[i] === "\r" && this._buf[i + 1] === "\n" ? 2 : 1;
      const line = this._buf.slice(0, i);
      this._buf = this._buf.slice(i + sep);
      this._emitLine(line);
    }
  }
  _emitLine(line) {
    if (this._waiters.length > 0) this._waiters.shift()({ value: line, done: false });
    else if (this.listenerCount("line") === 0) this._queue.push(line);
    this.emit("line", line);
  }
  close() {
    if (this.closed) return;
    this.closed = true;
    if (this.input) {
      this.input.removeListener("data", this._onData);
      this.input.removeListener("end", this._onEnd);
    }
    this.emit("close");
    for (const w of this._waiters.splice(0)) w({ value: undefined, done: true });
  }
  pause() {
    this._paused = true;
    if (this.input && this.input.pause) this.input.pause();
    this.emit("pause");
    return this;
  }
  resume() {
    this._paused = false;
    if (this.input && this.input.resume) this.input.resume();
    this.emit("resume");
    return this;
  }
  question(query, options, cb) {
    if (typeof options === "function") cb = options;
    if (typeof cb === "function") setImmediate(() => cb(""));
  }
  setPrompt() {}
  getPrompt() {
    return "";
  }
  prompt() {}
  write() {}
  getCursorPos() {
    return { rows: 0, cols: 0 };
  }
  [Symbol.asyncIterator]() {
    return {
      next: () => {
        if (this._queue.length > 0) return Promise.resolve({ value: this._queue.shift(), done: false });
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => this._waiters.push(resolve));
      },
      return: () => {
        this.close();
        return Promise.resolve({ value: undefined, done: true });
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }
}

export const createInterface = (input, output, completer, terminal) => new Interface(input, output, completer, terminal);
export const clearLine = (s, d, cb) => (typeof cb === "function" && cb(), true);
export const clearScreenDown = (s, cb) => (typeof cb === "function" && cb(), true);
export const cursorTo = (s, x, y, cb) => (typeof (cb || y) === "function" && (cb || y)(), true);
export const moveCursor = (s, dx, dy, cb) => (typeof cb === "function" && cb(), true);
export const emitKeypressEvents = () => {};
export const promises = {
  Interface,
  createInterface,
};
export default { Interface, createInterface, clearLine, clearScreenDown, cursorTo, moveCursor, emitKeypressEvents, promises };
