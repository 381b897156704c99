// The proof of work a sign-up from a busy shared address brings (app/core/proof_of_work.py).
// When the server answers a sign-up with a challenge, the form's hidden input
// input[data-proof-challenge] carries it: this script finds a nonce such that
// SHA-256("<challenge>:<nonce>") starts with the challenge's number of zero bits,
// writes "<challenge>~<nonce>" into the input and sends the form again. The
// search runs in slices between frames, so the page stays responsive; SHA-256
// is computed here (crypto.subtle is missing outside secure contexts and slow
// for millions of tiny digests). No third-party service, nothing inline (CSP).
(function () {
  "use strict";

  var K = new Int32Array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
  ]);
  var W = new Int32Array(64);

  // The first 32 bits of SHA-256 of the ASCII bytes in `bytes[0..length)`, padded in place
  // (`bytes` has room for the padding).
  function firstWord(bytes, length) {
    var total = ((length + 9 + 63) >> 6) << 6;
    bytes.fill(0, length, total);
    bytes[length] = 0x80;
    var bitLength = length * 8;
    bytes[total - 4] = (bitLength >>> 24) & 0xff;
    bytes[total - 3] = (bitLength >>> 16) & 0xff;
    bytes[total - 2] = (bitLength >>> 8) & 0xff;
    bytes[total - 1] = bitLength & 0xff;
    var h0 = 0x6a09e667, h1 = 0xbb67ae85, h2 = 0x3c6ef372, h3 = 0xa54ff53a;
    var h4 = 0x510e527f, h5 = 0x9b05688c, h6 = 0x1f83d9ab, h7 = 0x5be0cd19;
    for (var offset = 0; offset < total; offset += 64) {
      for (var i = 0; i < 16; i++) {
        var p = offset + i * 4;
        W[i] = (bytes[p] << 24) | (bytes[p + 1] << 16) | (bytes[p + 2] << 8) | bytes[p + 3];
      }
      for (i = 16; i < 64; i++) {
        var w15 = W[i - 15], w2 = W[i - 2];
        var s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
        var s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
        W[i] = (W[i - 16] + s0 + W[i - 7] + s1) | 0;
      }
      var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7;
      for (i = 0; i < 64; i++) {
        var S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
        var t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[i] + W[i]) | 0;
        var S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
        var t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      h0 = (h0 + a) | 0; h1 = (h1 + b) | 0; h2 = (h2 + c) | 0; h3 = (h3 + d) | 0;
      h4 = (h4 + e) | 0; h5 = (h5 + f) | 0; h6 = (h6 + g) | 0; h7 = (h7 + h) | 0;
    }
    return h0 >>> 0;
  }

  var SLICE = 20000;  // nonces tried between two frames
  var MAX_ROUNDS = 3;  // proofs sent per page load: a server that keeps asking is not asked forever
  var rounds = 0;
  var solving = "";

  function solve(input, challenge) {
    var bits = parseInt(challenge.split(".")[3], 10);
    if (!(bits >= 1 && bits <= 28) || rounds >= MAX_ROUNDS) return;
    rounds += 1;
    solving = challenge;
    var prefix = challenge + ":";
    var bytes = new Uint8Array(prefix.length + 16 + 72);
    for (var i = 0; i < prefix.length; i++) bytes[i] = prefix.charCodeAt(i) & 0xff;
    var shift = 32 - bits;
    var nonce = 0;
    function slice() {
      if (input.getAttribute("data-proof-challenge") !== challenge) { solving = ""; return; }
      for (var end = nonce + SLICE; nonce < end; nonce++) {
        var digits = String(nonce);
        for (var j = 0; j < digits.length; j++) bytes[prefix.length + j] = digits.charCodeAt(j);
        if (firstWord(bytes, prefix.length + digits.length) >>> shift === 0) {
          solving = "";
          input.value = challenge + "~" + digits;
          input.setAttribute("data-proof-answered", challenge);
          var form = input.form;
          if (form) {
            if (form.requestSubmit) form.requestSubmit();
            else form.dispatchEvent(new Event("submit", {bubbles: true, cancelable: true}));
          }
          return;
        }
      }
      setTimeout(slice, 0);
    }
    setTimeout(slice, 0);
  }

  function check() {
    var inputs = document.querySelectorAll("input[data-proof-challenge]");
    for (var i = 0; i < inputs.length; i++) {
      var input = inputs[i];
      var challenge = input.getAttribute("data-proof-challenge") || "";
      if (challenge && challenge !== solving && challenge !== input.getAttribute("data-proof-answered")) {
        solve(input, challenge);
      }
    }
  }

  // Fetched when the form first shows (assets/site.js): a challenge may be there already.
  check();
  var scheduled = false;
  new MutationObserver(function () {
    if (scheduled) return;
    scheduled = true;
    setTimeout(function () { scheduled = false; check(); }, 50);
  }).observe(document.documentElement, {
    subtree: true, childList: true, attributes: true, attributeFilter: ["data-proof-challenge"]
  });
})();
