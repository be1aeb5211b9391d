var baseSlice = require('./_baseSlice');
function chunk(array, size) {
  size = Math.max(Math.floor(size) || 1, 1);
  var length = array == null ? 0 : array.length, index = 0, resIndex = 0, result = Array(Math.ceil(length / size));
  while (index < length) { result[resIndex++] = baseSlice(array, index, (index += size)); }
  return result;
}
module.exports = chunk;
