import jwt from "jsonwebtoken";
export default {
  name: "corpus-jsonwebtoken", version: "0.1.0",
  async run() {
    const token = jwt.sign({ sub: "ada", iat: 1700000000 }, "secret", { algorithm: "HS256", expiresIn: "1h" });
    const ok = jwt.verify(token, "secret", { clockTimestamp: 1700000100 });
    let bad;
    try {
      jwt.verify(token, "wrong");
    } catch (err) {
      bad = [err.name, err.message];
    }
    this.$emit({ token, ok, bad });
  },
};
