// fount's Intl: the ECMA-402 global Node has and this QuickJS lacks, for
// one locale (en-US, which every locale asked for resolves to), in any
// time zone of the host's zone database (the tz import; UTC, fount's own
// zone, by default). Libraries name Intl at load (got's @sindresorhus/is
// makes ListFormats) and format dates and numbers with it. Evaluated,
// like the web globals, only for code that names Intl.
(function () {
  "use strict";

  const LOCALE = "en-US";
  const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
    "December"];
  const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

  function define(name, value) {
    Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
  }

  function canonicalLocales(locales) {
    if (locales === undefined) return [];
    const list = typeof locales === "string" || locales instanceof Locale ? [locales] : Array.from(locales);
    const out = [];
    for (const l of list) {
      const tag = String(l instanceof Locale ? l.toString() : l);
      if (!/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(tag)) throw new RangeError("Incorrect locale information provided");
      const parts = tag.split("-");
      const canon = parts.map((p, i) => (i === 0 ? p.toLowerCase() : p.length === 2 ? p.toUpperCase() : p.length === 4 ? p[0].toUpperCase() +
        p.slice(1).toLowerCase() : p.toLowerCase())).join("-");
      if (!out.includes(canon)) out.push(canon);
    }
    return out;
  }

  function option(options, name, allowed, fallback) {
    const v = options[name];
    if (v === undefined) return fallback;
    const s = String(v);
    if (allowed && !allowed.includes(s)) throw new RangeError("Value " + s + " out of range for Intl options property " + name);
    return s;
  }

  const hostTZ = globalThis.process[Symbol.for("fount.tz")];
  function checkTimeZone(tz) {
    if (tz === undefined) return "UTC";
    const s = String(tz);
    if (/^(etc\/)?(utc|gmt|uct|zulu|universal|greenwich)$/i.test(s) || /^etc\/gmt[+-]?0$/i.test(s)) return "UTC";
    const r = /^[A-Za-z][A-Za-z0-9_+\-]*(\/[A-Za-z0-9_+\-]+){0,2}$/.test(s) && s.length <= 64 ? hostTZ(s, []) : { error: "bad name" };
    if (r.error) throw new RangeError("Invalid time zone specified: " + s);
    return String(r.zone);
  }

  // zoneAt is where an instant stands in a zone: its offset from UTC in
  // minutes and the zone's abbreviation then.
  function zoneAt(zone, t) {
    if (zone === "UTC") return { offset: 0, abbreviation: "UTC" };
    const r = hostTZ(zone, [t]);
    return { offset: Number(r.offsets ? r.offsets[0] : 0) || 0, abbreviation: String(r.abbreviations ? r.abbreviations[0] : "") };
  }

  // US zones have names of their own in en-US (EST, Pacific Daylight
  // Time); elsewhere ICU's English names an offset from GMT.
  const US_NAMES = { EST: "Eastern Standard Time", EDT: "Eastern Daylight Time", CST: "Central Standard Time",
    CDT: "Central Daylight Time", MST: "Mountain Standard Time", MDT: "Mountain Daylight Time", PST: "Pacific Standard Time",
    PDT: "Pacific Daylight Time", AKST: "Alaska Standard Time", AKDT: "Alaska Daylight Time", HST: "Hawaii-Aleutian Standard Time",
    HDT: "Hawaii-Aleutian Daylight Time" };
  function gmtOffset(minutes, long) {
    if (minutes === 0) return "GMT";
    const sign = minutes < 0 ? "-" : "+", m = Math.abs(minutes), h = Math.floor(m / 60), rest = m % 60;
    if (long) return "GMT" + sign + pad(h, 2) + ":" + pad(rest, 2);
    return "GMT" + sign + h + (rest ? ":" + pad(rest, 2) : "");
  }
  function zoneName(style, zone, at) {
    if (zone === "UTC") return { short: "UTC", long: "Coordinated Universal Time", shortOffset: "GMT", longOffset: "GMT" }[style];
    const us = US_NAMES[at.abbreviation] && /^(America|US|Pacific\/Honolulu)/.test(zone);
    if (style === "short" && us) return at.abbreviation;
    if (style === "long" && us) return US_NAMES[at.abbreviation];
    return gmtOffset(at.offset, style === "long" || style === "longOffset");
  }

  class Locale {
    #tag;
    constructor(tag, options = {}) {
      this.#tag = canonicalLocales(String(tag))[0];
      if (options.region) this.#tag = this.#tag.split("-")[0] + "-" + String(options.region).toUpperCase();
    }
    get baseName() {
      return this.#tag;
    }
    get language() {
      return this.#tag.split("-")[0];
    }
    get region() {
      return this.#tag.split("-").find((p, i) => i > 0 && p.length === 2);
    }
    maximize() {
      return this;
    }
    minimize() {
      return this;
    }
    toString() {
      return this.#tag;
    }
  }

  // ---- dates ---------------------------------------------------------
  const pad = (n, w) => String(n).padStart(w, "0");

  class DateTimeFormat {
    #o;
    constructor(locales, options = {}) {
      canonicalLocales(locales);
      options = options === undefined ? {} : Object(options);
      const o = { locale: LOCALE, calendar: "gregory", numberingSystem: "latn", timeZone: checkTimeZone(options.timeZone) };
      const dateStyle = option(options, "dateStyle", ["full", "long", "medium", "short"]);
      const timeStyle = option(options, "timeStyle", ["full", "long", "medium", "short"]);
      const fields = { weekday: ["narrow", "short", "long"], era: ["narrow", "short", "long"], year: ["2-digit", "numeric"],
        month: ["2-digit", "numeric", "narrow", "short", "long"], day: ["2-digit", "numeric"], hour: ["2-digit", "numeric"],
        minute: ["2-digit", "numeric"], second: ["2-digit", "numeric"], timeZoneName: ["short", "long", "shortOffset", "longOffset"] };
      let any = false;
      for (const f of Object.keys(fields)) {
        const v = option(options, f, fields[f]);
        if (v !== undefined) {
          o[f] = v;
          if (f !== "timeZoneName") any = true; // a zone's name alone still gets the default date
        }
      }
      if (options.fractionalSecondDigits !== undefined) {
        const d = Number(options.fractionalSecondDigits);
        if (!(d >= 1 && d <= 3)) throw new RangeError("fractionalSecondDigits value is out of range.");
        o.fractionalSecondDigits = d;
        any = true;
      }
      if ((dateStyle || timeStyle) && (any || o.timeZoneName)) throw new TypeError("Can't set option " + Object.keys(o).find((k) => fields[k]) + " when dateStyle is used");
      if (dateStyle) o.dateStyle = dateStyle;
      if (timeStyle) o.timeStyle = timeStyle;
      if (!dateStyle && !timeStyle && !any) Object.assign(o, { year: "numeric", month: "numeric", day: "numeric" });
      const cycle = options.hour12 !== undefined ? (options.hour12 ? "h12" : "h24") : option(options, "hourCycle", ["h11", "h12", "h23", "h24"], "h12");
      if (o.hour || timeStyle) {
        o.hourCycle = cycle;
        o.hour12 = cycle === "h11" || cycle === "h12";
      }
      this.#o = o;
    }
    resolvedOptions() {
      return Object.assign({}, this.#o);
    }
    format(date) {
      return this.formatToParts(date).map((p) => p.value).join("").replace(/\u202f/g, " ");
    }
    formatToParts(date) {
      const t = date === undefined ? Date.now() : Number(date instanceof Date ? date.getTime() : date);
      if (!Number.isFinite(t)) throw new RangeError("Invalid time value");
      const at = zoneAt(this.#o.timeZone, t);
      return partsOf(new Date(t + at.offset * 60000), this.#o, at);
    }
    formatRange(a, b) {
      return this.format(a) + " – " + this.format(b);
    }
  }

  function styled(o) {
    const d = {}, t = {};
    if (o.dateStyle === "full") Object.assign(d, { weekday: "long", month: "long", day: "numeric", year: "numeric" });
    if (o.dateStyle === "long") Object.assign(d, { month: "long", day: "numeric", year: "numeric" });
    if (o.dateStyle === "medium") Object.assign(d, { month: "short", day: "numeric", year: "numeric" });
    if (o.dateStyle === "short") Object.assign(d, { month: "numeric", day: "numeric", year: "2-digit" });
    if (o.timeStyle) Object.assign(t, { hour: "numeric", minute: "2-digit" });
    if (o.timeStyle && o.timeStyle !== "short") t.second = "2-digit";
    if (o.timeStyle === "long") t.timeZoneName = "short";
    if (o.timeStyle === "full") t.timeZoneName = "long";
    return [d, t];
  }

  // partsOf formats date, already moved by its zone's offset (at), so
  // that its UTC fields are the zone's wall clock.
  function partsOf(date, o, at) {
    let d = o, t = o;
    if (o.dateStyle || o.timeStyle) [d, t] = styled(o);
    const date1 = dateParts(date, d);
    const time = timeParts(date, t, o.hourCycle || "h12", o.fractionalSecondDigits, o.timeZone, at);
    if (!date1.length) return time;
    if (!time.length) return date1;
    const joiner = o.dateStyle === "full" || o.dateStyle === "long" ? " at " : ", ";
    return [...date1, { type: "literal", value: joiner }, ...time];
  }

  function dateParts(date, o) {
    const y = date.getUTCFullYear(), m = date.getUTCMonth(), day = date.getUTCDate(), wd = date.getUTCDay();
    const out = [];
    const lit = (v) => out.push({ type: "literal", value: v });
    const part = (type, v) => out.push({ type, value: String(v) });
    const year = o.year === "2-digit" ? pad(Math.abs(y) % 100, 2) : String(y > 0 ? y : 1 - y);
    const dayText = o.day === "2-digit" ? pad(day, 2) : String(day);
    const era = o.era ? (y > 0 ? (o.era === "long" ? "Anno Domini" : o.era === "narrow" ? "A" : "AD") : (o.era === "long" ? "Before Christ" : o.era === "narrow" ? "B" : "BC")) : null;
    const textMonth = o.month === "long" ? MONTHS[m] : o.month === "short" ? MONTHS[m].slice(0, 3) : o.month === "narrow" ? MONTHS[m][0] : null;
    const weekday = o.weekday === "long" ? DAYS[wd] : o.weekday === "short" ? DAYS[wd].slice(0, 3) : o.weekday === "narrow" ? DAYS[wd][0] : null;
    if (weekday !== null) {
      part("weekday", weekday);
      if (o.month || o.day || o.year) lit(", ");
    }
    if (textMonth !== null) {
      part("month", textMonth);
      if (o.day) {
        lit(" ");
        part("day", dayText);
      }
      if (o.year) {
        lit(o.day ? ", " : " ");
        part("year", year);
      }
      if (era) {
        lit(" ");
        part("era", era);
      }
    } else if (o.month) {
      part("month", o.month === "2-digit" ? pad(m + 1, 2) : m + 1);
      if (o.day) {
        lit("/");
        part("day", dayText);
      }
      if (o.year) {
        lit("/");
        part("year", year);
      }
      if (era) {
        lit(" ");
        part("era", era);
      }
    } else {
      if (o.day) part("day", dayText);
      if (o.year) {
        if (o.day) lit(" ");
        part("year", year);
      }
      if (era) {
        if (o.day || o.year) lit(" ");
        part("era", era);
      }
    }
    return out;
  }

  function timeParts(date, o, cycle, fraction, zone, at) {
    const out = [];
    if (!o.hour && !o.minute && !o.second && !fraction && !o.timeZoneName) return out;
    const lit = (v) => out.push({ type: "literal", value: v });
    const part = (type, v) => out.push({ type, value: String(v) });
    const h = date.getUTCHours();
    const twelve = cycle === "h11" || cycle === "h12";
    if (o.hour) {
      let hour = h;
      if (cycle === "h12") hour = h % 12 === 0 ? 12 : h % 12;
      else if (cycle === "h11") hour = h % 12;
      else if (cycle === "h24") hour = h === 0 ? 24 : h;
      part("hour", o.hour === "2-digit" || (!twelve && (o.minute || o.second)) || !twelve ? pad(hour, 2) : hour);
    }
    if (o.minute) {
      if (o.hour) lit(":");
      part("minute", o.hour || o.second ? pad(date.getUTCMinutes(), 2) : o.minute === "2-digit" ? pad(date.getUTCMinutes(), 2) : date.getUTCMinutes());
    }
    if (o.second) {
      if (o.hour || o.minute) lit(":");
      part("second", o.hour || o.minute ? pad(date.getUTCSeconds(), 2) : o.second === "2-digit" ? pad(date.getUTCSeconds(), 2) : date.getUTCSeconds());
    }
    if (fraction) {
      if (out.length) lit(".");
      part("fractionalSecond", pad(date.getUTCMilliseconds(), 3).slice(0, fraction));
    }
    if (o.hour && twelve) {
      lit("\u202f"); // ICU's narrow space, which format (not formatToParts) makes a space, as Node 20 does
      part("dayPeriod", h < 12 ? "AM" : "PM");
    }
    if (o.timeZoneName) {
      if (out.length) lit(" ");
      part("timeZoneName", zoneName(o.timeZoneName, zone, at));
    }
    return out;
  }

  // ---- numbers -------------------------------------------------------
  const CURRENCY_SYMBOLS = { USD: "$", EUR: "€", GBP: "£", JPY: "¥", INR: "₹", CNY: "CN¥", KRW: "₩", CAD: "CA$", AUD: "A$", BRL: "R$",
    MXN: "MX$", ILS: "₪", VND: "₫", NZD: "NZ$", HKD: "HK$", TWD: "NT$" };
  const CURRENCY_DIGITS = { JPY: 0, KRW: 0, VND: 0, CLP: 0, ISK: 0, HUF: 2, BHD: 3, KWD: 3, JOD: 3, OMR: 3, TND: 3 };

  function group(intText, on) {
    if (!on || intText.length <= 3) return intText;
    let out = "";
    for (let i = 0; i < intText.length; i++) {
      if (i > 0 && (intText.length - i) % 3 === 0) out += ",";
      out += intText[i];
    }
    return out;
  }

  // fixed rounds x (not negative) to digits fraction digits, half away
  // from zero on its shortest decimal form, as ICU does (1.005 to two
  // digits is 1.01, where toFixed gives 1.00).
  function fixed(x, digits) {
    const text = String(x);
    if (text.includes("e")) return x.toFixed(digits);
    const [i, f = ""] = text.split(".");
    if (f.length <= digits) return digits ? i + "." + f.padEnd(digits, "0") : i;
    const n = BigInt(i + f.slice(0, digits)) + (f[digits] >= "5" ? 1n : 0n);
    const all = n.toString().padStart(digits + 1, "0");
    return digits ? all.slice(0, all.length - digits) + "." + all.slice(all.length - digits) : all;
  }

  class NumberFormat {
    #o;
    constructor(locales, options = {}) {
      canonicalLocales(locales);
      options = options === undefined ? {} : Object(options);
      const style = option(options, "style", ["decimal", "percent", "currency", "unit"], "decimal");
      const o = { locale: LOCALE, numberingSystem: "latn", style };
      if (style === "currency") {
        if (options.currency === undefined) throw new TypeError("Currency code is required with currency style.");
        o.currency = String(options.currency).toUpperCase();
        o.currencyDisplay = option(options, "currencyDisplay", ["symbol", "narrowSymbol", "code", "name"], "symbol");
        o.currencySign = option(options, "currencySign", ["standard", "accounting"], "standard");
      }
      if (style === "unit") {
        if (options.unit === undefined) throw new TypeError("Unit is required with unit style.");
        o.unit = String(options.unit);
        o.unitDisplay = option(options, "unitDisplay", ["short", "narrow", "long"], "short");
      }
      const curDigits = style === "currency" ? (CURRENCY_DIGITS[o.currency] ?? 2) : null;
      o.minimumIntegerDigits = options.minimumIntegerDigits === undefined ? 1 : Number(options.minimumIntegerDigits);
      const minF = options.minimumFractionDigits, maxF = options.maximumFractionDigits;
      const defMin = curDigits !== null ? curDigits : 0;
      const defMax = curDigits !== null ? curDigits : style === "percent" ? 0 : 3;
      o.minimumFractionDigits = minF === undefined ? Math.min(defMin, maxF === undefined ? defMin : Number(maxF)) : Number(minF);
      o.maximumFractionDigits = maxF === undefined ? Math.max(defMax, o.minimumFractionDigits) : Number(maxF);
      if (o.minimumFractionDigits > o.maximumFractionDigits || o.maximumFractionDigits > 100) {
        throw new RangeError("maximumFractionDigits value is out of range.");
      }
      if (options.maximumSignificantDigits !== undefined || options.minimumSignificantDigits !== undefined) {
        o.minimumSignificantDigits = options.minimumSignificantDigits === undefined ? 1 : Number(options.minimumSignificantDigits);
        o.maximumSignificantDigits = options.maximumSignificantDigits === undefined ? 21 : Number(options.maximumSignificantDigits);
      }
      o.useGrouping = options.useGrouping === undefined ? "auto" : options.useGrouping === false ? false : options.useGrouping;
      o.notation = option(options, "notation", ["standard", "compact", "scientific", "engineering"], "standard");
      o.signDisplay = option(options, "signDisplay", ["auto", "never", "always", "exceptZero", "negative"], "auto");
      this.#o = o;
    }
    resolvedOptions() {
      return Object.assign({}, this.#o);
    }
    format(n) {
      return this.formatToParts(n).map((p) => p.value).join("");
    }
    formatToParts(n) {
      const o = this.#o;
      let x = typeof n === "bigint" ? Number(n) : Number(n);
      const out = [];
      const push = (type, value) => out.push({ type, value });
      const negative = x < 0 || Object.is(x, -0);
      if (Number.isNaN(x)) {
        push("nan", "NaN");
        return out;
      }
      if (o.style === "percent") x *= 100;
      let body;
      let compactSuffix = "";
      let ax = Math.abs(x);
      if (o.notation === "compact" && ax >= 1000 && Number.isFinite(ax)) {
        const units = [[1e12, "T"], [1e9, "B"], [1e6, "M"], [1e3, "K"]];
        for (const [v, s] of units) {
          if (ax >= v) {
            ax /= v;
            compactSuffix = s;
            break;
          }
        }
        body = ax < 100 ? String(Number(ax.toPrecision(2))) : String(Math.round(ax));
      } else if (!Number.isFinite(ax)) {
        body = "∞";
      } else if (o.maximumSignificantDigits !== undefined) {
        body = String(Number(ax.toPrecision(Math.min(o.maximumSignificantDigits, 100))));
      } else {
        body = fixed(ax, o.maximumFractionDigits);
        if (body.includes(".")) {
          let [i, f] = body.split(".");
          while (f.length > o.minimumFractionDigits && f.endsWith("0")) f = f.slice(0, -1);
          body = f ? i + "." + f : i;
        } else if (o.minimumFractionDigits > 0) {
          body += "." + "0".repeat(o.minimumFractionDigits);
        }
      }
      const isZero = /^[0.]*$/.test(body);
      const sign = { auto: negative ? "-" : "", never: "", always: negative ? "-" : "+", exceptZero: isZero ? "" : negative ? "-" : "+",
        negative: negative && !isZero ? "-" : "" }[o.signDisplay];
      if (sign) push(sign === "-" ? "minusSign" : "plusSign", sign);
      if (o.style === "currency" && o.currencyDisplay !== "name") {
        const sym = o.currencyDisplay === "code" ? o.currency + "\u00a0" : CURRENCY_SYMBOLS[o.currency] || o.currency + "\u00a0";
        push("currency", sym.trimEnd());
        if (sym.endsWith("\u00a0")) push("literal", "\u00a0");
      }
      if (body === "∞") push("infinity", body);
      else {
        const [i, f] = body.split(".");
        const grouped = group(i.padStart(o.minimumIntegerDigits, "0"), o.useGrouping !== false && !(o.useGrouping === "min2" && i.length < 5));
        const groups = grouped.split(",");
        groups.forEach((g, k) => {
          if (k > 0) push("group", ",");
          push("integer", g);
        });
        if (f !== undefined) {
          push("decimal", ".");
          push("fraction", f);
        }
      }
      if (compactSuffix) push("compact", compactSuffix);
      if (o.style === "percent") push("percentSign", "%");
      if (o.style === "currency" && o.currencyDisplay === "name") {
        push("literal", " ");
        push("currency", o.currency);
      }
      if (o.style === "unit") {
        push("literal", " ");
        push("unit", o.unit);
      }
      return out;
    }
  }

  // ---- plurals, relative times, lists, collation ---------------------
  class PluralRules {
    #type;
    constructor(locales, options = {}) {
      canonicalLocales(locales);
      this.#type = option(Object(options ?? {}), "type", ["cardinal", "ordinal"], "cardinal");
    }
    select(n) {
      const x = Math.abs(Number(n));
      if (this.#type === "cardinal") return x === 1 ? "one" : "other";
      const ten = x % 10, hundred = x % 100;
      if (!Number.isInteger(x)) return "other";
      if (ten === 1 && hundred !== 11) return "one";
      if (ten === 2 && hundred !== 12) return "two";
      if (ten === 3 && hundred !== 13) return "few";
      return "other";
    }
    resolvedOptions() {
      return { locale: LOCALE, type: this.#type, minimumIntegerDigits: 1, minimumFractionDigits: 0, maximumFractionDigits: 3,
        pluralCategories: this.#type === "cardinal" ? ["one", "other"] : ["few", "one", "two", "other"] };
    }
  }

  const RELATIVE_UNITS = ["year", "quarter", "month", "week", "day", "hour", "minute", "second"];
  const RELATIVE_AUTO = { day: { "-1": "yesterday", 0: "today", 1: "tomorrow" }, year: { "-1": "last year", 0: "this year", 1: "next year" },
    quarter: { "-1": "last quarter", 0: "this quarter", 1: "next quarter" }, month: { "-1": "last month", 0: "this month", 1: "next month" },
    week: { "-1": "last week", 0: "this week", 1: "next week" }, hour: { 0: "this hour" }, minute: { 0: "this minute" }, second: { 0: "now" } };
  class RelativeTimeFormat {
    #o;
    constructor(locales, options = {}) {
      canonicalLocales(locales);
      options = Object(options ?? {});
      this.#o = { locale: LOCALE, style: option(options, "style", ["long", "short", "narrow"], "long"),
        numeric: option(options, "numeric", ["always", "auto"], "always"), numberingSystem: "latn" };
    }
    format(value, unit) {
      return this.formatToParts(value, unit).map((p) => p.value).join("");
    }
    formatToParts(value, unit) {
      const u = String(unit).replace(/s$/, "");
      if (!RELATIVE_UNITS.includes(u)) throw new RangeError("Invalid unit argument for format() '" + unit + "'");
      const v = Number(value);
      if (this.#o.numeric === "auto") {
        const word = RELATIVE_AUTO[u] && RELATIVE_AUTO[u][Object.is(v, -0) ? "0" : String(v)];
        if (word) return [{ type: "literal", value: word }];
      }
      const n = new NumberFormat(LOCALE).format(Math.abs(v));
      const name = Math.abs(v) === 1 ? u : u + "s";
      const past = v < 0 || Object.is(v, -0);
      return past ? [{ type: "integer", value: n, unit: u }, { type: "literal", value: " " + name + " ago" }]
        : [{ type: "literal", value: "in " }, { type: "integer", value: n, unit: u }, { type: "literal", value: " " + name }];
    }
    resolvedOptions() {
      return Object.assign({}, this.#o);
    }
  }

  class ListFormat {
    #o;
    constructor(locales, options = {}) {
      canonicalLocales(locales);
      options = Object(options ?? {});
      this.#o = { locale: LOCALE, type: option(options, "type", ["conjunction", "disjunction", "unit"], "conjunction"),
        style: option(options, "style", ["long", "short", "narrow"], "long") };
    }
    format(list) {
      return this.formatToParts(list).map((p) => p.value).join("");
    }
    formatToParts(list) {
      const items = Array.from(list ?? [], (x) => {
        if (typeof x !== "string") throw new TypeError("Iterable yielded " + x + " which is not a string");
        return x;
      });
      const { type, style } = this.#o;
      const word = type === "disjunction" ? "or" : type === "unit" ? "" : style === "long" ? "and" : style === "short" ? "&" : "";
      const sep = type === "unit" && style === "narrow" ? " " : ", ";
      const out = [];
      items.forEach((item, i) => {
        if (i > 0) {
          const last = i === items.length - 1;
          let lit = sep;
          if (last && word) lit = items.length === 2 ? " " + word + " " : ", " + word + " ";
          out.push({ type: "literal", value: lit });
        }
        out.push({ type: "element", value: item });
      });
      return out;
    }
    resolvedOptions() {
      return Object.assign({}, this.#o);
    }
  }

  class Collator {
    #o;
    constructor(locales, options = {}) {
      canonicalLocales(locales);
      options = Object(options ?? {});
      this.#o = { locale: LOCALE, usage: option(options, "usage", ["sort", "search"], "sort"),
        sensitivity: option(options, "sensitivity", ["base", "accent", "case", "variant"], "variant"),
        ignorePunctuation: Boolean(options.ignorePunctuation), collation: "default", numeric: Boolean(options.numeric),
        caseFirst: option(options, "caseFirst", ["upper", "lower", "false"], "false") };
      this.compare = this.compare.bind(this);
    }
    compare(a, b) {
      let x = String(a), y = String(b);
      const { sensitivity, numeric } = this.#o;
      if (sensitivity === "base" || sensitivity === "accent") {
        x = x.toLowerCase();
        y = y.toLowerCase();
      }
      if (sensitivity === "base" || sensitivity === "case") {
        x = x.normalize("NFD").replace(/[\u0300-\u036f]/g, "");
        y = y.normalize("NFD").replace(/[\u0300-\u036f]/g, "");
      }
      if (numeric) {
        const re = /(\d+)|(\D+)/g;
        const xs = x.match(re) || [], ys = y.match(re) || [];
        for (let i = 0; i < Math.min(xs.length, ys.length); i++) {
          const dx = /^\d/.test(xs[i]), dy = /^\d/.test(ys[i]);
          if (dx && dy && Number(xs[i]) !== Number(ys[i])) return Number(xs[i]) < Number(ys[i]) ? -1 : 1;
          if (xs[i] !== ys[i]) return baseCompare(xs[i], ys[i]);
        }
        return xs.length === ys.length ? 0 : xs.length < ys.length ? -1 : 1;
      }
      return baseCompare(x, y);
    }
    resolvedOptions() {
      return Object.assign({}, this.#o);
    }
  }
  // baseCompare orders strings as ICU's root collation does Latin text:
  // by their letters without accents or case, then by accents (none
  // first), then lower case before upper.
  const unaccented = (s) => s.normalize("NFD").replace(/[\u0300-\u036f]/g, "");
  function baseCompare(x, y) {
    const keys = [(s) => unaccented(s).toLowerCase(), (s) => s.toLowerCase()];
    for (const key of keys) {
      const kx = key(x), ky = key(y);
      if (kx !== ky) return kx < ky ? -1 : 1;
    }
    if (x === y) return 0;
    return x > y ? -1 : 1;
  }

  class Segmenter {
    #granularity;
    constructor(locales, options = {}) {
      canonicalLocales(locales);
      this.#granularity = option(Object(options ?? {}), "granularity", ["grapheme", "word", "sentence"], "grapheme");
    }
    segment(text) {
      const s = String(text);
      const out = [];
      const re = this.#granularity === "word" ? /\w+|\s+|[^\w\s]/gu : this.#granularity === "sentence" ? /[^.!?]+[.!?]*\s*/g : /[\s\S]/gu;
      let m;
      while ((m = re.exec(s)) !== null) {
        const seg = { segment: m[0], index: m.index, input: s };
        if (this.#granularity === "word") seg.isWordLike = /\w/.test(m[0]);
        out.push(seg);
      }
      return { [Symbol.iterator]: () => out[Symbol.iterator](), containing: (i) => out.find((g) => i >= g.index && i < g.index + g.segment.length) };
    }
    resolvedOptions() {
      return { locale: LOCALE, granularity: this.#granularity };
    }
  }

  // Each service answers supportedLocalesOf alike: the locales asked for,
  // canonical (fount formats them all as en-US).
  for (const Service of [DateTimeFormat, NumberFormat, PluralRules, RelativeTimeFormat, ListFormat, Collator]) {
    Object.defineProperty(Service, "supportedLocalesOf", { value: function supportedLocalesOf(locales) {
      return canonicalLocales(locales);
    }, writable: true, configurable: true });
  }

  const Intl = {
    getCanonicalLocales: (locales) => canonicalLocales(locales),
    supportedValuesOf: (key) => ({ calendar: ["gregory"], collation: ["default"], currency: Object.keys(CURRENCY_SYMBOLS).sort(),
      numberingSystem: ["latn"], timeZone: ["UTC"], unit: [] })[key] || (() => { throw new RangeError("Invalid key : " + key); })(),
    Collator, DateTimeFormat, ListFormat, Locale, NumberFormat, PluralRules, RelativeTimeFormat, Segmenter,
  };
  Object.defineProperty(Intl, Symbol.toStringTag, { value: "Intl" });
  define("Intl", Intl);

  // The locale methods of dates, numbers and strings format as Intl
  // does, as they do in Node.
  const DATE_FIELDS = ["weekday", "era", "year", "month", "day", "dateStyle"];
  const TIME_FIELDS = ["hour", "minute", "second", "fractionalSecondDigits", "timeStyle"];
  function localeDate(date, locales, options, dateDefaults, timeDefaults) {
    if (Number.isNaN(date.getTime())) return "Invalid Date";
    const o = Object.assign({}, options === undefined ? {} : Object(options));
    const has = (list) => list.some((k) => o[k] !== undefined);
    if (!has(DATE_FIELDS) && !has(TIME_FIELDS)) {
      if (dateDefaults) Object.assign(o, { year: "numeric", month: "numeric", day: "numeric" });
      if (timeDefaults) Object.assign(o, { hour: "numeric", minute: "numeric", second: "numeric" });
    }
    return new DateTimeFormat(locales, o).format(date);
  }
  function method(proto, name, fn) {
    Object.defineProperty(proto, name, { value: fn, writable: true, configurable: true, enumerable: false });
  }
  method(Date.prototype, "toLocaleString", function toLocaleString(locales, options) {
    return localeDate(this, locales, options, true, true);
  });
  method(Date.prototype, "toLocaleDateString", function toLocaleDateString(locales, options) {
    return localeDate(this, locales, options, true, false);
  });
  method(Date.prototype, "toLocaleTimeString", function toLocaleTimeString(locales, options) {
    return localeDate(this, locales, options, false, true);
  });
  method(Number.prototype, "toLocaleString", function toLocaleString(locales, options) {
    return new NumberFormat(locales, options).format(Number(this));
  });
  method(String.prototype, "localeCompare", function localeCompare(that, locales, options) {
    return new Collator(locales, options).compare(String(this), String(that));
  });
})();
