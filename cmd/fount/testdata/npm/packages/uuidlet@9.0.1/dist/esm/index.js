import sha1 from "sha1-lite";

const hex = [];
for (let i = 0; i < 256; ++i) hex.push((i + 0x100).toString(16).slice(1));

function stringify(b) {
  return (hex[b[0]] + hex[b[1]] + hex[b[2]] + hex[b[3]] + "-" + hex[b[4]] + hex[b[5]] + "-" + hex[b[6]] + hex[b[7]] + "-" +
    hex[b[8]] + hex[b[9]] + "-" + hex[b[10]] + hex[b[11]] + hex[b[12]] + hex[b[13]] + hex[b[14]] + hex[b[15]]).toLowerCase();
}

function parseUUID(s) {
  const b = [];
  s.replace(/[0-9a-f]{2}/gi, (h) => { b.push(parseInt(h, 16)); return h; });
  if (b.length !== 16) throw new TypeError("Invalid UUID");
  return b;
}

// v5 is the name-based UUID of RFC 4122 (SHA-1).
export function v5(name, namespace) {
  const utf8 = unescape(encodeURIComponent(String(name))); // as uuid@8 encodes names
  const bytes = parseUUID(namespace);
  for (let i = 0; i < utf8.length; ++i) bytes.push(utf8.charCodeAt(i));
  const h = sha1(bytes);
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  return stringify(h);
}

export function validate(s) {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(s);
}

export const NIL = "00000000-0000-0000-0000-000000000000";
