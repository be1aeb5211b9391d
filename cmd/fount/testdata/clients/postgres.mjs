// node-postgres (pg) against a real PostgreSQL: a client over TLS
// (SSLRequest, then TLS verified with the test's CA), parameters and
// types both ways, a server error's fields, and a pool.
import pg from "pg";

export default {
  name: "clients-postgres",
  version: "0.1.0",
  async run(event) {
    const config = { host: "127.0.0.1", port: event.port, user: "fount", database: "postgres" };
    const client = new pg.Client({ ...config, ssl: { ca: event.ca } });
    await client.connect();
    const out = {};
    out.ssl = (await client.query("select ssl from pg_stat_ssl where pid = pg_backend_pid()")).rows[0].ssl;
    await client.query("create temp table notes (id serial primary key, name text not null, at timestamptz, data jsonb, n int8)");
    const ins = await client.query("insert into notes (name, at, data, n) values ($1, $2, $3, $4), ($5, $6, $7, $8) returning id",
      ["ada", new Date("2024-01-02T03:04:05Z"), { tags: ["a", "b"] }, "9007199254740993", "grace", null, null, 7]);
    out.inserted = ins.rows.map((r) => r.id);
    const sel = await client.query("select id, name, at, data, n, n * 2 as twice from notes order by id");
    out.rows = sel.rows.map((r) => ({ ...r, at: r.at === null ? null : r.at.toISOString() }));
    out.fields = sel.fields.map((f) => [f.name, f.dataTypeID]);
    out.command = [sel.command, sel.rowCount];
    try {
      await client.query("select * from missing_table");
    } catch (e) {
      out.error = [e.name, e.code, e.severity, e.message];
    }
    await client.end();
    const pool = new pg.Pool({ ...config, max: 2 });
    const results = await Promise.all([1, 2, 3].map((i) => pool.query("select $1::int * 10 as v", [i])));
    out.pool = results.map((r) => r.rows[0].v);
    await pool.end();
    this.$emit(out);
  },
};
