// Sockets as Node 20 gives them: a TCP echo server (it answers each line
// upper-cased), the same over TLS with the test's CA, STARTTLS on a plain
// connection, a refused connection, an unverified server, and DNS. The
// event names the servers' ports and the CA.
import net from "node:net";
import tls from "node:tls";
import dns from "node:dns";

// converse writes each line, then ends, and gives what the socket saw.
function converse(socket, lines, ready = "connect") {
  return new Promise((resolve) => {
    const seen = [];
    let text = "";
    socket.setEncoding("utf8");
    socket.on(ready, () => {
      seen.push(ready, socket.remoteAddress, socket.remoteFamily, typeof socket.localPort);
      if (socket.encrypted) seen.push(socket.getProtocol(), socket.authorized);
      for (const l of lines) socket.write(l + "\n");
      socket.end();
    });
    socket.on("data", (d) => (text += d));
    socket.on("end", () => seen.push("end"));
    socket.on("error", (e) => seen.push("error " + e.code));
    socket.on("close", () => resolve({ seen, text, read: socket.bytesRead, written: socket.bytesWritten }));
  });
}

function failure(socket, ready = "connect") {
  return new Promise((resolve) => {
    socket.on("error", (e) => resolve([e instanceof Error, e.code, e.errno, e.syscall, e.address, e.port]));
    socket.on(ready, () => resolve("connected"));
  });
}

// starttls asks the server for TLS on a plain connection, then talks TLS.
function starttls(port, ca) {
  return new Promise((resolve, reject) => {
    const plain = net.connect(port, "127.0.0.1");
    plain.once("error", reject);
    plain.once("data", (d) => {
      if (String(d) !== "GO\n") return reject(new Error("server said " + d));
      const secure = tls.connect({ socket: plain, servername: "localhost", ca });
      converse(secure, ["over tls"], "secureConnect").then((r) => resolve(Object.assign(r, { authorized: secure.authorized, encrypted: secure.encrypted })));
    });
    plain.on("connect", () => plain.write("STARTTLS\n"));
  });
}

export default {
  name: "node-sockets",
  version: "0.1.0",
  async run(event) {
    const { port, tlsPort, ca } = event;
    const out = {};
    const s = net.connect({ port, host: "127.0.0.1" });
    out.plain = await converse(s, ["hello", "two lines"]);
    out.closed = [s.remoteAddress, s.remotePort === port, s.remoteFamily, s.localPort, s.destroyed, s.readyState];
    out.refused = await failure(net.connect(2, "127.0.0.1"));
    const t = tls.connect({ port: tlsPort, host: "127.0.0.1", servername: "localhost", ca });
    out.tls = await converse(t, ["secret"], "secureConnect");
    out.tlsClosed = [t.authorized, t.encrypted, t.getProtocol()];
    out.unverified = await failure(tls.connect({ port: tlsPort, host: "127.0.0.1", servername: "localhost" }), "secureConnect");
    const lax = tls.connect({ port: tlsPort, host: "127.0.0.1", servername: "localhost", rejectUnauthorized: false });
    out.lax = await converse(lax, ["lax"], "secureConnect");
    out.laxState = [lax.authorized, lax.authorizationError && lax.authorizationError.code !== undefined ? lax.authorizationError.code : String(lax.authorizationError)];
    out.starttls = await starttls(port, ca);
    out.lookup = await dns.promises.lookup("localhost", { family: 4 });
    out.lookupLiteral = await new Promise((resolve) => dns.lookup("127.0.0.1", (err, address, family) => resolve([err, address, family])));
    out.badPort = (() => {
      try {
        net.connect(70000, "127.0.0.1");
        return "connected";
      } catch (e) {
        return [e.name, e.code];
      }
    })();
    this.$emit(out);
  },
};
