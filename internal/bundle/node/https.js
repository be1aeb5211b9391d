// node:https for fount: node:http's client, https by default.
import http from "http";

export const Agent = http.Agent;
export const globalAgent = new Agent();
export function request(input, options, cb) {
  return new http.ClientRequest("https:", input, options, cb);
}
export function get(input, options, cb) {
  const req = request(input, options, cb);
  req.end();
  return req;
}
export const createServer = http.createServer;
export const Server = http.Server;
export default { Agent, globalAgent, request, get, createServer, Server };
