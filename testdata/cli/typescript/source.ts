// A TypeScript component: types are stripped when the CLI bundles it.
import { shout, type Shouted } from "./shout";

interface RunEvent {
  body?: { word?: string };
}

export default {
  name: "Shouter",
  version: "1.0.0",
  props: { http: "$.interface.http" },
  run(event: RunEvent): void {
    const out: Shouted = shout(event.body?.word ?? "quiet");
    this.$emit(out, { summary: out.loud });
  },
};
