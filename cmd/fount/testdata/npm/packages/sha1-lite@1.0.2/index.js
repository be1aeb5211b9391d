'use strict';
// SHA-1 of an array of bytes, as an array of 20 bytes.
module.exports = function sha1(bytes) {
  var K = [0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xca62c1d6];
  var H = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];
  var msg = bytes.slice();
  msg.push(0x80);
  var l = msg.length / 4 + 2, N = Math.ceil(l / 16), M = new Array(N);
  for (var i = 0; i < N; ++i) {
    var arr = new Array(16);
    for (var j = 0; j < 16; ++j) {
      arr[j] = (msg[i * 64 + j * 4] << 24) | (msg[i * 64 + j * 4 + 1] << 16) | (msg[i * 64 + j * 4 + 2] << 8) | msg[i * 64 + j * 4 + 3];
    }
    M[i] = arr;
  }
  M[N - 1][14] = Math.floor(((bytes.length) * 8) / Math.pow(2, 32));
  M[N - 1][15] = ((bytes.length) * 8) & 0xffffffff;
  for (var i2 = 0; i2 < N; ++i2) {
    var W = new Array(80);
    for (var t = 0; t < 16; ++t) W[t] = M[i2][t];
    for (var t2 = 16; t2 < 80; ++t2) { var x = W[t2 - 3] ^ W[t2 - 8] ^ W[t2 - 14] ^ W[t2 - 16]; W[t2] = (x << 1) | (x >>> 31); }
    var a = H[0], b = H[1], c = H[2], d = H[3], e = H[4];
    for (var t3 = 0; t3 < 80; ++t3) {
      var s = Math.floor(t3 / 20);
      var f = s === 0 ? (b & c) ^ (~b & d) : s === 2 ? (b & c) ^ (b & d) ^ (c & d) : b ^ c ^ d;
      var T = (((a << 5) | (a >>> 27)) + f + e + K[s] + (W[t3] >>> 0)) >>> 0;
      e = d; d = c; c = ((b << 30) | (b >>> 2)) >>> 0; b = a; a = T;
    }
    H[0] = (H[0] + a) >>> 0; H[1] = (H[1] + b) >>> 0; H[2] = (H[2] + c) >>> 0; H[3] = (H[3] + d) >>> 0; H[4] = (H[4] + e) >>> 0;
  }
  var out = [];
  for (var k = 0; k < 5; k++) out.push((H[k] >>> 24) & 0xff, (H[k] >>> 16) & 0xff, (H[k] >>> 8) & 0xff, H[k] & 0xff);
  return out;
};
