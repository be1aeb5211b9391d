// node:querystring for fount: querystring-es3 (vendored), with the
// escape and unescape Node adds.
import qs from "./vendor/querystring-es3-0.2.1/index.js";

export const decode = qs.decode;
export const parse = qs.parse;
export const encode = qs.encode;
export const stringify = qs.stringify;
export const escape = (s) => encodeURIComponent(String(s));
export function unescape(s) {
  try {
    return decodeURIComponent(String(s));
  } catch {
    return String(s);
  }
}
export default { decode, parse, encode, stringify, escape, unescape };
