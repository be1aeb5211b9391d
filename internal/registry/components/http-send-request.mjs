// An HTTP action: sends one request and returns the response, for a
// workflow step (key: http-send-request) or `fount run-action`.
export default {
  key: "http-send-request",
  name: "Send HTTP Request",
  description: "Send an HTTP request and return its status, content type and body (parsed when it is JSON)",
  version: "0.1.0",
  type: "action",
  props: {
    url: { type: "string", label: "URL", description: "http or https; the server's egress policy applies" },
    method: {
      type: "string",
      label: "Method",
      default: "GET",
      options: ["GET", "POST", "PUT", "PATCH", "DELETE"],
    },
    headers: { type: "object", label: "Headers", optional: true },
    body: { type: "any", label: "Body", description: "sent as JSON unless a string", optional: true },
  },
  async run({ $ }) {
    const init = { method: this.method, headers: Object.assign({}, this.headers || {}) };
    if (this.body !== undefined && this.body !== null) {
      if (typeof this.body === "string") {
        init.body = this.body;
      } else {
        init.body = JSON.stringify(this.body);
        if (!Object.keys(init.headers).some((k) => k.toLowerCase() === "content-type")) {
          init.headers["Content-Type"] = "application/json";
        }
      }
    }
    const res = await fetch(this.url, init);
    const text = await res.text();
    let data = text;
    try {
      data = JSON.parse(text);
    } catch (e) {
      // not JSON: the text as it came
    }
    $.export("$summary", `${this.method} ${this.url}: ${res.status}`);
    return { status: res.status, contentType: res.headers.get("content-type"), data };
  },
};
