// node:stream for fount: stream-browserify (over readable-stream), with
// Node's class relation restored: in Node, Readable, Writable, Duplex and
// Transform inherit from Stream, and libraries test `body instanceof
// Stream` (node-fetch, form-data); readable-stream's classes inherit from
// EventEmitter instead, so instanceof Stream looks at both.
var Stream = require("./vendor/stream-browserify-3.0.0/index.js");

// Stream's statics are EventEmitter's, as Node's Stream inherits them:
// stream.EventEmitter is EventEmitter (@redis/client extends it).
Object.setPrototypeOf(Stream, require("events"));

var ownInstanceOf = Function.prototype[Symbol.hasInstance];
Object.defineProperty(Stream, Symbol.hasInstance, {
  value: function (obj) {
    if (ownInstanceOf.call(this, obj)) return true;
    return this === Stream && (ownInstanceOf.call(Stream.Readable, obj) || ownInstanceOf.call(Stream.Writable, obj));
  },
});

// Readable.from of a string or a buffer gives it as one chunk, as Node's
// does; readable-stream's would iterate a buffer byte by byte.
var from = Stream.Readable.from;
Stream.Readable.from = function (iterable, opts) {
  if (typeof iterable === "string" || iterable instanceof Uint8Array) {
    var done = false;
    return new Stream.Readable(Object.assign({ objectMode: true }, opts, {
      read: function () {
        if (!done) {
          done = true;
          this.push(iterable);
        }
        this.push(null);
      },
    }));
  }
  return from.call(this, iterable, opts);
};

// Iterating a readable (for await) ends when the stream ends, even one
// that ended before the loop began, as in Node; readable-stream's
// iterator waits for an 'end' that already happened (got reads a
// response body that way).
Stream.Readable.prototype[Symbol.asyncIterator] = function () {
  var stream = this;
  var state = stream._readableState;
  var error = null;
  var ended = state.endEmitted;
  var wake = null;
  function notify() {
    if (wake) {
      var w = wake;
      wake = null;
      w();
    }
  }
  function onEnd() {
    ended = true;
    notify();
  }
  function onError(err) {
    error = err;
    notify();
  }
  stream.on("readable", notify);
  stream.on("end", onEnd);
  stream.on("close", onEnd);
  stream.on("error", onError);
  function cleanup() {
    stream.removeListener("readable", notify);
    stream.removeListener("end", onEnd);
    stream.removeListener("close", onEnd);
    stream.removeListener("error", onError);
  }
  var iterator = {
    next: function () {
      return new Promise(function pull(resolve, reject) {
        if (error) {
          cleanup();
          return reject(error);
        }
        var chunk = stream.destroyed ? null : stream.read();
        if (chunk !== null) return resolve({ value: chunk, done: false });
        if (ended || state.endEmitted || stream.destroyed) {
          cleanup();
          return resolve({ value: undefined, done: true });
        }
        wake = function () {
          pull(resolve, reject);
        };
      });
    },
    return: function () {
      cleanup();
      if (!state.endEmitted) stream.destroy();
      return Promise.resolve({ value: undefined, done: true });
    },
  };
  iterator[Symbol.asyncIterator] = function () {
    return iterator;
  };
  return iterator;
};

module.exports = Stream;
