module.exports = function baseSlice(array, start, end) { return Array.prototype.slice.call(array, start, end); };
