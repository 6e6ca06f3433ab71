// Appended to a copy of report.html or sweep.html by report_browser.sh and run by headless Chromium: checks the page's
// layout as drawn and writes the verdict ("ok" or one problem per line) into a new pre element, id layout-check.
(function () {
  var problems = [];
  function box(el) { return el.getBoundingClientRect(); }
  function overlap(a, b) {
    return Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 &&
           Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
  }
  var svgs = document.querySelectorAll('svg');
  if (!svgs.length) problems.push('no chart');
  svgs.forEach(function (svg) {
    var frame = box(svg);
    var texts = Array.prototype.filter.call(svg.querySelectorAll('text'), function (t) {
      return t.textContent.trim() !== '';
    });
    var boxes = texts.map(box);
    for (var i = 0; i < texts.length; i++) {
      var b = boxes[i];
      // no label (axis tick or legend) cut by the edge of its chart
      if (b.left < frame.left - 0.5 || b.right > frame.right + 0.5 || b.top < frame.top - 0.5 ||
          b.bottom > frame.bottom + 0.5)
        problems.push('#' + svg.id + ': "' + texts[i].textContent + '" is clipped by the chart edge');
      for (var j = i + 1; j < texts.length; j++)
        if (overlap(b, boxes[j]))
          problems.push('#' + svg.id + ': "' + texts[i].textContent + '" collides with "' +
                        texts[j].textContent + '"');
    }
  });
  // every point of a plot inside the frame of its panel (sweep.html): a point outside is not seen
  document.querySelectorAll('svg.panel').forEach(function (svg, k) {
    var frame = svg.querySelector('rect.frame');
    if (!frame) return;
    var f = box(frame), outside = 0, n = 0;
    svg.querySelectorAll('circle').forEach(function (c) {
      var b = box(c), x = (b.left + b.right) / 2, y = (b.top + b.bottom) / 2;
      n++;
      if (x < f.left - 0.5 || x > f.right + 0.5 || y < f.top - 0.5 || y > f.bottom + 0.5) outside++;
    });
    if (outside) problems.push('panel ' + (k + 1) + ': ' + outside + ' of ' + n + ' points lie outside its frame');
  });
  var over = document.getElementById('timeline-overview'), zoom = document.getElementById('timeline-zoom');
  if (over && zoom) {
    var band = over.querySelector('.zoom-band');
    var o0 = +over.dataset.t0Ns, o1 = +over.dataset.t1Ns, z0 = +zoom.dataset.t0Ns, z1 = +zoom.dataset.t1Ns;
    if (!band) problems.push('the overview does not mark the zoomed interval');
    else if (+band.dataset.t0Ns !== z0 || +band.dataset.t1Ns !== z1)
      problems.push('the zoom shows ' + z0 + '..' + z1 + ' ns, the overview marks ' + band.dataset.t0Ns + '..' +
                    band.dataset.t1Ns + ' ns');
    if (!(z0 >= o0 && z1 <= o1)) problems.push('the zoomed interval is not inside the overview');
    if (!((z1 - z0) * 2 <= o1 - o0)) problems.push('the zoom is not zoomed: ' + (z1 - z0) + ' of ' + (o1 - o0) + ' ns');
    if (band && band.getBoundingClientRect().width < 2) problems.push('the zoom band is too thin to see');
  }
  function finish() {
    // an embedded report (compare.html) is shown whole: its frame is as large as the page it holds
    document.querySelectorAll('iframe').forEach(function (f) {
      var d;
      try { d = f.contentDocument && f.contentDocument.documentElement; } catch (e) { d = null; }
      if (!d) { problems.push('#' + f.id + ': the embedded report cannot be read'); return; }
      if (d.scrollWidth > f.clientWidth + 1 || d.scrollHeight > f.clientHeight + 1)
        problems.push('#' + f.id + ': the frame (' + f.clientWidth + 'x' + f.clientHeight + ') clips its report (' +
                      d.scrollWidth + 'x' + d.scrollHeight + ')');
    });
    var out = document.createElement('pre');
    out.id = 'layout-check';
    out.textContent = problems.length ? problems.join('\n') : 'ok';
    document.body.appendChild(out);
  }
  if (document.querySelector('iframe') && document.readyState !== 'complete') window.addEventListener('load', finish);
  else finish();
})();
