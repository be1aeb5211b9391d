// node:sys for fount: Node's old name for util.
export * from "util";
export { default } from "util";
