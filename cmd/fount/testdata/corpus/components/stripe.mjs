import Stripe from "stripe";
export default {
  name: "corpus-stripe", version: "0.1.0",
  async run(e) {
    const stripe = new Stripe("sk_test_123", { host: "127.0.0.1", port: e.port, protocol: "http", maxNetworkRetries: 0, telemetry: false });
    const c = await stripe.customers.retrieve("cus_1");
    this.$emit({ id: c.id, object: c.object, email: c.email });
  },
};
