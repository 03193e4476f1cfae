/**
 * console-charts.js: small live charts without a library. Each series keeps the last five
 * minutes of one-second samples; a chart is one SVG polyline scaled to its own maximum.
 */
export const consoleChartsScript = String.raw`'use strict';
(function () {
  var WR = (window.WR = window.WR || {});
  var KEEP = 300;

  WR.createSeries = function () {
    var values = {};
    return {
      push: function (key, value) {
        var list = (values[key] = values[key] || []);
        list.push(typeof value === 'number' && isFinite(value) ? value : 0);
        if (list.length > KEEP) list.shift();
      },
      get: function (key) { return values[key] || []; }
    };
  };

  WR.drawSpark = function (svg, list) {
    if (!svg) return;
    var line = svg.querySelector('polyline');
    if (!line || list.length === 0) return;
    var max = Math.max.apply(null, list.concat([1]));
    // The x axis is the last minute until there is more history, then up to five minutes:
    // a fresh console shows a readable line at once instead of a dot at the right edge.
    var span = Math.min(KEEP, Math.max(60, list.length));
    var step = 120 / (span - 1);
    var offset = (span - list.length) * step;
    var points = list.map(function (value, index) {
      var x = offset + index * step;
      var y = 29 - (value / max) * 27;
      return x.toFixed(1) + ',' + y.toFixed(1);
    });
    if (points.length === 1) points.push((offset + 0.5).toFixed(1) + ',' + points[0].split(',')[1]);
    line.setAttribute('points', points.join(' '));
    var label = svg.getAttribute('aria-label').split(',')[0];
    svg.setAttribute('aria-label', label + ', last ' + (span > 60 ? Math.round(span / 60) + ' minutes' : 'minute') + ', now ' + list[list.length - 1] + ', peak ' + max);
  };
})();
`;
