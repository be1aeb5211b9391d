// A closed port: the connection is refused, as in Node. TestNpmSFTPClient
// drives the same client against a real OpenSSH server.
import Client from "ssh2-sftp-client";
export default {
  name: "corpus-sftp", version: "0.1.0",
  async run(e) {
    const sftp = new Client();
    try {
      await sftp.connect({ host: "127.0.0.1", port: e.closedPort, username: "u", password: "p", retries: 0, readyTimeout: 5000 });
      this.$emit("connected");
    } catch (err) {
      this.$emit([err.code, err.message.includes("ECONNREFUSED")]);
    }
  },
};
