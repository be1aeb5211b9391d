'use strict';
var http = require('http');
var https = require('https');
var zlib = require('zlib');
var EventEmitter = require('events').EventEmitter;
var stream = require('stream');
var util = require('util');

// As axios's http adapter sets up decompression at load.
var zlibOptions = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };

function AxiosError(message, code, response) {
  var e = new Error(message);
  e.name = 'AxiosError';
  e.code = code;
  e.response = response;
  e.isAxiosError = true;
  return e;
}

// As axios picks its adapter: the http one where process is Node's,
// else fetch (which, as in a browser, refuses a GET with a body).
function kindOf(thing) { return Object.prototype.toString.call(thing).slice(8, -1).toLowerCase(); }
var isNode = typeof process !== 'undefined' && kindOf(process) === 'process';

function fetchRequest(config) {
  var url = new URL(config.url, config.baseURL);
  var data = config.data === undefined || typeof config.data === 'string' ? config.data : JSON.stringify(config.data);
  return fetch(url.href, { method: (config.method || 'get').toUpperCase(), headers: config.headers, body: data })
    .then(function (res) { return res.text().then(function (text) { return { status: res.status, data: text, adapter: 'fetch' }; }); });
}

function request(config) {
  if (!isNode) return fetchRequest(config);
  return new Promise(function (resolve, reject) {
    var url = new URL(config.url, config.baseURL);
    if (config.params) Object.keys(config.params).forEach(function (k) { url.searchParams.set(k, config.params[k]); });
    var transport = url.protocol === 'https:' ? https : http;
    var headers = Object.assign({ 'Accept': 'application/json, text/plain, */*', 'User-Agent': 'axioslite/1.6.0' }, config.headers);
    var data = config.data;
    if (data !== undefined && typeof data !== 'string') {
      data = JSON.stringify(data);
      headers['Content-Type'] = headers['Content-Type'] || 'application/json';
    }
    if (data !== undefined) headers['Content-Length'] = Buffer.byteLength(data);
    var req = transport.request({
      protocol: url.protocol, hostname: url.hostname, port: url.port, path: url.pathname + url.search,
      method: (config.method || 'get').toUpperCase(), headers: headers,
    }, function (res) {
      var chunks = [];
      var collector = new stream.PassThrough();
      stream.pipeline(res, collector, function (err) { if (err) reject(err); });
      collector.on('data', function (c) { chunks.push(c); });
      collector.on('end', function () {
        var text = Buffer.concat(chunks).toString('utf8');
        var body = text;
        if (/json/.test(res.headers['content-type'] || '')) { try { body = JSON.parse(text); } catch (e) {} }
        var response = { status: res.statusCode, statusText: res.statusMessage, headers: res.headers, data: body, config: config, adapter: 'http' };
        if (res.statusCode >= 400) reject(AxiosError('Request failed with status code ' + res.statusCode, 'ERR_BAD_RESPONSE', response));
        else resolve(response);
      });
    });
    req.on('error', function (err) { reject(AxiosError(err.message, err.code)); });
    if (data !== undefined) req.write(data);
    req.end();
  });
}

function create(defaults) {
  var instance = function (config) { return instance.request(config); };
  instance.defaults = defaults || {};
  instance.events = new EventEmitter();
  instance.request = function (config) {
    var merged = Object.assign({}, instance.defaults, config);
    instance.events.emit('request', merged.method || 'get', merged.url);
    return request(merged);
  };
  ['get', 'delete', 'head'].forEach(function (m) { instance[m] = function (url, config) { return instance.request(Object.assign({}, config, { url: url, method: m })); }; });
  ['post', 'put', 'patch'].forEach(function (m) { instance[m] = function (url, data, config) { return instance.request(Object.assign({}, config, { url: url, method: m, data: data })); }; });
  instance.create = create;
  instance.inspect = util.inspect;
  instance.zlibOptions = zlibOptions;
  return instance;
}

module.exports = create();
module.exports.default = module.exports;
