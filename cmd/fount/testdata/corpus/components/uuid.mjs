import { v4, v5, validate, version } from "uuid";
export default {
  name: "corpus-uuid", version: "0.1.0",
  async run() {
    const random = v4();
    this.$emit({ v5: v5("fount", v5.URL), valid: validate(random), version: version(random) });
  },
};
