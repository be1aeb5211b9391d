module.exports = function get(object, path, defaultValue) {
  var keys = Array.isArray(path) ? path : String(path).replace(/\[(\d+)\]/g, '.$1').split('.');
  var v = object;
  for (var i = 0; i < keys.length && v != null; i++) v = v[keys[i]];
  return v === undefined ? defaultValue : v;
};
