// The controls of compile-perf's flamegraphs (written for them, see svg.rs):
// a click on a frame zooms to it (it fills the width, the frames on it
// widen with it, its callers stay full width, the others are hidden);
// "Reset Zoom" undoes the zoom; "Search" asks for a regular expression,
// fills the frames whose names match it and shows the share of the samples
// under them; the details line shows the tooltip of the frame under the
// pointer.
(function () {
  'use strict';
  var SEARCH_FILL = 'rgb(230,0,230)';
  var container = document.getElementById('frames');
  var details = document.getElementById('details');
  var unzoom = document.getElementById('unzoom');
  var searchControl = document.getElementById('search');
  var matched = document.getElementById('matched');
  var total = Number(container.getAttribute('total_samples'));
  var charWidth = Number(container.getAttribute('data-char-width'));
  var labelOffset = Number(container.getAttribute('data-label-offset'));
  // A tooltip reads `name (1,234 samples, 5.67%…)…`: the name is what comes
  // before the last such count.
  var counted = new RegExp(
    '^(.*) \\([0-9,]+ ' + container.getAttribute('data-count-name') + ', ');

  // Every frame, as drawn: the root first.
  var frames = [];
  var byElement = new Map();
  Array.prototype.forEach.call(container.children, function (g) {
    var rect = g.querySelector('rect');
    var label = g.querySelector('text');
    var tooltip = g.querySelector('title').textContent;
    var name = counted.exec(tooltip);
    var frame = {
      g: g,
      rect: rect,
      label: label,
      tooltip: tooltip,
      name: name ? name[1] : tooltip,
      start: Number(g.getAttribute('data-s')),
      width: Number(g.getAttribute('data-w')),
      drawn: {
        x: rect.getAttribute('x'),
        width: rect.getAttribute('width'),
        labelX: label.getAttribute('x'),
        label: label.textContent,
        fill: rect.getAttribute('fill'),
      },
    };
    frames.push(frame);
    byElement.set(g, frame);
  });

  function frameOf(event) {
    var g = event.target.closest('#frames > g');
    return g ? byElement.get(g) : undefined;
  }

  // The label of `frame` when it is `widthPercent` wide: its name when that
  // fits, else the label it was drawn with (a C++ name shortened to its
  // telling part) when that fits, else the name cut; nothing in less room
  // than 3 characters.
  function labelFor(frame, widthPercent) {
    var room = Math.floor(widthPercent / charWidth);
    if (room < 3) return '';
    if (frame.name.length < room) return frame.name;
    if (frame.drawn.label && frame.drawn.label.length <= room) return frame.drawn.label;
    return frame.name.slice(0, room - 2) + '..';
  }

  function place(frame, x, width) {
    frame.rect.setAttribute('x', x.toFixed(4) + '%');
    frame.rect.setAttribute('width', width.toFixed(4) + '%');
    frame.label.setAttribute('x', (x + labelOffset).toFixed(4) + '%');
    frame.label.textContent = labelFor(frame, width);
  }

  // A frame's samples are a span of the root's; a frame whose span holds
  // the target's is the target or a caller of it (or a callee as wide),
  // one whose span is inside it is a callee, and no other frame meets it.
  // The root (frames[0]) holds every span and stays as drawn.
  function zoom(target) {
    var from = target.start;
    var to = target.start + target.width;
    frames.slice(1).forEach(function (frame) {
      var end = frame.start + frame.width;
      var shown = frame.start < to && end > from;
      frame.g.classList.toggle('hide', !shown);
      if (!shown) return;
      if (frame.start <= from && end >= to) {
        place(frame, 0, 100);
      } else {
        place(frame, (frame.start - from) * 100 / target.width, frame.width * 100 / target.width);
      }
    });
    unzoom.classList.remove('hide');
  }

  function resetZoom() {
    frames.forEach(function (frame) {
      frame.g.classList.remove('hide');
      frame.rect.setAttribute('x', frame.drawn.x);
      frame.rect.setAttribute('width', frame.drawn.width);
      frame.label.setAttribute('x', frame.drawn.labelX);
      frame.label.textContent = frame.drawn.label;
    });
    unzoom.classList.add('hide');
  }

  var searching = false;

  // Fills the frames (all but the root) whose names match `pattern`, and
  // shows the share of the samples under them, each sample counted once
  // (a match inside a match adds nothing).
  function search(pattern) {
    var regex;
    try {
      regex = new RegExp(pattern);
    } catch (error) {
      matched.textContent = 'not a regular expression: ' + pattern;
      return;
    }
    var hits = frames.slice(1).filter(function (frame) {
      return regex.test(frame.name);
    });
    frames.forEach(function (frame) {
      frame.rect.setAttribute('fill', frame.drawn.fill);
    });
    hits.forEach(function (frame) {
      frame.rect.setAttribute('fill', SEARCH_FILL);
    });
    hits.sort(function (a, b) {
      return a.start - b.start;
    });
    var covered = 0;
    var reach = 0;
    hits.forEach(function (frame) {
      var end = frame.start + frame.width;
      if (end > reach) {
        covered += end - Math.max(frame.start, reach);
        reach = end;
      }
    });
    matched.textContent = 'Matched: ' + (100 * covered / total).toFixed(1) + '%';
    searchControl.textContent = 'Reset Search';
    searchControl.classList.add('show');
    searching = true;
  }

  function resetSearch() {
    frames.forEach(function (frame) {
      frame.rect.setAttribute('fill', frame.drawn.fill);
    });
    matched.textContent = ' ';
    searchControl.textContent = 'Search';
    searchControl.classList.remove('show');
    searching = false;
  }

  container.addEventListener('click', function (event) {
    var frame = frameOf(event);
    if (frame) zoom(frame);
  });
  container.addEventListener('mouseover', function (event) {
    var frame = frameOf(event);
    details.textContent = frame ? frame.tooltip : ' ';
  });
  container.addEventListener('mouseout', function () {
    details.textContent = ' ';
  });
  unzoom.addEventListener('click', resetZoom);
  searchControl.addEventListener('click', function () {
    if (searching) {
      resetSearch();
      return;
    }
    var pattern = window.prompt('Search for frames whose names match (a regular expression):', '');
    if (pattern) search(pattern);
  });
})();
