// nodemailer against an SMTP server: STARTTLS verified with the test's
// CA, AUTH PLAIN, a message sent, and a refused login's error.
import nodemailer from "nodemailer";

export default {
  name: "clients-smtp",
  version: "0.1.0",
  async run(event) {
    const options = (pass) => ({
      host: "127.0.0.1", port: event.port, secure: false, requireTLS: true,
      tls: { ca: event.ca, servername: "localhost" }, auth: { user: "ada", pass },
    });
    const info = await nodemailer.createTransport(options("secret")).sendMail({
      from: "ada@example.com", to: "grace@example.com", subject: "Hello", text: "Hi there",
      messageId: "<fixed@example.com>", date: new Date("2024-01-02T03:04:05Z"),
    });
    const out = { accepted: info.accepted, rejected: info.rejected, response: info.response, envelope: info.envelope, messageId: info.messageId };
    try {
      await nodemailer.createTransport(options("wrong")).sendMail({ from: "ada@example.com", to: "grace@example.com", text: "x" });
    } catch (e) {
      out.refused = [e.code, e.responseCode, e.command, e.response];
    }
    this.$emit(out);
  },
};
