// node:diagnostics_channel for fount: named channels with subscribers,
// which libraries (undici, pino) publish to whether or not anyone listens.
const channels = new Map();

export class Channel {
  constructor(name) {
    this.name = name;
    this._subscribers = [];
  }
  get hasSubscribers() {
    return this._subscribers.length > 0;
  }
  subscribe(fn) {
    this._subscribers.push(fn);
  }
  unsubscribe(fn) {
    const i = this._subscribers.indexOf(fn);
    if (i < 0) return false;
    this._subscribers.splice(i, 1);
    return true;
  }
  publish(message) {
    for (const fn of this._subscribers.slice()) {
      try {
        fn(message, this.name);
      } catch (err) {
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }
  bindStore() {}
  unbindStore() {}
  runStores(data, fn, thisArg, ...args) {
    this.publish(data);
    return Reflect.apply(fn, thisArg, args);
  }
}

export function channel(name) {
  let c = channels.get(name);
  if (!c) channels.set(name, (c = new Channel(name)));
  return c;
}
export const hasSubscribers = (name) => channel(name).hasSubscribers;
export const subscribe = (name, fn) => channel(name).subscribe(fn);
export const unsubscribe = (name, fn) => channel(name).unsubscribe(fn);

export function tracingChannel(nameOrChannels) {
  const names = ["start", "end", "asyncStart", "asyncEnd", "error"];
  const t = {};
  for (const n of names) t[n] = typeof nameOrChannels === "string" ? channel("tracing:" + nameOrChannels + ":" + n) : nameOrChannels[n];
  return Object.assign(t, {
    get hasSubscribers() {
      return names.some((n) => t[n].hasSubscribers);
    },
    subscribe(handlers) {
      for (const n of names) if (handlers[n]) t[n].subscribe(handlers[n]);
    },
    unsubscribe(handlers) {
      for (const n of names) if (handlers[n]) t[n].unsubscribe(handlers[n]);
    },
    traceSync(fn, context = {}, thisArg, ...args) {
      t.start.publish(context);
      try {
        const r = Reflect.apply(fn, thisArg, args);
        context.result = r;
        return r;
      } catch (err) {
        context.error = err;
        t.error.publish(context);
        throw err;
      } finally {
        t.end.publish(context);
      }
    },
    tracePromise(fn, context = {}, thisArg, ...args) {
      t.start.publish(context);
      return Promise.resolve(Reflect.apply(fn, thisArg, args)).then(
        (r) => ((context.result = r), t.asyncEnd.publish(context), r),
        (err) => ((context.error = err), t.error.publish(context), t.asyncEnd.publish(context), Promise.reject(err)),
      );
    },
  });
}
export default { channel, hasSubscribers, subscribe, unsubscribe, tracingChannel, Channel };
