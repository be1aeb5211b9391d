// node:http2 for fount: its constants, so that clients that support it
// (axios) load; connecting throws. Requests go through http and https.
export const constants = { HTTP2_HEADER_SCHEME: ":scheme", HTTP2_HEADER_METHOD: ":method", HTTP2_HEADER_PATH: ":path",
  HTTP2_HEADER_STATUS: ":status", HTTP2_HEADER_AUTHORITY: ":authority", HTTP2_HEADER_CONTENT_TYPE: "content-type",
  HTTP2_HEADER_CONTENT_LENGTH: "content-length", NGHTTP2_CANCEL: 8 };
export function connect() {
  throw new Error("fount does not provide http2: requests go through fetch, http and https");
}
export default { constants, connect };
