// node:dns/promises for fount: dns.promises.
import dns from "dns";

export const { lookup, lookupService, resolve, resolve4, resolve6, resolveMx, resolveTxt, resolveSrv, resolveCname, resolveNs,
  getServers, setServers, setDefaultResultOrder, getDefaultResultOrder, Resolver } = dns.promises;
export default dns.promises;
