module.exports = function () { throw new Error("sha1-lite 2 breaks its API: a ^1.0.0 dependency must never get it"); };
