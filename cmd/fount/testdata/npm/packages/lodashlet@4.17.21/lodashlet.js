module.exports = { chunk: require('./chunk'), get: require('./get'), VERSION: '4.17.21' };
