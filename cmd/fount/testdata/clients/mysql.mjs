// mysql2 against a real MariaDB: a connection, DDL, placeholders both
// ways, types, a server error's fields, and a pool.
import mysql from "mysql2/promise";

export default {
  name: "clients-mysql",
  version: "0.1.0",
  async run(event) {
    const config = { host: "127.0.0.1", port: event.port, user: "fount", password: "secret", database: "shop", timezone: "Z" };
    const db = await mysql.createConnection(config);
    const out = {};
    await db.query("create temporary table items (id int auto_increment primary key, name varchar(40) not null, price decimal(8,2), at datetime, tags json)");
    const [ins] = await db.execute("insert into items (name, price, at, tags) values (?, ?, ?, ?), (?, ?, ?, ?)",
      ["tea", "3.50", new Date("2024-01-02T03:04:05Z"), JSON.stringify(["hot"]), "cake", null, null, null]);
    out.inserted = [ins.affectedRows, ins.insertId];
    const [rows, fields] = await db.query("select id, name, price, at, tags, price * 2 as twice from items order by id");
    out.rows = rows.map((r) => ({ ...r, at: r.at === null ? null : r.at.toISOString(), tags: typeof r.tags === "string" ? JSON.parse(r.tags) : r.tags }));
    out.fields = fields.map((f) => f.name);
    try {
      await db.query("select * from missing_table");
    } catch (e) {
      out.error = [e.code, e.errno, e.sqlState, e.sqlMessage];
    }
    await db.end();
    const pool = mysql.createPool({ ...config, connectionLimit: 2 });
    const results = await Promise.all([1, 2, 3].map((i) => pool.query("select ? * 10 as v", [i])));
    out.pool = results.map(([r]) => Number(r[0].v));
    await pool.end();
    this.$emit(out);
  },
};
