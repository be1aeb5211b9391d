import { tokenize } from "./tokens.js";

// parse turns XML into nested objects: attributes as @name, text as #text,
// repeated elements as arrays.
export function parse(xml) {
  const root = {};
  const stack = [root];
  for (const tok of tokenize(String(xml))) {
    const top = stack[stack.length - 1];
    if (tok.type === "open") {
      const node = {};
      for (const [k, v] of Object.entries(tok.attrs)) node["@" + k] = v;
      add(top, tok.name, node);
      if (!tok.selfClosing) stack.push(node);
    } else if (tok.type === "close") {
      if (stack.length === 1) throw new Error("unexpected </" + tok.name + ">");
      stack.pop();
    } else if (tok.type === "text" && tok.text.trim()) {
      top["#text"] = (top["#text"] || "") + tok.text.trim();
    }
  }
  if (stack.length !== 1) throw new Error("unclosed element");
  return simplify(root);
}

function add(parent, name, node) {
  if (!(name in parent)) parent[name] = node;
  else if (Array.isArray(parent[name])) parent[name].push(node);
  else parent[name] = [parent[name], node];
}

function simplify(node) {
  if (Array.isArray(node)) return node.map(simplify);
  if (node === null || typeof node !== "object") return node;
  const keys = Object.keys(node);
  if (keys.length === 1 && keys[0] === "#text") return node["#text"];
  const out = {};
  for (const k of keys) out[k] = simplify(node[k]);
  return out;
}

export const XMLParser = class { parse(x) { return parse(x); } };
