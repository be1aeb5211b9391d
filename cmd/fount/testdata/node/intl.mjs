// Intl as Node 20 gives it for en-US and UTC: dates (fields, styles,
// parts, 12 and 24 hours), numbers (grouping, fractions, percent,
// currency, compact, signs), plural rules, relative times, lists,
// collation, locales, and the errors of an unknown zone or option.
const d = new Date(Date.UTC(2024, 1, 29, 13, 5, 9, 42));
const midnight = new Date(Date.UTC(1970, 0, 1));
const fmt = (o, date = d) => new Intl.DateTimeFormat("en-US", Object.assign({ timeZone: "UTC" }, o)).format(date);
const num = (o, n) => new Intl.NumberFormat("en-US", o).format(n);
const failure = (f) => { try { f(); return "ran"; } catch (e) { return e.name; } };

export default {
  name: "node-intl",
  version: "0.1.0",
  async run() {
    const out = {};
    out.dates = [fmt({}), fmt({}, midnight), fmt({ dateStyle: "full" }), fmt({ dateStyle: "long" }), fmt({ dateStyle: "medium" }),
      fmt({ dateStyle: "short" }), fmt({ timeStyle: "short" }), fmt({ timeStyle: "medium" }), fmt({ timeStyle: "long" }),
      fmt({ dateStyle: "medium", timeStyle: "short" }), fmt({ dateStyle: "long", timeStyle: "short" }),
      fmt({ year: "numeric", month: "long" }), fmt({ month: "short", day: "numeric" }), fmt({ weekday: "long" }),
      fmt({ year: "numeric", month: "2-digit", day: "2-digit" }), fmt({ hour: "numeric", minute: "2-digit" }),
      fmt({ hour: "2-digit", minute: "2-digit", hour12: false }), fmt({ hour: "numeric", minute: "2-digit", second: "2-digit", hour12: false }, midnight),
      fmt({ weekday: "short", year: "numeric", month: "short", day: "numeric" }), fmt({ hour: "numeric" }),
      fmt({ hour12: false, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", era: "short" }),
      fmt({ hour: "numeric", minute: "numeric", second: "numeric", fractionalSecondDigits: 3, hour12: false })];
    out.parts = new Intl.DateTimeFormat("en-US", { timeZone: "UTC", year: "numeric", month: "short", day: "numeric", hour: "numeric",
      minute: "2-digit" }).formatToParts(d).map((p) => p.type + ":" + p.value);
    const r = new Intl.DateTimeFormat("en-US", { timeZone: "Etc/UTC", hour: "numeric" }).resolvedOptions();
    out.resolved = [r.locale, r.timeZone, r.calendar, r.numberingSystem, r.hourCycle, r.hour12, new Intl.DateTimeFormat().resolvedOptions().timeZone];
    out.numbers = [num({}, 1234567.891), num({}, 1.005), num({ maximumFractionDigits: 2 }, 1.005), num({ minimumFractionDigits: 2 }, 5),
      num({ style: "percent" }, 0.256), num({ style: "currency", currency: "USD" }, 1234.5), num({ style: "currency", currency: "EUR" }, -3),
      num({ style: "currency", currency: "JPY" }, 1234.5), num({ useGrouping: false }, 1234567), num({ notation: "compact" }, 1234),
      num({ notation: "compact" }, 2500000), num({ signDisplay: "always" }, 5), num({ signDisplay: "exceptZero" }, 0), num({}, -0.5),
      num({ maximumSignificantDigits: 3 }, 123456), num({ minimumIntegerDigits: 3 }, 7), num({}, 0)];
    out.numberParts = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).formatToParts(-1234.5).map((p) => p.type + ":" + p.value);
    const plural = new Intl.PluralRules("en-US"), ordinal = new Intl.PluralRules("en-US", { type: "ordinal" });
    out.plurals = [0, 1, 2, 1.5].map((n) => plural.select(n)).concat([1, 2, 3, 4, 11, 12, 13, 21, 22, 101].map((n) => ordinal.select(n)));
    const rtf = new Intl.RelativeTimeFormat("en", { numeric: "auto" }), rtfAlways = new Intl.RelativeTimeFormat("en");
    out.relative = [rtf.format(-1, "day"), rtf.format(1, "day"), rtf.format(0, "day"), rtf.format(-3, "hours"), rtf.format(2, "week"),
      rtf.format(1, "year"), rtfAlways.format(-1, "day"), rtfAlways.format(1000, "second"), rtf.format(0, "second")];
    out.lists = [new Intl.ListFormat("en", { style: "long", type: "conjunction" }).format(["a", "b", "c"]),
      new Intl.ListFormat("en", { type: "disjunction" }).format(["a", "b"]), new Intl.ListFormat("en").format(["solo"]),
      new Intl.ListFormat("en", { type: "unit", style: "narrow" }).format(["1h", "2m"]), new Intl.ListFormat("en", { style: "short" }).format(["x", "y", "z"])];
    out.collation = [["b", "a", "B", "A", "á"].sort(new Intl.Collator("en").compare), ["a10", "a2", "a1"].sort(new Intl.Collator("en", { numeric: true }).compare),
      new Intl.Collator("en", { sensitivity: "base" }).compare("a", "A")];
    out.locales = [Intl.getCanonicalLocales(["EN-us", "fr"]), new Intl.Locale("en-US").language, typeof Intl.supportedValuesOf];
    out.errors = [failure(() => new Intl.DateTimeFormat("en-US", { timeZone: "Nowhere/Land" })), failure(() => new Intl.NumberFormat("en", { style: "nope" })),
      failure(() => new Intl.NumberFormat("en", { style: "currency" })), failure(() => Intl.getCanonicalLocales("not a locale!"))];
    const winter = new Date(Date.UTC(2024, 0, 15, 5, 30)), summer = new Date(Date.UTC(2024, 6, 15, 5, 30));
    const zoned = (tz, o, date) => new Intl.DateTimeFormat("en-US", Object.assign({ timeZone: tz }, o)).format(date);
    out.zones = [zoned("America/New_York", {}, winter), zoned("America/New_York", { timeStyle: "long" }, winter),
      zoned("America/New_York", { timeStyle: "long" }, summer), zoned("America/Los_Angeles", { hour: "numeric", timeZoneName: "short" }, summer),
      zoned("Europe/Paris", { timeStyle: "long" }, summer), zoned("Asia/Kolkata", { hour: "numeric", minute: "2-digit", timeZoneName: "short" }, winter),
      zoned("Asia/Tokyo", { dateStyle: "medium", timeStyle: "short" }, winter), zoned("America/New_York", { timeZoneName: "longOffset" }, winter),
      zoned("America/New_York", { timeZoneName: "shortOffset" }, summer), zoned("Australia/Sydney", { year: "numeric", month: "2-digit", day: "2-digit" }, summer),
      new Intl.DateTimeFormat("en-US", { timeZone: "Europe/London" }).resolvedOptions().timeZone,
      winter.toLocaleString("en-US", { timeZone: "America/Chicago" }), summer.toLocaleTimeString("en-US", { timeZone: "Asia/Tokyo" })];
    out.localeMethods = [d.toLocaleString("en-US", { timeZone: "UTC" }), d.toLocaleDateString("en-US", { timeZone: "UTC" }),
      d.toLocaleTimeString("en-US", { timeZone: "UTC" }), d.toLocaleDateString("en-US", { timeZone: "UTC", month: "long", day: "numeric" }),
      (1234.5).toLocaleString("en-US"), (0.5).toLocaleString("en-US", { style: "percent" }), "a".localeCompare("B"), "b".localeCompare("a"),
      new Date(NaN).toLocaleString()];
    this.$emit(out);
  },
};
