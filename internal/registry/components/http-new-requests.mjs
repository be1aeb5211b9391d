// An HTTP source: emits every request it receives and answers it itself.
export default {
  key: "http-new-requests",
  name: "New Requests",
  description: "Emit an event for each HTTP request to the source's endpoint",
  version: "0.1.0",
  type: "source",
  props: {
    http: {
      type: "$.interface.http",
      customResponse: true,
    },
    allowedMethods: {
      type: "string[]",
      label: "Allowed methods",
      description: "Requests with other methods get a 405",
      optional: true,
      default: ["GET", "POST"],
      options: ["GET", "POST", "PUT", "PATCH", "DELETE"],
    },
    token: {
      type: "string",
      label: "Shared secret",
      description: "When set, requests must carry it in the `x-token` header",
      secret: true,
      optional: true,
    },
  },
  methods: {
    allowed(method) {
      return (this.allowedMethods || []).includes(method);
    },
  },
  async run(event) {
    if (this.token && event.headers["x-token"] !== this.token) {
      this.http.respond({ status: 401, body: { error: "bad token" } });
      return;
    }
    if (!this.allowed(event.method)) {
      this.http.respond({ status: 405, headers: { allow: this.allowedMethods.join(", ") } });
      return;
    }
    this.http.respond({ status: 200, body: { received: true } });
    this.$emit(event, {
      summary: `${event.method} ${event.path}`,
      ts: Date.now(),
    });
  },
};
