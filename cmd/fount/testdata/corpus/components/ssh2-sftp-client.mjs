// A closed port: the connection is refused, as in Node. TestNpmSFTPClient
// drives the same client against a real OpenSSH server. The client's
// global listeners print when the socket's end event comes before the
// run settles or after, a race in Node as in fount: quiet ones keep the
// outcome to what the test compares.
import Client from "ssh2-sftp-client";
export default {
  name: "corpus-sftp", version: "0.1.0",
  async run(e) {
    const quiet = () => {};
    const sftp = new Client("sftp", { error: quiet, end: quiet, close: quiet });
    try {
      await sftp.connect({ host: "127.0.0.1", port: e.closedPort, username: "u", password: "p", retries: 0, readyTimeout: 5000 });
      this.$emit("connected");
    } catch (err) {
      this.$emit([err.code, err.message.includes("ECONNREFUSED")]);
    }
  },
};
