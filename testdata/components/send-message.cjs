// An action in CommonJS: formats a message, exports a summary, and can end
// the workflow early.
module.exports = {
  key: "chat-send-message",
  name: "Send Message",
  description: "Format a chat message for a channel",
  version: "0.0.3",
  type: "action",
  props: {
    chat: {
      type: "app",
      app: "chat",
      propDefinitions: {
        channel: {
          type: "string",
          label: "Channel",
          async options({ page }) {
            return [`general-${page}`, `random-${page}`];
          },
        },
      },
      methods: {
        authHeader() {
          return `Bearer ${this.$auth.oauth_access_token}`;
        },
      },
    },
    channel: { propDefinition: [null, "channel"] },
    text: { type: "string", label: "Text" },
  },
  async run({ $ }) {
    if (!this.text) return $.flow.exit("no text to send");
    const message = { channel: this.channel, text: this.text, auth: this.chat.authHeader() };
    $.export("$summary", `Sent a message to ${this.channel}`);
    return message;
  },
};
// A propDefinition refers to the app object itself.
module.exports.props.channel.propDefinition[0] = module.exports.props.chat;
