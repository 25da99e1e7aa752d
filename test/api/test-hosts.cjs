// Preloaded (NODE_OPTIONS=--require) into an aip the proxy tests spawn: a name ending in .test is this
// machine (127.0.0.1), as a hosts file would make it, so that a request NO_PROXY sends straight to
// training.test reaches the test's TLS front without a DNS server. Other names resolve as usual.
'use strict';

const dns = require('node:dns');

const lookup = dns.lookup;
dns.lookup = function lookupTestNames(hostname, ...rest) {
  if (!/\.test$/i.test(hostname)) return lookup.call(this, hostname, ...rest);
  const [options, callback] = rest;
  const done = typeof options === 'function' ? options : callback;
  const all = typeof options === 'object' && options !== null && options.all;
  if (all) process.nextTick(done, null, [{ address: '127.0.0.1', family: 4 }]);
  else process.nextTick(done, null, '127.0.0.1', 4);
};
