// No MySQL server in the tests: the connection is refused, as in Node.
import mysql from "mysql2/promise";
export default {
  name: "corpus-mysql2", version: "0.1.0",
  async run(e) {
    try {
      await mysql.createConnection({ host: "127.0.0.1", port: e.closedPort, user: "root", connectTimeout: 5000 });
      this.$emit("connected");
    } catch (err) {
      this.$emit([err.code, err.errno, err.syscall, err.fatal]);
    }
  },
};
